package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestChart requires well-formed SVG with one bar per library and input.
func TestChart(t *testing.T) {
	groups := []chartGroup{
		{"a <1 KiB> & more", []bar{{"jsontext", 3, 2.5, 4}, {"gowebpki", 20, 18, 25}, {libNode, 0.8, 0.7, 0.9}}},
		{"b", []bar{{"jsontext", 1.5, 1.5, 1.5}, {"encoding-json", 7, 6, 8}}},
	}
	var b bytes.Buffer
	if err := writeChart(&b, "title", "sub & title", groups); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&b)
	bars, root := 0, ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, b.String())
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Space + " " + se.Name.Local
			}
			for _, a := range se.Attr {
				if se.Name.Local == "rect" && a.Name.Local == "class" && a.Value == "bar" {
					bars++
				}
			}
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("root element %q, want svg in the SVG namespace", root)
	}
	if bars != 5 {
		t.Errorf("%d bars, want 5", bars)
	}
}

// TestStep checks the axis steps of the chart.
func TestStep(t *testing.T) {
	for _, c := range []struct{ v, below, above float64 }{
		{1, 1, 1}, {3.2, 2, 5}, {142, 100, 200}, {0.8, 0.5, 1}, {50, 50, 50}, {6, 5, 10},
	} {
		if got := stepBelow(c.v); got != c.below {
			t.Errorf("stepBelow(%v) = %v, want %v", c.v, got, c.below)
		}
		if got := stepAbove(c.v); got != c.above {
			t.Errorf("stepAbove(%v) = %v, want %v", c.v, got, c.above)
		}
	}
}

// TestMarkdown builds a report from two rounds of made-up output and checks
// its tables: a line per input, per-round ratios, the chart's groups, the
// large-record rows (a ratio to the loop; times only without -lines-base),
// and Node's absence explained.
func TestMarkdown(t *testing.T) {
	raw := map[string]*bytes.Buffer{}
	for _, g := range groupOrder {
		raw[g] = new(bytes.Buffer)
	}
	// The second round is twice as slow; jsontext is 3× bbdigest in both.
	raw[gBench].WriteString(`BenchmarkCanonicalize/input=mixed-1M/lib=bbdigest-2 10 1000 ns/op
BenchmarkCanonicalize/input=mixed-1M/lib=jsontext-2 10 3000 ns/op
BenchmarkCanonicalize/input=strict-1M/lib=bbdigest-2 10 100 ns/op
BenchmarkCanonicalize/input=strict-1M/lib=jsontext-2 10 500 ns/op
BenchmarkSum256/impl=bbdigest/size=8-2 10 50 ns/op
BenchmarkSum256/impl=stdlib/size=8-2 10 100 ns/op
BenchmarkBatchLarge/input=lines-mixed-1M/mode=digest/impl=serial-2 1 1000 ns/op
BenchmarkBatchLarge/input=lines-mixed-1M/mode=digest/impl=batch-w1-2 1 900 ns/op
BenchmarkLinesLargeProcess/input=lines-canonical-900K/mode=canon/impl=bbdigest-w1-2 1 3000 ns/op
BenchmarkCanonicalize/input=mixed-1M/lib=bbdigest-2 10 2000 ns/op
BenchmarkCanonicalize/input=mixed-1M/lib=jsontext-2 10 6000 ns/op
BenchmarkCanonicalize/input=strict-1M/lib=bbdigest-2 10 200 ns/op
BenchmarkCanonicalize/input=strict-1M/lib=jsontext-2 10 600 ns/op
BenchmarkSum256/impl=bbdigest/size=8-2 10 50 ns/op
BenchmarkSum256/impl=stdlib/size=8-2 10 100 ns/op
BenchmarkBatchLarge/input=lines-mixed-1M/mode=digest/impl=serial-2 1 2000 ns/op
BenchmarkBatchLarge/input=lines-mixed-1M/mode=digest/impl=batch-w1-2 1 2000 ns/op
BenchmarkLinesLargeProcess/input=lines-canonical-900K/mode=canon/impl=bbdigest-w1-2 1 5000 ns/op
`)
	raw[gRehash].WriteString("BenchmarkRehash/records=10/workers=1 1 4000 ns/op\nBenchmarkRehash/records=10/workers=2 1 2000 ns/op\n")
	h := hdr{command: "bench/report.sh", nodeNote: "no Node.js", records: 10, archiveBytes: 1000, workers: []int{1, 2},
		inputBytes: [][2]string{{"mixed-1M", "1048576"}, {"strict-1M", "1048576"}}}
	rep, err := buildReport(h, raw)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	writeMarkdown(&md, rep)
	out := md.String()
	for _, want := range []string{
		"| mixed-1M (1.00 MiB) | 1.500 µs | | 4.500 µs (3.00×, 3.00–3.00) |",
		"| strict-1M (1.00 MiB) | 150.0 ns | | 550.0 ns (4.00×, 3.00–5.00) |",
		"| 8 | 50.0 ns | 100.0 ns (2.00×, 2.00–2.00) |",
		"2.000 µs (2.00× as fast, 2.00–2.00)",
		"| lines-mixed-1M, digest | 1.500 µs | 1.450 µs (0.95×, 0.90–1.00) |",
		"| lines-canonical-900K, canon | | 4.000 µs |",
		"Node rows skipped: no Node.js.",
		"![",
	} {
		if !strings.Contains(strings.ReplaceAll(out, "|  |", "| |"), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if len(rep.chart) != 2 || len(rep.chart[0].bars) != 1 || rep.chart[1].bars[0].ratio != 4 {
		t.Errorf("chart groups %+v", rep.chart)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"-rounds": "-rounds", "10": "10", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
