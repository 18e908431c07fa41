package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/bench/internal/ratio"
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
	// Authorize's two kinds of rows: commit= and, with a signed
	// authority, ledger=.
	raw[gGate].WriteString(`BenchmarkAuthorize/commit=group/callers=64-2 100 50000 ns/op 20000 decisions/s
BenchmarkAuthorize/commit=each/callers=64-2 10 500000 ns/op 2000 decisions/s
BenchmarkAuthorize/authority=signed/ledger=group/callers=64-2 10 250000 ns/op 4000 decisions/s
BenchmarkAuthorize/authority=signed/ledger=each/callers=64-2 10 1000000 ns/op 1000 decisions/s
`)
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
		"| 64 | 50.000 µs | 500.000 µs (10.0×, 10.0–10.0) |",
		"group commit: 20000 decisions/s (median).",
		"## Authorize, consuming a signed authority",
		"| 64 | 250.000 µs | 1.000 ms (4.00×, 4.00–4.00) |",
		"ledger transaction each: 1000 decisions/s (median).",
	} {
		if !strings.Contains(strings.ReplaceAll(out, "|  |", "| |"), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "authority=signed/") || strings.Contains(out, "\n: ") {
		t.Errorf("an Authorize row or note without its variant's name:\n%s", out)
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

// processRaw is two rounds of made-up whole-process lines on a 1 GB
// archive (the second round's times doubled but for digest-w2's), and one
// round on a large-record input.
const processRaw = `BenchmarkProcess/input=archive-canonical/impl=linefilter 1 4000000000 ns/op 250.00 MB/s 4000000000 cpu-ns/op 8000 peak-rss-KiB 8500 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=digest-w1 1 1000000000 ns/op 1000.00 MB/s 1000000000 cpu-ns/op 20480 peak-rss-KiB 8500 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=digest-w2 1 500000000 ns/op 2000.00 MB/s 1100000000 cpu-ns/op 20480 peak-rss-KiB 8500 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=rehash-w1 1 1000000000 ns/op 1000.00 MB/s 1000000000 cpu-ns/op 10240 peak-rss-KiB 10240 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=rehash-w2 1 600000000 ns/op 1666.67 MB/s 1200000000 cpu-ns/op 10240 peak-rss-KiB 10240 floor-rss-KiB
BenchmarkProcess/input=lines-canonical-900K/impl=linefilter 1 500000000 ns/op 172.95 MB/s 500000000 cpu-ns/op
BenchmarkProcess/input=lines-canonical-900K/impl=digest-w1 1 100000000 ns/op 864.73 MB/s 100000000 cpu-ns/op
BenchmarkProcess/input=archive-canonical/impl=linefilter 1 8000000000 ns/op 125.00 MB/s 4000000000 cpu-ns/op 9000 peak-rss-KiB 8500 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=digest-w1 1 2000000000 ns/op 500.00 MB/s 1000000000 cpu-ns/op 20480 peak-rss-KiB 8500 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=digest-w2 1 1250000000 ns/op 800.00 MB/s 1100000000 cpu-ns/op 20480 peak-rss-KiB 8500 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=rehash-w1 1 2000000000 ns/op 500.00 MB/s 1000000000 cpu-ns/op 10240 peak-rss-KiB 10240 floor-rss-KiB
BenchmarkProcess/input=archive-canonical/impl=rehash-w2 1 1200000000 ns/op 833.33 MB/s 1200000000 cpu-ns/op 10240 peak-rss-KiB 10240 floor-rss-KiB
`

// TestProcessMarkdown builds the whole-process tables from processRaw and
// checks their cells: time, GB/s and the per-round ratio to linefilter
// (median, range); CPU time and CPU s per GB; peak memory, the largest
// over the rounds above the report's own (else "≤" it); the scaling from 1 to 2 workers; the inputs' labels
// (size, lines, profile); and the header's note with both load averages.
func TestProcessMarkdown(t *testing.T) {
	raw := map[string]*bytes.Buffer{}
	for _, g := range groupOrder {
		raw[g] = new(bytes.Buffer)
	}
	raw[gProcess].WriteString(processRaw)
	h := hdr{command: "bench/report.sh", nodeNote: "no Node.js", workers: []int{1, 2},
		note: "quiet machine.", loadBefore: "0.05 0.10 0.08", loadAfter: "1.02 0.40 0.15",
		processInputs: []processInput{
			{name: "archive-canonical", made: "`archive gen --canonical`", bytes: 1e9, lines: 10},
			{name: "lines-canonical-900K", made: "large", profile: "rfc8785", bytes: 86472960, lines: 96},
		}}
	rep, err := buildReport(h, raw)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	writeMarkdown(&md, rep)
	out := md.String()
	for strings.Contains(out, "|  |") {
		out = strings.ReplaceAll(out, "|  |", "| |")
	}
	for _, want := range []string{
		"| note | quiet machine; load average (1, 5, 15 min) before the run 0.05 0.10 0.08, after it 1.02 0.40 0.15 |",
		"## Whole processes: wall time",
		"| input | linefilter (one goroutine) | digest --lines, 1 worker | digest --lines, 2 workers | archive rehash, 1 worker | archive rehash, 2 workers |",
		// Wall: linefilter 4 s and 8 s; digest-w2 8× and 6.4× as fast.
		"| archive-canonical (10 lines, 1.00 GB; strict) | 6.000 s, 0.17 GB/s | 1.500 s, 0.67 GB/s (4.00× as fast, 4.00–4.00) | 875.000 ms, 1.14 GB/s (7.11× as fast, 6.40–8.00) | 1.500 s, 0.67 GB/s (4.00× as fast, 4.00–4.00) | 900.000 ms, 1.11 GB/s (6.67× as fast, 6.67–6.67) |",
		"| lines-canonical-900K (96 lines, 86.5 MB; rfc8785) | 500.000 ms, 0.17 GB/s | 100.000 ms, 0.86 GB/s (5.00× as fast, 5.00–5.00) | | | |",
		"Scaling on archive-canonical, 1 worker's time ÷ 2 workers' in the same round (median, range): digest --lines 1.78× (1.60–2.00); archive rehash 1.67× (1.67–1.67).",
		// CPU: the same in both rounds.
		"| archive-canonical (10 lines, 1.00 GB; strict) | 4.000 s, 4.00 s/GB | 1.000 s, 1.00 s/GB (0.25× linefilter's, 0.25–0.25) | 1.100 s, 1.10 s/GB (0.28× linefilter's, 0.28–0.28) | 1.000 s, 1.00 s/GB (0.25× linefilter's, 0.25–0.25) | 1.200 s, 1.20 s/GB (0.30× linefilter's, 0.30–0.30) |",
		"| lines-canonical-900K (96 lines, 86.5 MB; rfc8785) | 500.000 ms, 5.78 s/GB | 100.000 ms, 1.16 s/GB (0.20× linefilter's, 0.20–0.20) | | | |",
		// Peak memory: linefilter's 9000 KiB (its 8000 is under the
		// floor of 8500), and rehash never above its floor of 10240.
		"| archive-canonical (10 lines, 1.00 GB; strict) | 8.79 MiB | 20.00 MiB | 20.00 MiB | ≤ 10.00 MiB | ≤ 10.00 MiB |",
		"Inputs: whole processes: `archive-canonical` (1.00 GB), `archive gen --canonical`; `lines-canonical-900K` (86.5 MB), large.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "load average at the end") {
		t.Errorf("report still has the old load row:\n%s", out)
	}
	var titles []string
	for _, s := range rep.sections {
		titles = append(titles, s.title)
	}
	if got := strings.Join(titles, ", "); got != "Whole processes: wall time, Whole processes: CPU time, Whole processes: peak memory" {
		t.Errorf("sections %s", got)
	}

	// A line whose time is not a number is an error, not a row.
	raw[gProcess].WriteString("BenchmarkProcess/input=archive-canonical/impl=linefilter 1 x ns/op 1 cpu-ns/op\n")
	if _, err := buildReport(h, raw); err == nil {
		t.Error("buildReport accepted a time that is not a number")
	}
}

// TestProcessLine writes the raw lines of runs and reads them back with
// the units the tables parse.
func TestProcessLine(t *testing.T) {
	in := processInput{name: "archive-mixed", bytes: 2e9}
	l := processLine(in, "rehash-w2", processRun{wall: 1600 * time.Millisecond, cpu: 3 * time.Second, maxRSSKiB: 12345, floorKiB: 6000})
	if want := "BenchmarkProcess/input=archive-mixed/impl=rehash-w2 1 1600000000 ns/op 1250.00 MB/s 3000000000 cpu-ns/op 12345 peak-rss-KiB 6000 floor-rss-KiB\n"; l != want {
		t.Errorf("processLine = %q, want %q", l, want)
	}
	if l := processLine(processInput{name: "x"}, implLinefilter, processRun{wall: 5, cpu: 7}); l != "BenchmarkProcess/input=x/impl=linefilter 1 5 ns/op 7 cpu-ns/op\n" {
		t.Errorf("processLine without size or RSS = %q", l)
	}
	for unit, want := range map[string]float64{"ns/op": 1.6e9, "cpu-ns/op": 3e9, "peak-rss-KiB": 12345, "floor-rss-KiB": 6000} {
		s, err := ratio.ParseUnit(strings.NewReader(l+"goos: linux\n"), "impl", unit)
		if err != nil || len(s) != 1 || s[0].Ns != want || s[0].Lib != "rehash-w2" || s[0].Input != "BenchmarkProcess/input=archive-mixed" {
			t.Errorf("ParseUnit(%s) = %+v, %v; want one sample of %v", unit, s, err, want)
		}
	}
}

// TestFmtRate checks the throughput cells: GB/s, MB/s below 0.1 GB/s.
func TestFmtRate(t *testing.T) {
	for _, c := range []struct {
		n, ns float64
		want  string
	}{{1e9, 1e9, "1.00 GB/s"}, {5.6e8, 8e8, "0.70 GB/s"}, {1e8, 1e9, "0.10 GB/s"}, {5e7, 1e9, "50.0 MB/s"}} {
		if got := fmtRate(c.n, c.ns); got != c.want {
			t.Errorf("fmtRate(%v, %v) = %s, want %s", c.n, c.ns, got, c.want)
		}
	}
}

// TestCompareDigests checks the differential test of the whole-process
// rows on made-up outputs: agreement, and each way of disagreeing named by
// its line.
func TestCompareDigests(t *testing.T) {
	lf := "sha256:aa\nsha256:bb\n"
	for _, c := range []struct {
		name, want, got string
		rehash          bool
		lines           int
		err             string // "" for none
	}{
		{"digest agrees", lf, lf, false, 2, ""},
		{"rehash agrees", lf, `{"line":1,"digest":"sha256:aa"}` + "\n" + `{"digest":"sha256:bb","line":2}` + "\n", true, 2, ""},
		{"digest differs", lf, "sha256:aa\nsha256:bc\n", false, 2, "line 2:"},
		{"digest short", lf, "sha256:aa\n", false, 2, "line 2: one output ends"},
		{"digest long", lf, lf + "sha256:cc\n", false, 2, "line 3: one output ends"},
		{"lines miscounted", lf, lf, false, 3, "2 lines answered, the input has 3"},
		{"rehash differs", lf, `{"line":1,"digest":"sha256:aa"}` + "\n" + `{"line":2,"digest":"sha256:ba"}` + "\n", true, 2, "line 2:"},
		{"rehash line number", lf, `{"line":1,"digest":"sha256:aa"}` + "\n" + `{"line":3,"digest":"sha256:bb"}` + "\n", true, 2, "line 2:"},
		{"rehash error", lf, `{"line":1,"digest":"sha256:aa"}` + "\n" + `{"line":2,"error":{"class":"syntax"}}` + "\n", true, 2, "line 2:"},
		{"rehash not JSON", lf, "sha256:aa\nsha256:bb\n", true, 2, "line 1:"},
		{"linefilter rejected", "sha256:aa\nerror bad\n", "sha256:aa\nerror bad\n", false, 2, "line 2: linefilter wrote"},
	} {
		err := compareDigests(strings.NewReader(c.want), strings.NewReader(c.got), c.rehash, c.lines)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.err)
		}
	}
}

