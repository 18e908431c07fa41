package act

import (
	"testing"

	"github.com/bbdigest/bbdigest/canon"

	"github.com/bbdigest/bbdigest/internal/race"
)

// TestAllocations checks that a warm Parser reads a call in every shape,
// the OpenAI string included, without allocating: Digest always,
// ParseInto when the tool name is that of the Act's previous call; with
// and without a configured server.
func TestAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	ins := benchInputs(t)
	for _, server := range []string{"", "srv"} {
		p := Parser{Server: server}
		var a Act
		for _, in := range ins {
			for _, s := range []Shape{ShapeAuto, in.shape} {
				if err := p.ParseInto(&a, in.data, s); err != nil {
					t.Fatalf("%s: %v", in.name, err)
				}
				if n := testing.AllocsPerRun(50, func() { p.ParseInto(&a, in.data, s) }); n != 0 {
					t.Errorf("%s, %s, server %q: ParseInto allocates %v times", in.name, s, server, n)
				}
				if n := testing.AllocsPerRun(50, func() { p.Digest(in.data, s) }); n != 0 {
					t.Errorf("%s, %s, server %q: Digest allocates %v times", in.name, s, server, n)
				}
			}
		}
	}
}

// TestAllocationsFallback checks the fallback for a wrapper the strict
// profile refuses: it allocates only the strict rejection that canon
// builds (and then discards).
func TestAllocationsFallback(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	src := []byte(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"t","arguments":{"b":[1,2],"a":"x"}}}`)
	var c canon.Canonicalizer
	if _, err := c.View(src); err == nil {
		t.Fatal("the strict profile accepts the wrapper")
	}
	gate := testing.AllocsPerRun(50, func() { c.View(src) })
	var p Parser
	var a Act
	if err := p.ParseInto(&a, src, ShapeAuto); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(50, func() { p.ParseInto(&a, src, ShapeAuto) }); n != gate {
		t.Errorf("ParseInto allocates %v times, the strict rejection %v", n, gate)
	}
	if n := testing.AllocsPerRun(50, func() { p.Digest(src, ShapeAuto) }); n != gate {
		t.Errorf("Digest allocates %v times, the strict rejection %v", n, gate)
	}
}
