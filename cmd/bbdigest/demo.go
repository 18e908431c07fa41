package main

import (
	"fmt"
	"time"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/demo"
)

// demoHelp is the help of demo (help/demo.txt).
var demoHelp = helpFile("demo")

func (c *cli) demo(args []string) int {
	fs := c.flagSet("demo")
	duration := fs.Duration("duration", time.Second, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	if *duration < 0 {
		c.errorf("demo: negative --duration %v", *duration)
		return exitUsage
	}
	// The sample set: the example of draft-morrison-binding-moment-
	// envelope-04 §6.4 and its two actions, with the digests the draft
	// publishes, which the demo checks, plus a few envelopes and MCP tool
	// messages of our own.
	docs := demo.Docs()
	p := canon.Strict
	cz := canon.New(p)

	status := exitOK
	fmt.Fprintf(c.stdout, "profile %s, %d documents\n\n", p.Name(), len(docs))
	fmt.Fprintf(c.stdout, "%-24s %6s  %-71s  %s\n", "NAME", "BYTES", "DIGEST", "CHECK")
	var digest []byte
	for _, d := range docs {
		out, err := cz.View(d.Src)
		if err != nil {
			c.errorf("demo: %s: %v", d.Name, err)
			status = exitRejected
			continue
		}
		digest = appendDigest(digest[:0], out)
		check := "-"
		if d.Published != "" {
			check = "matches draft 6.4"
			if string(digest) != d.Published {
				check = "MISMATCH, draft 6.4 has " + d.Published
				status = exitRejected
			}
		}
		fmt.Fprintf(c.stdout, "%-24s %6d  %s  %s\n", d.Name, len(out), digest, check)
	}
	if status != exitOK || *duration == 0 {
		return status
	}

	// Throughput: canonicalize and digest the whole set, pass after pass.
	var n, bytes int
	start := time.Now()
	elapsed := time.Duration(0)
	for elapsed < *duration {
		for _, d := range docs {
			out, _ := cz.View(d.Src)
			digest = appendDigest(digest[:0], out)
			bytes += len(d.Src)
		}
		n += len(docs)
		elapsed = time.Since(start)
	}
	secs := elapsed.Seconds()
	fmt.Fprintf(c.stdout, "\nthroughput: %d documents in %.2f s: %.0f docs/s, %.1f MB/s of input\n",
		n, secs, float64(n)/secs, float64(bytes)/secs/1e6)
	return exitOK
}
