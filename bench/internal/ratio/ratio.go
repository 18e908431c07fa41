// Package ratio reads `go test -bench` output made of several rounds (each
// round runs every library once) and summarises, per input, each library's
// time relative to a base library, computed within each round: on a shared,
// noisy machine the absolute times of two rounds can differ by half, but two
// libraries measured seconds apart in the same round see nearly the same
// machine, so the per-round ratio is the steadier figure.
//
// It is the logic of the ratios command and of the report command.
package ratio

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Sample is one measurement: an input, a library, a round, a time.
type Sample struct {
	Input, Lib string
	Round      int // the how-manieth time this benchmark name was seen, from 0
	Ns         float64
}

// Parse reads benchmark lines from r. A benchmark's library is the name
// element key=NAME; the other elements, joined by "/", name its input. A
// line without such an element gets Lib "". The GOMAXPROCS suffix is
// dropped, and each full name's nth occurrence is round n.
func Parse(r io.Reader, key string) ([]Sample, error) {
	return ParseUnit(r, key, "ns/op")
}

// ParseUnit is Parse of the value given in unit (a metric a benchmark
// reports beside its time, "cpu-ns/op" say) in place of ns/op: Sample.Ns
// holds that value, and a line without it is skipped.
func ParseUnit(r io.Reader, key, unit string) ([]Sample, error) {
	var samples []Sample
	seen := map[string]int{} // full name -> rounds seen
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		var ns float64
		found := false
		for i := 2; i+1 < len(f); i++ {
			if f[i+1] == unit {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					return nil, fmt.Errorf("%q: %v", sc.Text(), err)
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
		samples = append(samples, Sample{strings.Join(in, "/"), lib, seen[name], ns})
		seen[name]++
	}
	return samples, sc.Err()
}

// Row summarises one library on one input.
type Row struct {
	Input, Lib string
	Median     float64 // median time, ns
	Rounds     int     // samples of this library on this input
	// Ratio is the median over the rounds of this library's time divided by
	// the base library's in the same round, Lo and Hi its range, N the
	// rounds that had both; all zero for the base and where it is missing.
	Ratio, Lo, Hi float64
	N             int
}

// Summarize returns a row per input and library, inputs and libraries in
// their order of first appearance.
func Summarize(samples []Sample, base string) []Row {
	var inputs []string
	libs := map[string][]string{}
	times := map[[2]string]map[int]float64{}
	for _, s := range samples {
		if _, ok := libs[s.Input]; !ok {
			inputs = append(inputs, s.Input)
		}
		if !slices.Contains(libs[s.Input], s.Lib) {
			libs[s.Input] = append(libs[s.Input], s.Lib)
		}
		k := [2]string{s.Input, s.Lib}
		if times[k] == nil {
			times[k] = map[int]float64{}
		}
		times[k][s.Round] = s.Ns
	}
	var rows []Row
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
			row := Row{Input: input, Lib: lib, Median: Median(all), Rounds: len(all)}
			if len(ratios) > 0 {
				slices.Sort(ratios)
				row.Ratio, row.Lo, row.Hi, row.N = Median(ratios), ratios[0], ratios[len(ratios)-1], len(ratios)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// Median returns the median of v (0 for none), leaving v as it is.
func Median(v []float64) float64 {
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

// FormatNs writes a time in ns with its unit: ns, µs or ms, or s.
func FormatNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return strconv.FormatFloat(ns/1e9, 'f', 3, 64) + " s"
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'f', 3, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'f', 3, 64) + " µs"
	}
	return strconv.FormatFloat(ns, 'f', 1, 64) + " ns"
}
