package main

// The whole-process rows (issue 28, item 6): `bbdigest archive rehash` and
// `bbdigest digest --lines`, at 1 and all workers, against linefilter (a
// jsontext + crypto/sha256 line tool on one goroutine, bench/linefilter),
// each a process started, run over a file and exited, its output written
// to a file on the same disk, timed from outside (wall) and by its own CPU
// time (user + system, os.ProcessState). Before the rounds every program
// runs once on every input and their digests are compared line by line,
// so the rows double as a differential test.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/bench/internal/ratio"
)

// processInput is one input of the whole-process rows.
type processInput struct {
	name    string // input=NAME in the raw lines
	path    string // the file (not needed to build the tables)
	made    string // how it was made, for the page
	profile string // bbdigest's --profile; "" is the default, strict
	bytes   int64
	lines   int
}

// label names the input in a table row.
func (in processInput) label() string {
	if in.bytes == 0 {
		return in.name
	}
	profile := in.profile
	if profile == "" {
		profile = "strict"
	}
	return fmt.Sprintf("%s (%d lines, %s; %s)", in.name, in.lines, fmtGB(float64(in.bytes)), profile)
}

// Implementations of the whole-process rows (impl=NAME): linefilter, and
// bbdigest's commands at w workers, "digest-w1", "rehash-w2".
const implLinefilter = "linefilter"

// processProg is one program of the whole-process rows.
type processProg struct {
	impl    string
	exe     string
	command []string // bbdigest's command and flags, before --profile and FILE; nil for linefilter
	rehash  bool     // it writes archive rehash's JSON lines
}

// processProgs are the programs at the given worker counts, linefilter
// first: digest --lines at each count, then archive rehash at each.
func processProgs(bbdigest, linefilter string, workers []int) []processProg {
	ps := []processProg{{impl: implLinefilter, exe: linefilter}}
	for _, w := range workers {
		ps = append(ps, processProg{impl: fmt.Sprintf("digest-w%d", w), exe: bbdigest, command: []string{"digest", "--lines", "--workers", strconv.Itoa(w)}})
	}
	for _, w := range workers {
		ps = append(ps, processProg{impl: fmt.Sprintf("rehash-w%d", w), exe: bbdigest, command: []string{"archive", "rehash", "--workers", strconv.Itoa(w)}, rehash: true})
	}
	return ps
}

// processRun is what one run of a program measured.
type processRun struct {
	wall, cpu time.Duration
	maxRSSKiB int64 // 0 where the system does not say
	// floorKiB is the report's own peak while the program ran: Linux
	// counts the report's peak at the start in the program's maxRSSKiB
	// (rssFloorKiB), so only a maxRSSKiB above it is the program's own.
	floorKiB int64
}

// runProcess runs p on in, its output to the file out (created, or
// truncated, before the clock starts): bbdigest with the file as its
// argument, linefilter with it on stdin. The wall time runs from just
// before the start to the exit; the CPU time is the child's user + system
// time. Before the start the report resets its own peak resident set
// (resetRSSPeak), which Linux counts in the program's. A program that
// exits other than 0 (a line rejected, say) is an error.
func runProcess(p processProg, in processInput, out string) (processRun, error) {
	var args []string
	var stdin *os.File
	if p.command == nil {
		f, err := os.Open(in.path)
		if err != nil {
			return processRun{}, err
		}
		defer f.Close()
		stdin = f
	} else {
		args = slices.Clone(p.command)
		if in.profile != "" {
			args = append(args, "--profile", in.profile)
		}
		args = append(args, in.path)
	}
	of, err := os.Create(out)
	if err != nil {
		return processRun{}, err
	}
	defer of.Close()
	cmd := exec.Command(p.exe, args...)
	if stdin != nil {
		cmd.Stdin = stdin
	}
	cmd.Stdout = of
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	resetRSSPeak()
	t0 := time.Now()
	err = cmd.Run()
	wall := time.Since(t0)
	floor := rssFloorKiB()
	if err != nil {
		redirect := ""
		if stdin != nil {
			redirect = " < " + in.path
		}
		return processRun{}, fmt.Errorf("%s%s: %v\n%s", strings.Join(cmd.Args, " "), redirect, err, tail(stderr.Bytes()))
	}
	if err := of.Close(); err != nil {
		return processRun{}, err
	}
	ps := cmd.ProcessState
	return processRun{wall: wall, cpu: ps.UserTime() + ps.SystemTime(), maxRSSKiB: maxRSSKiB(ps), floorKiB: floor}, nil
}

