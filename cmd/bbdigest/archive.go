package main

// archive is "bbdigest archive rehash|verify|join": the command line over
// package archive, which answers every line of JSON Lines archives with
// one JSON result line, on every core. This file holds the flags, the
// diagnostics, the choice of the progress display (--progress), the
// summary on stderr and --summary FILE; internal/progress draws the
// progress, and archive_interrupt.go stops a run on Ctrl-C and says how to
// go on.

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/archive"
	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/diag"
	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/progress"
)

// archiveHelp is the help of archive and its subcommands (help/archive.txt).
var archiveHelp = helpFile("archive")

// exitCoverage is the exit code of archive join when the summaries do not
// cover the input exactly once, or one is incomplete.
const exitCoverage = 3

// jobIndexEnv is the variable in which a Kubernetes Indexed Job gives
// each pod its completion index (--shards).
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// resumeSuffix names the sidecar of --out FILE, FILE.resume, as package
// archive writes it.
const resumeSuffix = ".resume"

// progressJSONEvery is how often --progress json writes a line (a
// variable for the tests).
var progressJSONEvery = time.Second

// progressMode resolves --progress: auto is bar on a terminal, else off.
func progressMode(flag string, stderr io.Writer) (progress.Mode, bool) {
	switch flag {
	case "auto":
		if isTerminal(stderr) {
			return progress.Bar, true
		}
		return progress.Off, true
	case "bar", "json", "off":
		return progress.Mode(flag), true
	}
	return "", false
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// archiveRun runs "bbdigest archive rehash|verify [FLAGS] [FILE...|-]".
func (c *cli) archiveRun(sub string, args []string) int {
	fs := c.flagSet("archive " + sub)
	profile := fs.String("profile", "strict", "")
	workers := new(workersFlag) // 1..maxWorkers, as for --lines; 0 (unset): one per core
	fs.Var(workers, "workers", "")
	jsonSum := fs.Bool("json", false, "")
	maxRecord := fs.Int("max-record", 0, "")
	out := fs.String("out", "", "")
	resume := fs.Bool("resume", false, "")
	shard := fs.String("shard", "", "")
	shards := fs.Int64("shards", 0, "")
	summary := fs.String("summary", "", "")
	progressFlag := fs.String("progress", "auto", "")
	operands, code := c.parse(fs, args, -1)
	if code >= 0 {
		return code
	}
	p, ok := c.profile(*profile)
	if !ok {
		return exitUsage
	}
	// A flag given with an empty value (--out=, --summary "") is refused,
	// not taken as absent: the run would otherwise answer on stdout, or
	// write no summary, where one was asked for.
	given := gnuflag.Given(fs)
	for _, name := range []string{"out", "summary"} {
		if v := fs.Lookup(name).Value.String(); given[name] && (v == "" || name == "out" && v == "-") {
			return c.usageError(fs.Name(), "--"+name+" needs a file name; without --"+name+" "+map[string]string{
				"out":     "the results go to stdout",
				"summary": "the summary goes to stderr",
			}[name])
		}
	}
	bound := p.MaxSize()
	if given["max-record"] {
		if *maxRecord < 1 || *maxRecord > canon.MaxSizeLimit {
			return c.usageError(fs.Name(), "--max-record must be within 1.."+strconv.Itoa(canon.MaxSizeLimit))
		}
		bound = min(bound, *maxRecord)
	}
	mode, ok := progressMode(*progressFlag, c.stderr)
	if !ok {
		return c.usageError(fs.Name(), "--progress takes auto (the default), bar, json or off, not "+quote(*progressFlag))
	}
	switch {
	case *resume && *out == "":
		return c.usageError(fs.Name(), "--resume needs --out FILE")
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	sh, code := c.shardFlags(fs.Name(), *shard, *shards, operands)
	if code >= 0 {
		return code
	}
	if *summary == "-" || *summary != "" && *summary == *out {
		return c.usageError(fs.Name(), "--summary needs a file name of its own")
	}
	inputs := make([]archive.Input, len(operands))
	for i, name := range operands {
		switch {
		case name == "-":
			inputs[i] = archive.Reader(name, c.stdin)
		case c.files != nil:
			inputs[i] = archive.FileFS(c.files, name)
		default:
			inputs[i] = archive.File(name)
		}
	}
	prog := progress.New(mode, c.stderr, progressJSONEvery)
	// The hashes of the input and the output are read only by --json,
	// --summary and --out (which needs them, and makes archive hash them).
	unread := !*jsonSum && *summary == ""
	opts := archive.Options{Profile: p, Workers: int(*workers), MaxRecord: bound, Output: c.stdout,
		OutFile: *out, Resume: *resume, Shard: sh, Progress: prog.Progress(),
		NoInputSHA256: unread, NoOutputSHA256: unread}
	ctx := context.Background()
	if *out != "" {
		// A run whose output --resume can continue stops on Ctrl-C with
		// its output in order, and says how to go on (interrupted).
		var stop context.CancelFunc
		ctx, stop = interruptible()
		defer stop()
	}
	run := archive.Rehash
	if sub == "verify" {
		run = archive.Verify
	}
	sum, err := run(ctx, inputs, opts)
	prog.End()
	code = c.archiveFailure(fs.Name(), *out, err)
	if sum == nil {
		return code
	}
	if code == exitOK && sum.Failed > 0 {
		code = exitRejected
	}
	if *jsonSum {
		b, _ := sum.MarshalJSON()
		c.stderr.Write(append(b, '\n'))
	} else {
		c.stderr.Write([]byte("bbdigest: summary: " + sum.String() + "\n"))
	}
	if *summary != "" {
		if err := sum.WriteFile(*summary); err != nil {
			c.errorf("%s: %s", fileField(*summary), ioMessage(err))
			code = exitUsage
		}
	}
	if ie, ok := errors.AsType[*archive.InterruptedError](err); ok && code == exitInterrupted {
		// FILE and its sidecar are synced: --resume goes on from here.
		c.interrupted(fs, sub, args, *out, ie.Results, operands)
	}
	return code
}

// archiveFailure reports the error of a run of package archive over the
// command line of the flag set called cmd, and returns the exit code:
// exitOK for none.
func (c *cli) archiveFailure(cmd, out string, err error) int {
	if err == nil {
		return exitOK
	}
	if _, ok := errors.AsType[*archive.InterruptedError](err); ok {
		return exitInterrupted
	}
	if errors.Is(err, archive.ErrOutFileIsInput) {
		return c.usageError(cmd, "--out "+quote(out)+" is also an input")
	}
	if e, ok := errors.AsType[*archive.ResumeError](err); ok {
		c.errorf("%s: %s", fileField(e.File), e.Reason)
		c.hintf("--resume continues an output of the same command, flags and inputs, with its " + resumeSuffix + " file; remove both to start over")
		return exitUsage
	}
	if e, ok := errors.AsType[*archive.WriteError](err); ok {
		c.errorf("%s", diag.WriteMessage(e.Err))
		return exitUsage
	}
	if e, ok := errors.AsType[*archive.FileError](err); ok {
		c.ioFailure(e.Name, e.Err)
		return exitUsage
	}
	c.errorf("%v", err) // the flags never make invalid Options
	return exitUsage
}

// shardFlags resolves --shard and --shards into the shard of the run over
// inputs. It returns -1, or the exit code of a usage error it reported.
func (c *cli) shardFlags(cmd, shard string, shards int64, inputs []string) (archive.Shard, int) {
	var sh archive.Shard
	switch {
	case shard != "" && shards != 0:
		return sh, c.usageError(cmd, "give --shard I/N, or --shards N with $"+jobIndexEnv+", not both")
	case shard != "":
		is, ns, ok := strings.Cut(shard, "/")
		i, err1 := strconv.ParseInt(is, 10, 64)
		n, err2 := strconv.ParseInt(ns, 10, 64)
		if !ok || err1 != nil || err2 != nil || i < 0 || n < 1 || i >= n {
			return sh, c.usageError(cmd, "--shard must be I/N with 0 <= I < N, as 3/8, not "+quote(shard))
		}
		sh = archive.Shard{Index: i, Count: n}
	case shards < 0:
		return sh, c.usageError(cmd, "--shards must be 1 or more")
	case shards > 0:
		v, set := os.LookupEnv(jobIndexEnv)
		if !set {
			return sh, c.usageError(cmd, "--shards N takes the shard's index from $"+jobIndexEnv+" (set in each pod of a Kubernetes Indexed Job), which is not set")
		}
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil || i < 0 || i >= shards {
			return sh, c.usageError(cmd, "$"+jobIndexEnv+" is "+quote(v)+", not an index from 0 to "+strconv.FormatInt(shards-1, 10))
		}
		sh = archive.Shard{Index: i, Count: shards}
	}
	if sh.Count > 0 && (len(inputs) != 1 || inputs[0] == "-") {
		return sh, c.usageError(cmd, "a shard is a share of one FILE's size: give exactly one FILE, not stdin")
	}
	return sh, -1
}

// archiveJoin runs "bbdigest archive join SUMMARY...": it checks that the
// --summary files of the shards of one run cover its input exactly once,
// in order, all complete, and prints their combined summary.
func (c *cli) archiveJoin(args []string) int {
	fs := c.flagSet("archive join")
	paths, code := c.parse(fs, args, -1)
	if code >= 0 {
		return code
	}
	if len(paths) == 0 {
		return c.usageError(fs.Name(), "no SUMMARY given")
	}
	var sums []*archive.Summary
	for _, p := range paths {
		s, err := archive.ReadSummary(p)
		if err != nil {
			if e, ok := errors.AsType[*archive.FileError](err); ok {
				err = e.Err
			}
			c.errorf("%s: %s", fileField(p), ioMessage(err))
			return exitUsage
		}
		sums = append(sums, s)
	}
	total, err := archive.Join(sums)
	if err != nil {
		if e, ok := errors.AsType[*archive.CoverageError](err); ok {
			for _, p := range e.Problems {
				c.errorf("%s", p)
			}
		} else {
			c.errorf("%v", err) // Join reports only coverage
		}
		return exitCoverage
	}
	b, _ := total.MarshalJSON()
	if code := c.write(append(b, '\n')); code != exitOK {
		return code
	}
	if total.Failed > 0 {
		return exitRejected
	}
	return exitOK
}
