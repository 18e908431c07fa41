// Command ratios reads `go test -bench` output made of several rounds (each
// round runs every library once, as the README's benchmark loop does) and
// prints, per input, each library's time relative to a base library,
// computed within each round and then summarised over the rounds.
//
// On a shared, noisy machine the absolute times of two rounds can differ by
// half, but two libraries measured seconds apart in the same round see
// nearly the same machine, so the per-round ratio is the steadier figure.
//
//	go -C bench run ./ratios [-base bbdigest] [-key lib] < bench.txt
//
// Benchmark names must carry the library as a key=value element (lib=NAME
// by default); the other elements name the input. The logic is package
// bench/internal/ratio's, which the report command (bench/report) shares.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/bbdigest/bbdigest/bench/internal/ratio"
)

func main() {
	base := flag.String("base", "bbdigest", "library the others are compared with")
	key := flag.String("key", "lib", "name element that holds the library")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *base, *key); err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
}

func run(r io.Reader, w io.Writer, base, key string) error {
	samples, err := ratio.Parse(r, key)
	if err != nil {
		return err
	}
	samples = slices.DeleteFunc(samples, func(s ratio.Sample) bool { return s.Lib == "" })
	fmt.Fprintf(w, "%-55s %-16s %12s %9s %17s %6s\n", "input", "lib", "median", "÷ "+base, "range of ratio", "rounds")
	for _, row := range ratio.Summarize(samples, base) {
		line := fmt.Sprintf("%-55s %-16s %12s", row.Input, row.Lib, ratio.FormatNs(row.Median))
		if row.N > 0 {
			line += fmt.Sprintf(" %8.2fx %7.2fx–%6.2fx %6d", row.Ratio, row.Lo, row.Hi, row.N)
		}
		fmt.Fprintln(w, line)
	}
	return nil
}
