package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/bench/internal/ratio"
)

// hdr is what the report says about the run.
type hdr struct {
	command, date, commit, goVersion string
	cpu, cpuFlags, machine           string
	loadBefore, loadAfter            string // 1, 5, 15 minute load averages
	note                             string
	elapsed                          time.Duration
	rounds                           int
	benchtime                        time.Duration
	node, nodeNote                   string
	archiveBytes                     int64
	records                          int
	workers                          []int
	inputBytes                       [][2]string // input name, size in bytes
	processInputs                    []processInput
}

func header(c config, root string, elapsed time.Duration) hdr {
	h := hdr{
		command:   "bench/report.sh" + argsString(),
		date:      time.Now().UTC().Format("2006-01-02 15:04 MST"),
		elapsed:   elapsed,
		rounds:    c.rounds,
		benchtime: c.benchtime,
		note:      c.note,
		machine:   fmt.Sprintf("%s/%s, %d logical CPUs", runtime.GOOS, runtime.GOARCH, runtime.NumCPU()),
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		h.goVersion = strings.TrimSpace(string(out))
	} else {
		h.goVersion = runtime.Version()
	}
	if out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output(); err == nil {
		h.commit = strings.TrimSpace(string(out))
		// Changes outside the report's own output make the commit inexact.
		st, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--", ".", ":!bench/report/README.md", ":!bench/report/chart.svg", ":!bench/report/raw.txt").Output()
		if len(bytes.TrimSpace(st)) > 0 {
			h.commit += " with uncommitted changes"
		}
	} else {
		h.commit = "unknown (not a git checkout)"
	}
	h.loadAfter = loadAvg()
	h.cpu, h.cpuFlags = cpuInfo()
	return h
}

// noteLine is the header's note: the -note given, then the load averages
// before and after the run, which say whether the machine was quiet.
func (h hdr) noteLine() string {
	var parts []string
	if h.note != "" {
		parts = append(parts, strings.TrimRight(h.note, ". "))
	}
	if h.loadBefore != "" || h.loadAfter != "" {
		na := func(s string) string {
			if s == "" {
				return "unknown"
			}
			return s
		}
		parts = append(parts, fmt.Sprintf("load average (1, 5, 15 min) before the run %s, after it %s", na(h.loadBefore), na(h.loadAfter)))
	}
	return strings.Join(parts, "; ")
}

// argsString returns the command's arguments as a shell would need them.
func argsString() string {
	var b strings.Builder
	for _, a := range os.Args[1:] {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// chartSubtitle names the run under the chart's title.
func (r *report) chartSubtitle() string {
	cpu := strings.TrimSuffix(r.h.cpu, ", under a hypervisor")
	return fmt.Sprintf("%s; %s; %s; commit %s; %d rounds; written by bench/report.sh", cpu, r.h.goVersion, r.h.date, r.h.commit, r.h.rounds)
}

// cpuInfo describes the CPU from /proc/cpuinfo: model name, family and
// model, hypervisor, and the SIMD features the library's paths use.
func cpuInfo() (string, string) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH + " (no /proc/cpuinfo)", ""
	}
	fields := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" {
			break // the first processor only
		}
		k, v, ok := strings.Cut(line, ":")
		if ok {
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	cpu := fields["model name"]
	if cpu == "" {
		cpu = fields["Hardware"] + fields["CPU implementer"]
	}
	if f, m := fields["cpu family"], fields["model"]; f != "" {
		cpu += fmt.Sprintf(" (family %s, model %s)", f, m)
	}
	var flags []string
	have := map[string]bool{}
	for _, f := range strings.Fields(fields["flags"] + " " + fields["Features"]) {
		have[f] = true
	}
	if have["hypervisor"] {
		cpu += ", under a hypervisor"
	}
	for _, f := range []string{"sha_ni", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512_vbmi2", "sha2"} {
		if have[f] {
			flags = append(flags, f)
		}
	}
	return cpu, strings.Join(flags, ", ")
}

