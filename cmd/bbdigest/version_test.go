package main

import (
	"bytes"
	"io"
	"testing"
)

// TestVersion runs bbdigest version, which takes no argument.
func TestVersion(t *testing.T) {
	runCases(t, []runCase{
		{name: "version", args: []string{"version"}, outRE: `\Abbdigest \S.*\n\z`},
		{name: "version arg", args: []string{"version", "x"}, code: 2, errRE: `^bbdigest: error: version: unexpected argument "x"\n`},
	})
}

func TestVersionLdflags(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	Version = "v1.2.3"
	var stdout bytes.Buffer
	if code := run([]string{"version"}, nil, &stdout, io.Discard); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if got, want := stdout.String(), "bbdigest v1.2.3\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
