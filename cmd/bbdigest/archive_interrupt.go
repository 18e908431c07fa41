package main

// Ctrl-C during "archive rehash|verify --out FILE": the run stops reading,
// writes and fsyncs the result lines answered, writes the sidecar of its
// last checkpoint as at the end of any run (FILE.resume, fsynced), prints
// its summary (incomplete) and a hint with the command line that
// continues it, and exits 130 (exitInterrupted). Without --out nothing
// can continue the run, and SIGINT keeps its default action.
//
// Only the first SIGINT is caught: the signal's default action is back
// as soon as it arrives, so a second Ctrl-C kills the process at once (a
// read that blocks, on a terminal say, cannot be interrupted otherwise);
// --resume then goes on from the last sidecar the run wrote, as after any
// kill.

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/bbdigest/bbdigest/internal/gnuflag"
	"github.com/bbdigest/bbdigest/internal/shell"
)

// interruptible returns a context that is done on the first SIGINT,
// after which the signal's default action is restored, and the function
// that releases it.
func interruptible() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done() // SIGINT, or stop
		stop()
	}()
	return ctx, stop
}

// interrupted writes the hint of a run of archive sub with --out that
// Ctrl-C stopped: how many result lines FILE.resume records (results),
// and the command line that continues the run: the one given (args, after
// "archive sub"), with --resume first, each word quoted for a POSIX shell
// where it needs it (and, as every hint, with the characters a terminal
// interprets escaped). fs is the run's flag set, whose flags tell which
// words are flags and which their values.
func (c *cli) interrupted(fs *flag.FlagSet, sub string, args []string, out string, results int64, inputs []string) {
	words := append([]string{"bbdigest", "archive", sub, "--resume"}, gnuflag.Without(fs, args, "resume")...)
	for i, w := range words {
		words[i] = shell.Quote(w)
	}
	stdin := ""
	if slices.Contains(inputs, "-") {
		stdin = " with the same input on stdin"
	}
	c.hintf("interrupted: %s records %d result lines; to continue, run%s: %s",
		fileField(out+resumeSuffix), results, stdin, strings.Join(words, " "))
}