// TestCountLines counts lines with and without a final newline, and
// across read buffers.
func TestCountLines(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]int{"": 0, "a\n": 1, "a\nb": 2, "a\n\nb\n": 3, strings.Repeat("x\n", 3<<20/2) + "y": 3<<20/2 + 1} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := countLines(p); err != nil || got != want {
			t.Errorf("countLines(%.20q…) = %d, %v; want %d", content, got, err, want)
		}
	}
}

var sinkBytes []byte

// TestRunProcess runs stand-ins for the programs (cat for linefilter, sh
// scripts for bbdigest's commands, which get the file as their last
// argument): runProcess writes the output to the file and truncates it
// run to run, resets the report's peak memory before each run (on
// Linux), passes --profile, and reports a failing program with its
// stderr; checkProcessOutputs accepts programs that agree and names the
// one that does not.
func TestRunProcess(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	dir := t.TempDir()
	in := processInput{name: "in", path: filepath.Join(dir, "in.jsonl"), lines: 2}
	if err := os.WriteFile(in.path, []byte("sha256:aa\nsha256:bb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := func(s string) []string { return []string{"-c", s, "sh"} }
	lf := processProg{impl: implLinefilter, exe: cat}
	digest := processProg{impl: "digest-w1", exe: sh, command: script(`eval "f=\${$#}"; cat "$f"`)}
	rehash := processProg{impl: "rehash-w1", exe: sh, rehash: true, command: script(`eval "f=\${$#}"; awk '{printf "{\"line\":%d,\"digest\":\"%s\"}\n", NR, $0}' "$f"`)}
	out := filepath.Join(dir, "out")
	for range 2 {
		m, err := runProcess(digest, in, out)
		if err != nil {
			t.Fatal(err)
		}
		if m.wall <= 0 {
			t.Errorf("wall time %v", m.wall)
		}
		if runtime.GOOS == "linux" && (m.maxRSSKiB <= 0 || m.floorKiB <= 0) {
			t.Errorf("peak RSS %d KiB, floor %d KiB: want both from rusage", m.maxRSSKiB, m.floorKiB)
		}
	}
	if f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0); err == nil {
		f.Close()
		// 64 MiB touched and dropped: the floor of the next run is the
		// report's size after the reset, not its peak.
		big := make([]byte, 64<<20)
		for i := range big {
			big[i] = 1
		}
		sinkBytes = big
		sinkBytes = nil
		m, err := runProcess(digest, in, out)
		if err != nil {
			t.Fatal(err)
		}
		if m.floorKiB <= 0 || m.floorKiB >= 64<<10 || m.maxRSSKiB >= 64<<10 {
			t.Errorf("after 64 MiB touched: floor %d KiB, child's peak %d KiB; want both under 64 MiB", m.floorKiB, m.maxRSSKiB)
		}
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "sha256:aa\nsha256:bb\n" {
		t.Errorf("output after two runs %q, %v", b, err)
	}
	args := processProg{impl: "args", exe: sh, command: script(`echo "$@"`)}
	in.profile = "rfc8785"
	if _, err := runProcess(args, in, out); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "--profile rfc8785 "+in.path+"\n" {
		t.Errorf("arguments %q, want --profile and the file", b)
	}
	in.profile = ""
	fail := processProg{impl: "fail", exe: sh, command: script(`echo "bbdigest: error: no" >&2; exit 1`)}
	if _, err := runProcess(fail, in, out); err == nil || !strings.Contains(err.Error(), "bbdigest: error: no") {
		t.Errorf("failing program: %v, want its stderr", err)
	}

	if err := checkProcessOutputs([]processProg{lf, digest, rehash}, in, dir); err != nil {
		t.Errorf("agreeing programs: %v", err)
	}
	wrong := processProg{impl: "digest-w2", exe: sh, command: script(`echo sha256:aa; echo sha256:cc`)}
	if err := checkProcessOutputs([]processProg{lf, digest, wrong}, in, dir); err == nil || !strings.Contains(err.Error(), "digest-w2 disagrees with linefilter: line 2:") {
		t.Errorf("disagreeing program: %v", err)
	}
}
