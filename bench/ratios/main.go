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
// by default); the other elements name the input.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
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

// sample is one measurement: an input, a library, a round, a time.
type sample struct {
	input, lib string
	round      int
	ns         float64
}

func run(r io.Reader, w io.Writer, base, key string) error {
	var samples []sample
	seen := map[string]int{} // full name -> rounds seen
	var inputs []string
	libs := map[string][]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		var ns float64
		found := false
		for i := 2; i+1 < len(f); i++ {
			if f[i+1] == "ns/op" {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return fmt.Errorf("%q: %v", sc.Text(), err)
				}
				ns, found = v, true
			}
		}
		if !found {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i] // the GOMAXPROCS suffix
			}
		}
		var in []string
		lib := ""
		for _, e := range strings.Split(name, "/") {
			if v, ok := strings.CutPrefix(e, key+"="); ok {
				lib = v
			} else {
				in = append(in, e)
			}
		}
		if lib == "" {
			continue
		}
		input := strings.Join(in, "/")
		if _, ok := libs[input]; !ok {
			inputs = append(inputs, input)
		}
		if !slices.Contains(libs[input], lib) {
			libs[input] = append(libs[input], lib)
		}
		samples = append(samples, sample{input, lib, seen[name], ns})
		seen[name]++
	}
	if err := sc.Err(); err != nil {
		return err
	}
	times := map[[2]string]map[int]float64{}
	for _, s := range samples {
		k := [2]string{s.input, s.lib}
		if times[k] == nil {
			times[k] = map[int]float64{}
		}
		times[k][s.round] = s.ns
	}
	fmt.Fprintf(w, "%-55s %-16s %12s %9s %17s %6s\n", "input", "lib", "median", "÷ "+base, "range of ratio", "rounds")
	for _, input := range inputs {
		bt := times[[2]string{input, base}]
		for _, lib := range libs[input] {
			lt := times[[2]string{input, lib}]
			var all, ratios []float64
			for round, ns := range lt {
				all = append(all, ns)
				if b, ok := bt[round]; ok && lib != base {
					ratios = append(ratios, ns/b)
				}
			}
			line := fmt.Sprintf("%-55s %-16s %12s", input, lib, fmtNs(median(all)))
			if len(ratios) > 0 {
				slices.Sort(ratios)
				line += fmt.Sprintf(" %8.2fx %7.2fx–%6.2fx %6d", median(ratios), ratios[0], ratios[len(ratios)-1], len(ratios))
			}
			fmt.Fprintln(w, line)
		}
	}
	return nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 3, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'f', 3, 64) + " µs"
	}
	return strconv.FormatFloat(ns, 'f', 1, 64) + " ns"
}