// report is everything the Markdown page and the chart show.
type report struct {
	h          hdr
	sections   []section
	chartTitle string
	chart      []chartGroup
}

type section struct {
	title, intro string
	head         []string
	rows         [][]string
	notes        []string
}

// column is one library of a table: the name in the benchmark and its
// heading.
type column struct{ lib, head string }

// pivot makes a table of rows, an input per line and a column per library:
// the median time and, beside the base's, the median per-round ratio and
// its range. With faster, the ratio is written as a speed-up: base time ÷
// library time.
func pivot(rows []ratio.Row, inputHead string, cols []column, label func(string) string, faster bool) ([]string, [][]string) {
	head := []string{inputHead}
	for _, c := range cols {
		head = append(head, c.head)
	}
	var inputs []string
	cell := map[[2]string]ratio.Row{}
	for _, r := range rows {
		if _, ok := cell[[2]string{r.Input, ""}]; !ok {
			inputs = append(inputs, r.Input)
			cell[[2]string{r.Input, ""}] = r
		}
		cell[[2]string{r.Input, r.Lib}] = r
	}
	var out [][]string
	for _, in := range inputs {
		line := []string{label(in)}
		for _, c := range cols {
			r, ok := cell[[2]string{in, c.lib}]
			switch {
			case !ok:
				line = append(line, "")
			case r.N == 0:
				line = append(line, ratio.FormatNs(r.Median))
			case faster:
				line = append(line, fmt.Sprintf("%s (%s as fast, %s–%s)", ratio.FormatNs(r.Median), fmtX(1/r.Ratio), fmtRatio(1/r.Hi), fmtRatio(1/r.Lo)))
			default:
				line = append(line, fmt.Sprintf("%s (%s, %s–%s)", ratio.FormatNs(r.Median), fmtX(r.Ratio), fmtRatio(r.Lo), fmtRatio(r.Hi)))
			}
		}
		out = append(out, line)
	}
	return head, out
}