// processLine is the raw line of one run, in `go test -bench`'s format:
// wall time as ns/op, then MB/s, cpu-ns/op and, where known,
// peak-rss-KiB and floor-rss-KiB (processRun.floorKiB).
func processLine(in processInput, impl string, r processRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BenchmarkProcess/input=%s/impl=%s 1 %d ns/op", in.name, impl, r.wall.Nanoseconds())
	if in.bytes > 0 && r.wall > 0 {
		fmt.Fprintf(&b, " %.2f MB/s", float64(in.bytes)/1e6/r.wall.Seconds())
	}
	fmt.Fprintf(&b, " %d cpu-ns/op", r.cpu.Nanoseconds())
	if r.maxRSSKiB > 0 {
		fmt.Fprintf(&b, " %d peak-rss-KiB %d floor-rss-KiB", r.maxRSSKiB, r.floorKiB)
	}
	return b.String() + "\n"
}

// countLines returns the number of lines of the file at path: its "\n"s,
// and one more if it ends without one.
func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n, last := 0, byte('\n')
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte("\n"))
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// compareDigests checks the output got of a program against want,
// linefilter's ("sha256:<hex>" per line): lines lines each, and on every
// line the same digest, written the same way (digest --lines) or as
// {"line":N,"digest":"sha256:<hex>"} with N the line's number (archive
// rehash, when rehash). It names the first line that differs.
func compareDigests(want, got io.Reader, rehash bool, lines int) error {
	ws, gs := bufio.NewScanner(want), bufio.NewScanner(got)
	ws.Buffer(nil, 1<<20)
	gs.Buffer(nil, 1<<20)
	n := 0
	for {
		wok, gok := ws.Scan(), gs.Scan()
		if !wok || !gok {
			if err := errors.Join(ws.Err(), gs.Err()); err != nil {
				return err
			}
			if wok || gok {
				return fmt.Errorf("line %d: one output ends where the other goes on (linefilter's ended: %v)", n+1, !wok)
			}
			break
		}
		n++
		w := ws.Text()
		if !strings.HasPrefix(w, "sha256:") {
			return fmt.Errorf("line %d: linefilter wrote %.120q, not a digest", n, w)
		}
		g := gs.Text()
		if rehash {
			var rec struct {
				Line   int             `json:"line"`
				Digest string          `json:"digest"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal([]byte(g), &rec); err != nil {
				return fmt.Errorf("line %d: %.120q: %v", n, g, err)
			}
			if rec.Line != n || rec.Error != nil {
				return fmt.Errorf("line %d: %.120q, want {\"line\":%d,\"digest\":%q}", n, g, n, w)
			}
			g = rec.Digest
		}
		if g != w {
			return fmt.Errorf("line %d: %.120q, linefilter's %q", n, g, w)
		}
	}
	if n != lines {
		return fmt.Errorf("%d lines answered, the input has %d", n, lines)
	}
	return nil
}

// checkProcessOutputs runs every program once on in, each into a file of
// its own in dir, and checks their outputs against linefilter's
// (compareDigests). This also warms the page cache for the rounds.
func checkProcessOutputs(progs []processProg, in processInput, dir string) error {
	outs := map[string]string{}
	for _, p := range progs {
		outs[p.impl] = filepath.Join(dir, in.name+"."+p.impl+".out")
		if _, err := runProcess(p, in, outs[p.impl]); err != nil {
			return err
		}
	}
	for _, p := range progs {
		if p.impl == implLinefilter {
			continue
		}
		err := func() error {
			w, err := os.Open(outs[implLinefilter])
			if err != nil {
				return err
			}
			defer w.Close()
			g, err := os.Open(outs[p.impl])
			if err != nil {
				return err
			}
			defer g.Close()
			return compareDigests(w, g, p.rehash, in.lines)
		}()
		if err != nil {
			return fmt.Errorf("%s: %s disagrees with linefilter: %v", in.name, p.impl, err)
		}
	}
	for _, o := range outs {
		os.Remove(o)
	}
	return nil
}

// fmtGB writes a size in decimal GB, or MB below 0.1 GB.
func fmtGB(n float64) string {
	if n >= 1e8 {
		return fmt.Sprintf("%.2f GB", n/1e9)
	}
	return fmt.Sprintf("%.1f MB", n/1e6)
}

// fmtRate writes n bytes in ns nanoseconds as GB/s, or MB/s below
// 0.1 GB/s.
func fmtRate(n, ns float64) string {
	r := n / ns // bytes per ns: GB/s
	if r >= 0.1 {
		return fmt.Sprintf("%.2f GB/s", r)
	}
	return fmt.Sprintf("%.1f MB/s", r*1e3)
}

// processSections makes the tables of the whole-process rows from the raw
// lines of group gProcess: wall time and throughput, CPU time per GB, and
// peak memory, a line per input and a column per program, linefilter the
// base of the ratios; and under the first, the scaling from 1 worker to
// the most.
func processSections(h hdr, raw []byte) ([]section, error) {
	parse := func(unit string) ([]ratio.Sample, error) {
		s, err := ratio.ParseUnit(bytes.NewReader(raw), "impl", unit)
		if err != nil {
			return nil, err
		}
		var keep []ratio.Sample
		for _, x := range s {
			if in, ok := strings.CutPrefix(x.Input, "BenchmarkProcess/"); ok {
				x.Input = strings.TrimPrefix(in, "input=")
				keep = append(keep, x)
			}
		}
		return keep, nil
	}
	wall, err := parse("ns/op")
	if err != nil {
		return nil, err
	}
	if len(wall) == 0 {
		return nil, nil
	}
	cpu, err := parse("cpu-ns/op")
	if err != nil {
		return nil, err
	}
	rss, err := parse("peak-rss-KiB")
	if err != nil {
		return nil, err
	}
	floors, err := parse("floor-rss-KiB")
	if err != nil {
		return nil, err
	}
	inputs := map[string]processInput{}
	for _, in := range h.processInputs {
		inputs[in.name] = in
	}
	maxW := 1
	if len(h.workers) > 0 {
		maxW = slices.Max(h.workers)
	}
	// Columns: linefilter, then each command at each worker count.
	cols := []column{{implLinefilter, "linefilter (one goroutine)"}}
	for _, cmd := range []struct{ impl, head string }{{"digest", "digest --lines"}, {"rehash", "archive rehash"}} {
		for _, w := range h.workers {
			head := fmt.Sprintf("%s, %d worker", cmd.head, w)
			if w != 1 {
				head += "s"
			}
			cols = append(cols, column{fmt.Sprintf("%s-w%d", cmd.impl, w), head})
		}
	}
	head := []string{"input"}
	for _, c := range cols {
		head = append(head, c.head)
	}
	label := func(name string) string {
		if in, ok := inputs[name]; ok {
			return in.label()
		}
		return name
	}
	size := func(name string) float64 { return float64(inputs[name].bytes) }
	// table writes a row per input: cell(row of the library, the input's
	// size in bytes), "" where the library has no row.
	table := func(rows []ratio.Row, cell func(r ratio.Row, n float64) string) [][]string {
		var out [][]string
		for _, name := range uniqueInputs(rows) {
			line := []string{label(name)}
			for _, c := range cols {
				s := ""
				for _, r := range rows {
					if r.Input == name && r.Lib == c.lib {
						s = cell(r, size(name))
					}
				}
				line = append(line, s)
			}
			out = append(out, line)
		}
		return out
	}

	wallRows := ratio.Summarize(wall, implLinefilter)
	wallSec := section{
		title: "Whole processes: wall time",
		intro: fmt.Sprintf("`bbdigest digest --lines --workers N FILE` and `bbdigest archive rehash --workers N FILE` (the built binary; `--profile rfc8785` where the row says so, else the default, strict) against `linefilter < FILE` (bench/linefilter: jsontext's `Value.Canonicalize` and `crypto/sha256`, printing `sha256:<hex>` per line), at 1 and %d workers, each **a whole process**: started, run over the file (read from the page cache) and exited, its output written to a file on the same disk as the input (in the report's work directory, bench/out/report/process/ by default, truncated before each run), timed from outside, start to exit. Cells: median time over the rounds and the input's size ÷ that time; in brackets, linefilter's time ÷ this one's in the same round (median, range). Inputs: %s.", maxW, processInputList(h.processInputs)),
		head:  head,
		rows: table(wallRows, func(r ratio.Row, n float64) string {
			s := ratio.FormatNs(r.Median)
			if n > 0 {
				s += ", " + fmtRate(n, r.Median)
			}
			if r.N == 0 {
				return s
			}
			return s + fmt.Sprintf(" (%s as fast, %s–%s)", fmtX(1/r.Ratio), fmtRatio(1/r.Hi), fmtRatio(1/r.Lo))
		}),
		notes: []string{
			"`linefilter` is one goroutine by design: the simplest line filter a Go programmer would write with these libraries, and the baseline of `BenchmarkLinesProcess`. bbdigest at 1 worker canonicalizes and hashes on one goroutine; at more, on as many.",
			"Before the rounds, every program ran once on every input and the report checked its output against linefilter's, line by line: `digest --lines` wrote the same `sha256:<hex>` on every line, and `archive rehash` `{\"line\":N,\"digest\":…}` with that digest, every line accepted. So these rows double as a differential test of bbdigest against jsontext + crypto/sha256.",
		},
	}
	if len(h.workers) > 1 {
		w1, wn := "-w1", fmt.Sprintf("-w%d", maxW)
		for _, name := range uniqueInputs(wallRows) {
			var parts []string
			for _, cmd := range []struct{ impl, head string }{{"digest", "digest --lines"}, {"rehash", "archive rehash"}} {
				var pair []ratio.Sample
				for _, x := range wall {
					if x.Input == name && (x.Lib == cmd.impl+w1 || x.Lib == cmd.impl+wn) {
						pair = append(pair, x)
					}
				}
				for _, r := range ratio.Summarize(pair, cmd.impl+w1) {
					if r.Lib == cmd.impl+wn && r.N > 0 {
						parts = append(parts, fmt.Sprintf("%s %s (%s–%s)", cmd.head, fmtX(1/r.Ratio), fmtRatio(1/r.Hi), fmtRatio(1/r.Lo)))
					}
				}
			}
			if len(parts) > 0 {
				wallSec.notes = append(wallSec.notes, fmt.Sprintf("Scaling on %s, 1 worker's time ÷ %d workers' in the same round (median, range): %s.", name, maxW, strings.Join(parts, "; ")))
			}
		}
	}
	secs := []section{wallSec}

	if cpuRows := ratio.Summarize(cpu, implLinefilter); len(cpuRows) > 0 {
		secs = append(secs, section{
			title: "Whole processes: CPU time",
			intro: "The same runs, by the CPU time of the process: user + system time of the child (`os.ProcessState`), all its threads, the garbage collector's included. On a shared machine it moves less than the wall time. Cells: median CPU time over the rounds and CPU seconds per GB of input; in brackets, this CPU time ÷ linefilter's in the same round (median, range).",
			head:  head,
			rows: table(cpuRows, func(r ratio.Row, n float64) string {
				s := ratio.FormatNs(r.Median)
				if n > 0 {
					s += fmt.Sprintf(", %.2f s/GB", r.Median/n)
				}
				if r.N == 0 {
					return s
				}
				return s + fmt.Sprintf(" (%s linefilter's, %s–%s)", fmtX(r.Ratio), fmtRatio(r.Lo), fmtRatio(r.Hi))
			}),
		})
	}

	if len(rss) > 0 {
		// A run's peak is its own where it is above the floor of the same
		// run (the same name's nth line); at or under it, the program's
		// peak is at most the floor.
		type key struct {
			in, lib string
			round   int
		}
		floor := map[key]float64{}
		for _, x := range floors {
			floor[key{x.Input, x.Lib, x.Round}] = x.Ns
		}
		own, under := map[[2]string]float64{}, map[[2]string]float64{}
		for _, x := range rss {
			k := [2]string{x.Input, x.Lib}
			if f := floor[key{x.Input, x.Lib, x.Round}]; x.Ns > f {
				own[k] = max(own[k], x.Ns)
			} else {
				under[k] = max(under[k], f)
			}
		}
		rows := ratio.Summarize(rss, implLinefilter)
		secs = append(secs, section{
			title: "Whole processes: peak memory",
			intro: "The same runs: the largest resident set of the process (maximum RSS, from the kernel's rusage) over the rounds. Linux counts in a program's peak that of the process it was started from (Go starts programs with vfork, in the parent's memory until they exec), so before each run the report gives its free memory back and resets its own peak (`/proc/self/clear_refs`), and a figure at or under the report's peak during the run is not the program's own: where a program stayed under it in every round, the cell reads \"≤\" that peak.",
			head:  head,
			rows: table(rows, func(r ratio.Row, _ float64) string {
				k := [2]string{r.Input, r.Lib}
				if v, ok := own[k]; ok {
					return fmtBytes(v * 1024)
				}
				return "≤ " + fmtBytes(under[k]*1024)
			}),
		})
	}
	return secs, nil
}

// processInputList names the inputs of the whole-process rows and how
// they were made.
func processInputList(ins []processInput) string {
	var s []string
	for _, in := range ins {
		size := ""
		if in.bytes > 0 {
			size = " (" + fmtGB(float64(in.bytes)) + ")"
		}
		s = append(s, fmt.Sprintf("`%s`%s, %s", in.name, size, in.made))
	}
	return strings.Join(s, "; ")
}
