// Command report regenerates the benchmark report in bench/report: a
// Markdown page (README.md) and a chart (chart.svg) comparing bbdigest with
// the libraries the project measures itself against, on this machine.
//
//	bench/report.sh [-rounds N] [-benchtime D] [-records N] [-process-records N] [-large-records N] [-lines-base BBDIGEST]
//
// (or `go run ./report` in bench/). It builds the test binaries once (bench,
// hashing, envelope, gate), the bbdigest command and bench/linefilter,
// writes the inputs of bench/corpus_test.go to files for Node, generates
// the archives, and then runs -rounds rounds. Each round runs every
// benchmark once, every library of an input back to back, plus Node's
// canonicalize (a whole process per input, and a loop inside one), `bbdigest
// archive rehash` at 1 and all workers, and the whole-process rows (see
// process.go): `bbdigest digest --lines` and `bbdigest archive rehash` at 1
// and all workers against linefilter, on an archive of -process-records
// canonical envelopes, one of the default mix, and the large-record input
// of bench/large_test.go (-large-records lines), output to a file,
// wall and CPU time, after a check that all of them give the same digest
// on every line. The header's note gives the load average before and after
// the run. The large-record
// rows (BenchmarkBatchLarge, BenchmarkLinesLargeProcess) hold batch's
// long-record path to the one loop over the lines that --lines was before
// it ran on batch, and, with -lines-base, the command to another build of
// it (0ff4852, say). Ratios between
// libraries are taken within each round (package bench/internal/ratio, as
// bench/ratios does) and summarised by their median and range.
//
// It takes minutes, so CI never runs it; its writers are tested by
// report_test.go.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bbdigest/bbdigest/bench/internal/ratio"
	"github.com/bbdigest/bbdigest/canon"
)

type config struct {
	rounds    int
	benchtime time.Duration
	records   int
	out       string
	work      string
	node      string
	note      string
	linesBase string
	// The whole-process rows: records of each `archive gen` input, lines
	// of each large-record input.
	processRecords, largeRecords int
}