func fmtRatio(x float64) string {
	switch {
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func fmtX(x float64) string { return fmtRatio(x) + "×" }

// buildReport summarises the raw output of every group.
func buildReport(h hdr, raw map[string]*bytes.Buffer) (*report, error) {
	rep := &report{h: h}
	sizes := map[string]string{}
	for _, s := range h.inputBytes {
		sizes[s[0]] = s[1]
	}
	inputLabel := func(in string) string {
		name := strings.TrimPrefix(in, "input=")
		if n, err := strconv.Atoi(sizes[name]); err == nil {
			return fmt.Sprintf("%s (%s)", name, fmtBytes(float64(n)))
		}
		return name
	}
	plain := func(in string) string {
		_, v, ok := strings.Cut(in, "=")
		if ok && !strings.Contains(v, "=") {
			return v
		}
		return in
	}
	// "input=lines-mixed-1M/mode=digest" -> "lines-mixed-1M, digest"
	values := func(in string) string {
		var vs []string
		for _, e := range strings.Split(in, "/") {
			_, v, _ := strings.Cut(e, "=")
			vs = append(vs, v)
		}
		return strings.Join(vs, ", ")
	}
	type spec struct {
		group, key, prefix, base string
		title, intro, inputHead  string
		cols                     []column
		label                    func(string) string
		faster                   bool
		notes                    []string
	}
	nodeNotes := []string{"`node` is Node.js " + h.node + " with the npm package `canonicalize` (fuzz/node's lockfile): UTF-8 decoding, `JSON.parse`, `canonicalize`, UTF-8 encoding, timed by `bench/report/canon.mjs` inside one process for at least the benchtime. `node-process` is **a whole process**: `node canon.mjs FILE` started, run once on the file and exited, timed from outside; most of it, on the small inputs all of it, is Node's start. Before timing, the report checks that Node's output has the SHA-256 of bbdigest's."}
	if h.nodeNote != "" {
		nodeNotes = []string{"Node rows skipped: " + h.nodeNote + "."}
	}
	specs := []spec{
		{gBench, "lib", "BenchmarkCanonicalize", "bbdigest",
			"Canonicalization", "JSON bytes in, RFC 8785 canonical bytes out (`BenchmarkCanonicalize`, inputs from `bench/corpus_test.go`). bbdigest is `canon.RFC8785` (strict: `canon.Strict`, on the inputs it accepts), warm, into a reused buffer.", "input",
			[]column{{"bbdigest", "bbdigest"}, {"bbdigest-strict", "bbdigest strict"}, {"jsontext", "jsontext"}, {"gowebpki", "gowebpki/jcs"}, {"encoding-json", "encoding/json round trip¹"}, {libNode, "Node canonicalize (in process)"}, {libNodeProcess, "Node canonicalize (**whole process**)"}},
			inputLabel, false,
			append([]string{"¹ `json.Unmarshal` into `any`, then `json.Marshal`: what a program without a JCS library might do. It is **not** RFC 8785-exact (it escapes `<`, `>`, `&`, U+2028 and U+2029 and orders names by UTF-8 bytes, not UTF-16 code units), so it is shown for its cost only."}, nodeNotes...)},
		{gBench, "lib", "BenchmarkDigest", "bbdigest",
			"Bytes to digest", "JSON bytes to the SHA-256 of their canonical form (`BenchmarkDigest`; bbdigest is `bbdigest.Digester`, strict profile). `sha256-only` hashes the input as it is: the floor, equal to the digest only for canonical input.", "input",
			[]column{{"bbdigest", "bbdigest"}, {"jsontext+sha256", "jsontext + crypto/sha256"}, {"gowebpki+sha256", "gowebpki + crypto/sha256"}, {"sha256-only", "crypto/sha256 alone"}},
			inputLabel, false, nil},
		{gBench, "lib", "BenchmarkAct", "bbdigest",
			"Act digest", "A tool call in each vendor's shape to its act digest (`BenchmarkAct`: bbdigest is `act.Parser.Digest`). `jsontext` only canonicalizes and hashes the call (less work than an act); `jsontext-act` computes the same act digest with go-json-experiment/json; `canon-floor` is the canonicalization inside bbdigest's act.", "shape",
			[]column{{"bbdigest", "bbdigest"}, {"jsontext", "jsontext + sha256 (no act)"}, {"jsontext-act", "act via go-json-experiment"}, {"canon-floor", "canon floor"}},
			plain, false, nil},
		{gBench, "lib", "BenchmarkRecords", "bbdigest",
			"Archive records", "1000 records of `bbdigest archive gen` (envelopes of 1–2 KB, with non-ASCII text and escapes in their strings), canonical (`archive-canonical`) or in mixed styles (`archive-mixed`), each digested on its own (`BenchmarkRecords`: bbdigest is a warm `canon.Canonicalizer` (strict) and `hashing.Sum`): time per 1000 records. On the canonical ones bbdigest's cost is its check of input already canonical, and SHA-256.", "input",
			[]column{{"bbdigest", "bbdigest"}, {"jsontext+sha256", "jsontext + crypto/sha256"}},
			plain, false, nil},
		{gBench, "impl", "BenchmarkBatchLarge", "serial",
			"Large records (JSON Lines)", "JSON Lines whose every record is longer than a `batch` block (256 KiB), under `canon.RFC8785`: 96 canonical documents of about 900 KB (`lines-canonical-900K`, 83 MiB) and 96 of about 1 MiB written on one line, not canonical (`lines-mixed-1M`, 96 MiB), answered with canonical forms (`canon`) or digests (`digest`) (`BenchmarkBatchLarge`, inputs from `bench/large_test.go`). `batch.Stream` with one worker, as `bbdigest canon --lines --workers 1` runs, against one loop over the lines with one reused Canonicalizer, as `--lines` ran before it used `batch` (0ff4852): ratio = batch's time ÷ the loop's; above 1 is a regression of the long-record path.", "input, mode",
			[]column{{"serial", "one loop (before batch)"}, {"batch-w1", "batch, 1 worker"}},
			values, false, nil},
		{gBench, "impl", "BenchmarkLinesLargeProcess", "base",
			"Large records, whole process", "`bbdigest canon|digest --profile rfc8785 --lines --workers 1 FILE > /dev/null` on the large-record archives above, the built binary timed as a whole process (`BenchmarkLinesLargeProcess`). With `-lines-base BBDIGEST`, the same command of that other build runs in the same rounds (without `--workers` if it has no such flag: 0ff4852 answered `--lines` on one goroutine), and the ratio is this build's time ÷ that build's.", "input, mode",
			[]column{{"base", "other build (`-lines-base`)"}, {"bbdigest-w1", "this build, 1 worker"}},
			values, false, nil},
		{gBench, "impl", "BenchmarkSum256", "bbdigest",
			"SHA-256 (`Sum256`)", "`hashing.Sum256` on the path chosen for this CPU against `crypto/sha256` and minio/sha256-simd (`bench`'s `BenchmarkSum256`).", "size",
			[]column{{"bbdigest", "bbdigest"}, {"stdlib", "crypto/sha256"}, {"minio", "minio/sha256-simd"}},
			plain, false, nil},
		{gHashing, "impl", "BenchmarkSum256", "stdlib",
			"SHA-256 paths", "Every path of `hashing.Sum256` this CPU has, forced, against `crypto/sha256` in the same round (`hashing`'s `BenchmarkSum256`); ratio = path's time ÷ crypto/sha256's.", "size",
			nil, plain, false, nil},
		{gHashing, "impl", "BenchmarkSumMany", "serial-stdlib",
			"`SumMany` kernels", "A batch of messages hashed by each `hashing.SumMany` kernel this CPU has, on one core, against `crypto/sha256` one message at a time (`hashing`'s `BenchmarkSumMany`): time per batch, and speed-up over serial.", "messages",
			nil, plain, true, nil},
		{gEnvelope, "lib", "BenchmarkParse", "canon+digest",
			"Envelope parse and verify", "`envelope.Parser.ParseInto` (parse, validate, digest) and the one-shot `envelope.Parse` (and the one allocation it adds, alone: `newOwned`), against canonicalizing and digesting the same bytes (`canon+digest`, the floor): ratio = time ÷ the floor's (`envelope`'s `BenchmarkParse`).", "input",
			[]column{{"envelope", "Parser.ParseInto"}, {"envelope-oneshot", "Parse"}, {"alloc", "Parse's one allocation alone"}, {"canon+digest", "canon + digest (floor)"}},
			plain, false, nil},
		{gGate, "commit", "BenchmarkAuthorize", "group",
			"Authorize", "`gate.Gate.Authorize` from 64 concurrent callers, each decision with a signed receipt made durable: group commit (one fsync for the receipts that wait together) against one fsync per receipt (`gate`'s `BenchmarkAuthorize`). Time per decision (wall clock ÷ decisions); the receipts go to a file under `bench/out/` on the checkout's disk.", "callers",
			[]column{{"group", "group commit"}, {"each", "fsync each"}},
			plain, false, nil},
		{gGate, "ledger", "BenchmarkAuthorize/authority=signed", "group",
			"Authorize, consuming a signed authority", "The same, each call carrying a principal's signed resolution (`bbdigest-signed-resolution/v1`: one Ed25519 verification per decision) that the bolt ledger consumes: the ledger's consumes group-committed across concurrent callers (one transaction and sync for those that wait together) against one transaction per consume (`BenchmarkAuthorize/authority=signed`). Receipts are group-committed in both.", "callers",
			[]column{{"group", "ledger group commit"}, {"each", "ledger transaction each"}},
			plain, false, nil},
		{gRehash, "workers", "BenchmarkRehash", "1",
			"Archive rehash", "", "archive", nil, nil, true, nil},
	}
	for _, s := range specs {
		rows, err := summarize(raw[s.group], s.key, s.prefix, s.base)
		if err != nil {
			return nil, err
		}
		if s.group == gGate {
			// Authorize's benchmarks name their variant by commit= or by
			// ledger=: each table keeps those of its key.
			rows = slices.DeleteFunc(rows, func(r ratio.Row) bool { return r.Lib == "" })
		}
		if len(rows) == 0 {
			continue
		}
		cols := s.cols
		if cols == nil { // every library, base first
			cols = []column{{s.base, s.base}}
			seen := map[string]bool{s.base: true}
			for _, r := range rows {
				if !seen[r.Lib] {
					seen[r.Lib] = true
					cols = append(cols, column{r.Lib, r.Lib})
				}
			}
		}
		sec := section{title: s.title, intro: s.intro, notes: s.notes}
		label := s.label
		if s.group == gRehash {
			for i := range cols {
				cols[i].head = cols[i].lib + " worker"
				if cols[i].lib != "1" {
					cols[i].head += "s"
				}
			}
			sec.intro = fmt.Sprintf("`bbdigest archive rehash --workers N FILE > /dev/null` on an archive from `bbdigest archive gen --records %d` (%s), the built binary timed as a whole process, at 1 and all %d workers.", h.records, fmtBytes(float64(h.archiveBytes)), runtime.NumCPU())
			label = func(string) string {
				return fmt.Sprintf("%d envelopes, %s", h.records, fmtBytes(float64(h.archiveBytes)))
			}
			var notes []string
			for _, r := range rows {
				notes = append(notes, fmt.Sprintf("%s worker(s): %.0f records/s, %s/s.", r.Lib, float64(h.records)/r.Median*1e9, fmtBytes(float64(h.archiveBytes)/r.Median*1e9)))
			}
			sec.notes = notes
		}
		if s.group == gEnvelope {
			if v, err := summarize(raw[s.group], s.key, "BenchmarkVerify", ""); err == nil && len(v) == 1 {
				var all []float64
				samples, _ := ratio.Parse(bytes.NewReader(raw[s.group].Bytes()), s.key)
				for _, x := range samples {
					if x.Input == "BenchmarkVerify" {
						all = append(all, x.Ns)
					}
				}
				slices.Sort(all)
				sec.notes = append(sec.notes, fmt.Sprintf("`envelope.Verify`, one authority (an option selection checked against the §6.4 envelope and its action, not yet canonical; `BenchmarkVerify`): %s median, %s–%s over the rounds.",
					ratio.FormatNs(v[0].Median), ratio.FormatNs(all[0]), ratio.FormatNs(all[len(all)-1])))
			}
		}
		if s.group == gGate {
			for _, r := range rows {
				sec.notes = append(sec.notes, fmt.Sprintf("%s: %.0f decisions/s (median).", cols[slices.IndexFunc(cols, func(c column) bool { return c.lib == r.Lib })].head, 1e9/r.Median))
			}
		}
		sec.head, sec.rows = pivot(rows, s.inputHead, cols, label, s.faster)
		rep.sections = append(rep.sections, sec)
		if s.prefix == "BenchmarkCanonicalize" {
			rep.chartTitle = "Canonicalization: time ÷ bbdigest's time, per round (median, range)"
			for _, in := range uniqueInputs(rows) {
				g := chartGroup{label: inputLabel(in)}
				for _, c := range cols {
					if c.lib == "bbdigest" || c.lib == "bbdigest-strict" || c.lib == libNodeProcess {
						continue
					}
					for _, r := range rows {
						if r.Input == in && r.Lib == c.lib && r.N > 0 {
							g.bars = append(g.bars, bar{lib: c.lib, ratio: r.Ratio, lo: r.Lo, hi: r.Hi})
						}
					}
				}
				rep.chart = append(rep.chart, g)
			}
		}
	}
	// The whole-process rows, after archive rehash's.
	if p := raw[gProcess]; p != nil {
		ps, err := processSections(h, p.Bytes())
		if err != nil {
			return nil, err
		}
		rep.sections = append(rep.sections, ps...)
	}
	return rep, nil
}

func uniqueInputs(rows []ratio.Row) []string {
	var ins []string
	for _, r := range rows {
		if len(ins) == 0 || ins[len(ins)-1] != r.Input {
			ins = append(ins, r.Input)
		}
	}
	return ins
}

func fmtBytes(n float64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", n/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f B", n)
}

// writeMarkdown writes the report page.
func writeMarkdown(w io.Writer, rep *report) {
	h := rep.h
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# bbdigest benchmark report\n\n")
	p("Generated by `%s` (in the repository's root; about %s here). Every figure below comes from that run; the raw `go test -bench` output is in [raw.txt](raw.txt).\n\n", h.command, h.elapsed.Round(time.Second))
	p("| | |\n| --- | --- |\n")
	p("| CPU | %s |\n", h.cpu)
	if h.cpuFlags != "" {
		p("| CPU features used by bbdigest's paths | %s |\n", h.cpuFlags)
	}
	p("| machine | %s |\n", h.machine)
	if n := h.noteLine(); n != "" {
		p("| note | %s |\n", n)
	}
	p("| Go | %s |\n", h.goVersion)
	if h.node != "" {
		p("| Node.js | %s |\n", h.node)
	} else {
		p("| Node.js | not run: %s |\n", h.nodeNote)
	}
	p("| date | %s |\n", h.date)
	p("| commit | `%s` |\n", h.commit)
	p("| rounds | %d, each benchmark at `-test.benchtime %s` |\n", h.rounds, h.benchtime)
	p("\n")
	p("Each round runs every library once on every input, back to back; the ratio of a library to the base (bbdigest unless the table says otherwise) is taken within each round and the table gives its median over the rounds, with its range after the comma. Times are medians over the rounds. On a shared or noisy machine absolute times move by 10–30%% from round to round, so compare ratios, not times.\n\n")
	if len(rep.chart) > 0 {
		p("![%s](chart.svg)\n\n", rep.chartTitle)
	}
	for _, s := range rep.sections {
		p("## %s\n\n", s.title)
		if s.intro != "" {
			p("%s\n\n", s.intro)
		}
		p("| %s |\n", strings.Join(s.head, " | "))
		p("|%s\n", strings.Repeat(" --- |", len(s.head)))
		for _, r := range s.rows {
			p("| %s |\n", strings.Join(r, " | "))
		}
		p("\n")
		for _, n := range s.notes {
			p("%s\n\n", n)
		}
	}
	p("## Reproduce\n\n```sh\n%s\n```\n\n", h.command)
	p("`bench/report.sh -h` lists the flags (`-rounds`, `-benchtime`, `-records`, `-process-records`, `-large-records`, `-node`, `-lines-base`, `-note`, `-out`, `-work`). It builds the test binaries of `bench/`, `hashing`, `envelope` and `gate`, the `bbdigest` command and `linefilter` (bench/linefilter) once, into `bench/out/report/` with the inputs, installs fuzz/node's `canonicalize` if Node is there and it is not (`npm ci`), checks the whole-process programs' outputs against each other, and rewrites this page, [chart.svg](chart.svg) and [raw.txt](raw.txt). Without Node the Node rows are left out and the page says why. Run it on a quiet machine and say so with `-note`: the note line gives the load average before and after the run.")
	var ins []string
	if len(h.inputBytes) > 0 {
		ins = append(ins, inputList(h.inputBytes))
	}
	if len(h.processInputs) > 0 {
		ins = append(ins, "whole processes: "+processInputList(h.processInputs))
	}
	if len(ins) > 0 {
		p(" Inputs: %s.", strings.Join(ins, "; "))
	}
	p("\n")
}

func inputList(in [][2]string) string {
	var s []string
	for _, x := range in {
		n, _ := strconv.Atoi(x[1])
		s = append(s, fmt.Sprintf("`%s` %s", x[0], fmtBytes(float64(n))))
	}
	return strings.Join(s, ", ")
}
