package main

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/bbdigest/bbdigest/canon"
)

// demoHelp is the help of demo (help/demo.txt).
var demoHelp = helpFile("demo")

// demoFiles is the sample set of "bbdigest demo": the example envelope of
// draft-morrison-binding-moment-envelope-04 §6.4 and its two actions, plus a
// few envelopes and MCP tool messages of our own.
//
//go:embed testdata/demo/*.json
var demoFiles embed.FS

// demoPublished holds the digests the envelope draft publishes in §6.4, which
// the demo checks.
var demoPublished = map[string]string{
	"action-1-dates":          "sha256:ff91e3166e64b892004d4b43b05ad6ed7ff0819463da80c72f27f47039c033fa",
	"action-2-dates-passport": "sha256:49be14ae6e74b950c0c7b790fa22538d45fb4853bb0f3b242b28204bee232945",
	"envelope-draft-6.4":      "sha256:0db384ab1b682c115d79babfefa91f014ad80c007d00c79119d748f32be232d1",
}

type demoDoc struct {
	name string
	src  []byte
}

func loadDemo() ([]demoDoc, error) {
	const dir = "testdata/demo"
	entries, err := fs.ReadDir(demoFiles, dir)
	if err != nil {
		return nil, err
	}
	var docs []demoDoc
	for _, e := range entries {
		src, err := fs.ReadFile(demoFiles, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		docs = append(docs, demoDoc{strings.TrimSuffix(e.Name(), ".json"), src})
	}
	return docs, nil
}

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
	docs, err := loadDemo()
	if err != nil {
		c.errorf("demo: %v", err)
		return exitUsage
	}
	p := canon.Strict
	cz := canon.New(p)

	status := exitOK
	fmt.Fprintf(c.stdout, "profile %s, %d documents\n\n", p.Name(), len(docs))
	fmt.Fprintf(c.stdout, "%-24s %6s  %-71s  %s\n", "NAME", "BYTES", "DIGEST", "CHECK")
	var digest []byte
	for _, d := range docs {
		out, err := cz.View(d.src)
		if err != nil {
			c.errorf("demo: %s: %v", d.name, err)
			status = exitRejected
			continue
		}
		digest = appendDigest(digest[:0], out)
		check := "-"
		if want, ok := demoPublished[d.name]; ok {
			check = "matches draft 6.4"
			if string(digest) != want {
				check = "MISMATCH, draft 6.4 has " + want
				status = exitRejected
			}
		}
		fmt.Fprintf(c.stdout, "%-24s %6d  %s  %s\n", d.name, len(out), digest, check)
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
			out, _ := cz.View(d.src)
			digest = appendDigest(digest[:0], out)
			bytes += len(d.src)
		}
		n += len(docs)
		elapsed = time.Since(start)
	}
	secs := elapsed.Seconds()
	fmt.Fprintf(c.stdout, "\nthroughput: %d documents in %.2f s: %.0f docs/s, %.1f MB/s of input\n",
		n, secs, float64(n)/secs, float64(bytes)/secs/1e6)
	return exitOK
}