func main() {
	var c config
	flag.IntVar(&c.rounds, "rounds", 10, "rounds: each runs every library once per input")
	flag.DurationVar(&c.benchtime, "benchtime", 100*time.Millisecond, "-test.benchtime of each benchmark in a round, and Node's in-script loop")
	flag.StringVar(&c.note, "note", "", "a remark on the machine for the report's header (say, that it is shared)")
	flag.IntVar(&c.records, "records", 50000, "records of the generated archive that archive rehash reads (the Archive rehash table)")
	flag.StringVar(&c.out, "out", "report", "directory the report is written to")
	flag.StringVar(&c.work, "work", "out/report", "directory for binaries, inputs and raw output (not committed)")
	flag.StringVar(&c.node, "node", "node", "the Node.js command; the Node rows are skipped when it is missing")
	flag.StringVar(&c.linesBase, "lines-base", "", "a bbdigest `binary` of another build, which the whole-process large-record rows also run, in the same rounds, to compare with")
	flag.IntVar(&c.processRecords, "process-records", defaultProcessRecords, "records of each archive gen input (--canonical, and the default mix) of the whole-process rows: digest --lines and archive rehash against linefilter")
	flag.IntVar(&c.largeRecords, "large-records", 96, "lines of the large-record input of the whole-process rows (canonical documents of ~900 KB, bench/large_test.go)")
	flag.Parse()
	if err := run(c, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

// groups of benchmark output, each appended to over the rounds.
const (
	gBench    = "bench"    // bench/: Canonicalize, Digest, Act, Sum256 (+ Node lines)
	gHashing  = "hashing"  // hashing: Sum256 per path, SumMany
	gEnvelope = "envelope" // envelope: Parse, Verify
	gGate     = "gate"     // gate: Authorize
	gRehash   = "rehash"   // archive rehash (lines written here)
	gProcess  = "process"  // whole processes against linefilter (lines written here)
)

var groupOrder = []string{gBench, gHashing, gEnvelope, gGate, gRehash, gProcess}

// defaultProcessRecords is -process-records' default: 200000 records, about
// 0.28 GB per archive, which keeps the default report near 8 minutes on 2
// cores. Issue 28's case, 400000 (0.56 GB), nearly doubles the archives'
// share of the whole-process rounds (linefilter alone takes some 3 s per
// 0.56 GB) and brings it to about 9.5; its figures per GB differ only by
// the start of the processes, a few ms.
const defaultProcessRecords = 200000

type binary struct {
	group, pkg, bench string // bench: the -test.bench regexp
}

var binaries = []binary{
	{gBench, ".", `^(BenchmarkCanonicalize|BenchmarkDigest|BenchmarkAct|BenchmarkRecords|BenchmarkSum256|BenchmarkBatchLarge|BenchmarkLinesLargeProcess)$`},
	{gHashing, "hashing", `^(BenchmarkSum256|BenchmarkSumMany)$`},
	{gEnvelope, "envelope", `^(BenchmarkParse|BenchmarkVerify)$`},
	{gGate, "gate", `^BenchmarkAuthorize$`},
}

func run(c config, log io.Writer) error {
	start := time.Now()
	loadBefore := loadAvg()
	if c.processRecords < 1 || c.largeRecords < 1 {
		return fmt.Errorf("-process-records %d, -large-records %d: want at least 1 each", c.processRecords, c.largeRecords)
	}
	benchDir, err := os.Getwd()
	if err != nil {
		return err
	}
	if mod, err := os.ReadFile("go.mod"); err != nil || !bytes.Contains(mod, []byte("module github.com/bbdigest/bbdigest/bench\n")) {
		return errors.New("run it in bench/ (bench/report.sh does)")
	}
	root := filepath.Dir(benchDir)
	work, err := filepath.Abs(c.work)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(work, "corpus"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	step := func(format string, a ...any) {
		fmt.Fprintf(log, "[%s] %s\n", time.Since(start).Round(time.Second), fmt.Sprintf(format, a...))
	}

	// Build once.
	step("building the test binaries and bbdigest")
	bin := map[string]string{}
	for _, b := range binaries {
		exe := filepath.Join(work, b.group+".test")
		dir := root
		if b.group == gBench {
			dir = benchDir
		}
		pkg := "./" + b.pkg
		if b.pkg == "." {
			pkg = "."
		}
		if err := command(dir, nil, nil, "go", "test", "-c", "-o", exe, pkg); err != nil {
			return err
		}
		bin[b.group] = exe
	}
	bbdigest := filepath.Join(work, "bbdigest")
	if err := command(root, nil, nil, "go", "build", "-o", bbdigest, "./cmd/bbdigest"); err != nil {
		return err
	}
	linefilter := filepath.Join(work, "linefilter")
	if err := command(benchDir, nil, nil, "go", "build", "-o", linefilter, "./linefilter"); err != nil {
		return err
	}
	var benchArgs []string // more flags of the bench binary
	if c.linesBase != "" {
		base, err := filepath.Abs(c.linesBase)
		if err != nil {
			return err
		}
		if _, err := os.Stat(base); err != nil {
			return fmt.Errorf("-lines-base: %v", err)
		}
		benchArgs = append(benchArgs, "-lines.base", base)
	}

	// The inputs, as files.
	corpusDir := filepath.Join(work, "corpus")
	if err := command(benchDir, nil, nil, bin[gBench], "-test.run", "^TestWriteCorpus$", "-corpus.dir", corpusDir); err != nil {
		return err
	}
	inputs, err := corpusFiles(corpusDir)
	if err != nil {
		return err
	}

	// Node, if it is there.
	nodeProject := filepath.Join(root, "fuzz", "node")
	nodeScript := filepath.Join(benchDir, "report", "canon.mjs")
	nodeNote := ""
	nodeVersion, err := nodeReady(c.node, nodeProject)
	if err != nil {
		nodeNote = err.Error()
		step("Node rows skipped: %s", nodeNote)
	} else {
		step("Node %s", nodeVersion)
		// Check Node's output against bbdigest's before timing it.
		for _, in := range inputs {
			want, err := canonDigest(in.path)
			if err != nil {
				return err
			}
			_, _, got, err := runNode(c.node, nodeScript, nodeProject, in.path, 0)
			if err != nil {
				return err
			}
			if got != want {
				return fmt.Errorf("node canonicalize disagrees with bbdigest on %s: sha256 %s, want %s", in.name, got, want)
			}
		}
	}

	// The archives: the one archive rehash reads, and the inputs of the
	// whole-process rows, made side by side.
	step("generating the archives")
	archive := filepath.Join(work, "archive.jsonl")
	pr := strconv.Itoa(c.processRecords)
	procIn := []processInput{
		{name: "archive-canonical", path: filepath.Join(work, "archive-canonical-"+pr+".jsonl"),
			made: fmt.Sprintf("`bbdigest archive gen --records %d --canonical` (envelopes of 1–2 KB, every line canonical)", c.processRecords)},
		{name: "archive-mixed", path: filepath.Join(work, "archive-mixed-"+pr+".jsonl"),
			made: fmt.Sprintf("`bbdigest archive gen --records %d` (the same kind of envelopes, a third canonical, a third compact with members shuffled, some with \\u escapes, a third with spaces)", c.processRecords)},
		{name: "lines-canonical-900K", path: filepath.Join(work, "large", "lines-canonical-900K.jsonl"), profile: "rfc8785",
			made: fmt.Sprintf("%d canonical documents of about 900 KB, one per line, the large-record input of issue 28's item 1 and of `BenchmarkBatchLarge` (bench/large_test.go; floats, so `--profile rfc8785`)", c.largeRecords)},
	}
	if err := os.MkdirAll(filepath.Join(work, "large"), 0o755); err != nil {
		return err
	}
	gen := func(path string, args ...string) func() error {
		return func() error {
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			err = command(root, nil, f, bbdigest, append([]string{"archive", "gen"}, args...)...)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
	}
	if err := parallel(
		gen(archive, "--records", strconv.Itoa(c.records)),
		gen(procIn[0].path, "--records", pr, "--canonical"),
		gen(procIn[1].path, "--records", pr),
		func() error {
			return command(benchDir, nil, nil, bin[gBench], "-test.run", "^TestWriteLargeArchives$", "-large.dir", filepath.Join(work, "large"), "-large.records", strconv.Itoa(c.largeRecords))
		},
	); err != nil {
		return err
	}
	archiveInfo, err := os.Stat(archive)
	if err != nil {
		return err
	}
	for i := range procIn {
		st, err := os.Stat(procIn[i].path)
		if err != nil {
			return err
		}
		procIn[i].bytes = st.Size()
		if procIn[i].lines, err = countLines(procIn[i].path); err != nil {
			return err
		}
	}
	workers := []int{1, runtime.NumCPU()}
	if workers[1] == 1 {
		workers = workers[:1]
	}

	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()

	// The whole-process rows' programs, checked against each other.
	progs := processProgs(bbdigest, linefilter, workers)
	procDir := filepath.Join(work, "process")
	if err := os.MkdirAll(procDir, 0o755); err != nil {
		return err
	}
	for _, in := range procIn {
		step("checking digest --lines and archive rehash against linefilter on %s", in.name)
		if err := checkProcessOutputs(progs, in, procDir); err != nil {
			return err
		}
	}

	// The rounds.
	raw := map[string]*bytes.Buffer{}
	for _, g := range groupOrder {
		raw[g] = new(bytes.Buffer)
	}
	bt := c.benchtime.String()
	fsyncDir := filepath.Join(work, "fsync")
	if err := os.MkdirAll(fsyncDir, 0o755); err != nil {
		return err
	}
	for r := 1; r <= c.rounds; r++ {
		for _, b := range binaries {
			step("round %d/%d: %s", r, c.rounds, b.group)
			dir := filepath.Join(root, b.pkg) // testdata is read from the package's directory
			if b.group == gBench {
				dir = benchDir
			}
			env := []string{"BBDIGEST_FSYNC_DIR=" + fsyncDir}
			args := []string{"-test.run", "^$", "-test.bench", b.bench, "-test.benchtime", bt}
			if b.group == gBench {
				args = append(args, benchArgs...)
			}
			if err := command(dir, env, raw[b.group], bin[b.group], args...); err != nil {
				return err
			}
		}
		if nodeNote == "" {
			step("round %d/%d: node", r, c.rounds)
			for _, in := range inputs {
				if !in.timed {
					continue
				}
				t0 := time.Now()
				if _, _, _, err := runNode(c.node, nodeScript, nodeProject, in.path, 0); err != nil {
					return err
				}
				wall := time.Since(t0)
				n, perOp, _, err := runNode(c.node, nodeScript, nodeProject, in.path, c.benchtime)
				if err != nil {
					return err
				}
				fmt.Fprintf(raw[gBench], "BenchmarkCanonicalize/input=%s/lib=%s 1 %d ns/op\n", in.name, libNodeProcess, wall.Nanoseconds())
				fmt.Fprintf(raw[gBench], "BenchmarkCanonicalize/input=%s/lib=%s %d %.1f ns/op\n", in.name, libNode, n, perOp)
			}
		}
		step("round %d/%d: archive rehash", r, c.rounds)
		for _, w := range workers {
			t0 := time.Now()
			if err := command(root, nil, devNull, bbdigest, "archive", "rehash", "--workers", strconv.Itoa(w), archive); err != nil {
				return err
			}
			fmt.Fprintf(raw[gRehash], "BenchmarkRehash/records=%d/workers=%d 1 %d ns/op\n", c.records, w, time.Since(t0).Nanoseconds())
		}
		step("round %d/%d: whole processes against linefilter", r, c.rounds)
		for _, in := range procIn {
			for _, p := range progs {
				m, err := runProcess(p, in, filepath.Join(procDir, p.impl+".out"))
				if err != nil {
					return err
				}
				raw[gProcess].WriteString(processLine(in, p.impl, m))
			}
		}
	}

	// The raw output, kept beside the report.
	var all bytes.Buffer
	for _, g := range groupOrder {
		fmt.Fprintf(&all, "# group %s\n", g)
		all.Write(raw[g].Bytes())
	}
	if err := os.WriteFile(filepath.Join(c.out, "raw.txt"), all.Bytes(), 0o644); err != nil {
		return err
	}

	h := header(c, root, time.Since(start))
	h.loadBefore = loadBefore
	h.processInputs = procIn
	h.node, h.nodeNote = nodeVersion, nodeNote
	h.archiveBytes, h.records, h.workers = archiveInfo.Size(), c.records, workers
	for _, in := range inputs {
		h.inputBytes = append(h.inputBytes, [2]string{in.name, strconv.Itoa(in.size)})
	}
	rep, err := buildReport(h, raw)
	if err != nil {
		return err
	}
	var md, svg bytes.Buffer
	if err := writeChart(&svg, rep.chartTitle, rep.chartSubtitle(), rep.chart); err != nil {
		return err
	}
	writeMarkdown(&md, rep)
	if err := os.WriteFile(filepath.Join(c.out, "chart.svg"), svg.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.out, "README.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	step("wrote %s/README.md, chart.svg and raw.txt", c.out)
	return nil
}

// parallel runs the functions side by side and returns their errors.
func parallel(fs ...func() error) error {
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Go(func() { errs[i] = f() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// loadAvg returns the 1, 5 and 15 minute load averages, "" where
// /proc/loadavg is not there.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}

// Library names of the Node rows.
const (
	libNode        = "node"         // in-script loop: JSON.parse + canonicalize, bytes to bytes
	libNodeProcess = "node-process" // the whole process, start included, one canonicalization
)

type corpusFile struct {
	name, path string
	size       int
	timed      bool // BenchmarkCanonicalize measures it
}

func corpusFiles(dir string) ([]corpusFile, error) {
	// In bench/corpus_test.go's order.
	names := []string{"envelope-pretty", "envelope-canonical", "mixed-1M", "canonical-1M", "doubles-100k", "strict-1M", "canonical-ints", "canonical-envelopes-1M"}
	var fs []corpusFile
	for _, n := range names {
		p := filepath.Join(dir, n+".json")
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("corpus: %v (has bench/corpus_test.go renamed an input?)", err)
		}
		fs = append(fs, corpusFile{n, p, int(st.Size()), n != "envelope-canonical"})
	}
	return fs, nil
}

func canonDigest(path string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	out, err := canon.Canonicalize(src, canon.RFC8785)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(out)
	return hex.EncodeToString(sum[:]), nil
}

// nodeReady returns Node's version, or why the Node rows cannot run.
func nodeReady(node, project string) (string, error) {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("no Node.js (%q: %v)", node, err)
	}
	v := strings.TrimSpace(string(out))
	if _, err := os.Stat(filepath.Join(project, "node_modules", "canonicalize", "package.json")); err != nil {
		if _, err := exec.LookPath("npm"); err != nil {
			return "", fmt.Errorf("Node %s but no npm to install canonicalize (npm ci --prefix fuzz/node)", v)
		}
		if err := command(project, nil, nil, "npm", "ci", "--prefix", project); err != nil {
			return "", fmt.Errorf("npm ci --prefix fuzz/node: %v", err)
		}
	}
	return v, nil
}

// runNode runs canon.mjs on file: its iterations, ns per iteration (0 for
// ms 0) and the SHA-256 of its output.
func runNode(node, script, project, file string, d time.Duration) (n int, perOp float64, sum string, err error) {
	cmd := exec.Command(node, script, project, file, strconv.FormatInt(d.Milliseconds(), 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, "", fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return 0, 0, "", fmt.Errorf("node printed %q", out)
	}
	if n, err = strconv.Atoi(f[0]); err == nil {
		perOp, err = strconv.ParseFloat(f[1], 64)
	}
	return n, perOp, f[2], err
}

// command runs name in dir with env added, its stdout to out (nil:
// discarded, but shown with the error when it fails).
func command(dir string, env []string, out io.Writer, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var stdout bytes.Buffer
	if out == nil {
		cmd.Stdout = &stdout
	} else {
		cmd.Stdout = out
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s (in %s): %v\n%s%s", strings.Join(cmd.Args, " "), dir, err, tail(stdout.Bytes()), tail(stderr.Bytes()))
	}
	return nil
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}

// summarize parses one group's output with key, keeps the benchmarks whose
// name starts with prefix, and summarises them against base.
func summarize(raw *bytes.Buffer, key, prefix, base string) ([]ratio.Row, error) {
	s, err := ratio.Parse(bytes.NewReader(raw.Bytes()), key)
	if err != nil {
		return nil, err
	}
	var keep []ratio.Sample
	for _, x := range s {
		if x.Input == prefix || strings.HasPrefix(x.Input, prefix+"/") {
			x.Input = strings.TrimPrefix(strings.TrimPrefix(x.Input, prefix), "/")
			keep = append(keep, x)
		}
	}
	return ratio.Summarize(keep, base), nil
}
