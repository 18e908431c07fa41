package act

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/race"
)

// wantActRFC8785 is wantAct's act in the rfc8785 profile: the same
// members, and "profile":"rfc8785" after the arguments. args must be
// written as JCS writes its numbers (the oracle keeps them as written).
func wantActRFC8785(t testing.TB, server, tool, args string) (canonical, digest string) {
	t.Helper()
	strict, _ := wantAct(t, server, tool, args)
	i := strings.Index(strict, `,"server":`)
	if i < 0 {
		i = strings.LastIndex(strict, `,"tool":`)
	}
	c := strict[:i] + `,"profile":"rfc8785"` + strict[i:]
	return c, sha([]byte(c))
}

// TestProfileRFC8785Shapes reads every call in every form and style under
// the rfc8785 profile: the act is the strict one with "profile":"rfc8785"
// after the arguments, so it never has the strict act's digest, even for
// arguments that are integers only; the arguments and their digest are
// the same. Profile strict, set explicitly, is the zero Parser.
func TestProfileRFC8785Shapes(t *testing.T) {
	var zero Parser
	strict := Parser{Profile: canon.Strict}
	loose := Parser{Profile: canon.RFC8785}
	for _, c := range calls {
		want, wantDigest := wantActRFC8785(t, "", c.tool, c.args)
		ins := inputs(t, c.tool, c.args)
		for _, name := range slices.Sorted(maps.Keys(ins)) {
			src, shape := []byte(ins[name]), shapeOf(t, name)
			a, err := loose.Parse(src, ShapeAuto)
			if err != nil {
				t.Fatalf("%s/%s: %v", c.tool, name, err)
			}
			if string(a.Canonical) != want || a.Digest.String() != wantDigest || a.Profile != canon.RFC8785 || a.Shape != shape || a.Tool != c.tool {
				t.Fatalf("%s/%s: %s %s %v %s %q, want %s", c.tool, name, a.Canonical, a.Digest, a.Profile, a.Shape, a.Tool, want)
			}
			if d, err := loose.Digest(src, shape); err != nil || d != a.Digest {
				t.Errorf("%s/%s: Digest %s, %v", c.tool, name, d, err)
			}
			s, err := zero.Parse(src, ShapeAuto)
			if err != nil {
				t.Fatalf("%s/%s: strict: %v", c.tool, name, err)
			}
			if s2, err := strict.Parse(src, ShapeAuto); err != nil || !bytes.Equal(s2.Canonical, s.Canonical) || s2.Profile != canon.Strict || s.Profile != canon.Strict {
				t.Errorf("%s/%s: Profile canon.Strict reads %v, %v; the zero Parser %s", c.tool, name, s2, err, s.Canonical)
			}
			if s.Digest == a.Digest {
				t.Errorf("%s/%s: the rfc8785 act has the strict act's digest %s", c.tool, name, a.Digest)
			}
			if !bytes.Equal(s.Arguments(), a.Arguments()) || s.ArgumentsDigest() != a.ArgumentsDigest() {
				t.Errorf("%s/%s: arguments %s (strict) and %s (rfc8785)", c.tool, name, s.Arguments(), a.Arguments())
			}
		}
	}
}

// TestProfileNumbers reads arguments that only the rfc8785 profile takes,
// in every shape and in a wrapper that is not strict itself: the numbers
// are written as RFC 8785 writes them, the act records its profile, and
// the strict profile refuses the same call as it always has.
func TestProfileNumbers(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{`{"lat":47.37,"lon":8.54}`, `{"lat":47.37,"lon":8.54}`},
		{`{"lat":4737e-2,"lon":0.854E1}`, `{"lat":47.37,"lon":8.54}`},
		{`{"x":1.50,"y":1e2,"z":-0.0}`, `{"x":1.5,"y":100,"z":0}`},
		{`{"big":9007199254740993,"huge":1e21,"tiny":5e-324}`, `{"big":9007199254740992,"huge":1e+21,"tiny":5e-324}`},
		{`{"n":[0.1,[{"r":-2.5}]]}`, `{"n":[0.1,[{"r":-2.5}]]}`},
	} {
		want := `{"act":"tool_call/v1","arguments":` + tc.want + `,"profile":"rfc8785","server":"geo.example","tool":"geo"}`
		loose := Parser{Server: "geo.example", Profile: canon.RFC8785}
		strict := Parser{Server: "geo.example"}
		forms := map[string]string{}
		for _, f := range callForms {
			forms[f.name] = f.write(`"geo"`, tc.args, quoteJSON(t, tc.args))
		}
		// A wrapper only rfc8785 takes: a fractional id, deep _meta.
		forms["mcp-fraction-id"] = `{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"geo","arguments":` + tc.args + `}}`
		forms["mcp-deep-meta"] = `{"method":"tools/call","params":{"name":"geo","arguments":` + tc.args + `,"_meta":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}`
		for name, src := range forms {
			a, err := loose.Parse([]byte(src), ShapeAuto)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.args, name, err)
			}
			if string(a.Canonical) != want || a.Digest.String() != sha([]byte(want)) || a.Profile != canon.RFC8785 {
				t.Errorf("%s %s:\n got %s %s\nwant %s", tc.args, name, a.Canonical, a.Digest, want)
			}
			if string(a.Arguments()) != tc.want || a.ArgumentsDigest().String() != sha([]byte(tc.want)) {
				t.Errorf("%s %s: arguments %s", tc.args, name, a.Arguments())
			}
			_, err = strict.Parse([]byte(src), ShapeAuto)
			e, ok := errors.AsType[*Error](err)
			if !ok || (e.Class() != canon.ClassNonInteger && e.Class() != canon.ClassUnsafeInteger) {
				t.Errorf("%s %s: the strict profile gives %v", tc.args, name, err)
			}
		}
		a, err := loose.New("geo", []byte(tc.args))
		if err != nil || string(a.Canonical) != want || a.Profile != canon.RFC8785 || a.Shape != ShapeAuto {
			t.Errorf("%s: Parser.New gives %v, %v", tc.args, a, err)
		}
	}
}

// TestProfileRefusals: the rfc8785 profile still refuses what RFC 8785
// refuses, in the arguments (a number out of the double range, a
// duplicate name) and beyond its nesting bound, with the class, pointer
// and offset of the refusal.
func TestProfileRefusals(t *testing.T) {
	p := Parser{Profile: canon.RFC8785}
	for _, tc := range []struct {
		src   string
		class canon.Class
		ptr   string
		off   int64
		in    bool
	}{
		{`{"name":"t","arguments":{"x":1e400}}`, canon.ClassNumberRange, "/arguments/x", 29, false},
		{`{"name":"t","arguments":{"x":1,"x":2.5}}`, canon.ClassDuplicateName, "/arguments/x", 31, false},
		{`{"name":"t","arguments":"{\"x\":1e400}"}`, canon.ClassNumberRange, "/arguments", 5, true},
		{`{"name":"t","arguments":"` + strings.Repeat("[", MaxArgumentsDepthRFC8785+1) + strings.Repeat("]", MaxArgumentsDepthRFC8785+1) + `"}`, canon.ClassDepth, "/arguments", 0, true},
	} {
		_, err := p.Parse([]byte(tc.src), ShapeAuto)
		e, ok := errors.AsType[*Error](err)
		if !ok || e.Class() != tc.class || e.Pointer != tc.ptr || e.InString != tc.in || (tc.class != canon.ClassDepth && e.Offset != tc.off) {
			t.Errorf("%.60s: %#v", tc.src, err)
		}
	}
}

// TestProfileDepth: the arguments of an rfc8785 act nest up to
// MaxArgumentsDepthRFC8785 levels of their own, in an OpenAI string and
// through New; one more is refused as depth, at the innermost level.
func TestProfileDepth(t *testing.T) {
	p := Parser{Profile: canon.RFC8785}
	nest := func(n int) string { return strings.Repeat(`{"a":`, n-1) + `{}` + strings.Repeat(`}`, n-1) }
	ok, deep := nest(MaxArgumentsDepthRFC8785), nest(MaxArgumentsDepthRFC8785+1)
	if _, err := p.Parse([]byte(`{"name":"t","arguments":`+quoteJSON(t, ok)+`}`), ShapeAuto); err != nil {
		t.Errorf("OpenAI string, %d levels: %v", MaxArgumentsDepthRFC8785, err)
	}
	if _, err := p.New("t", []byte(ok)); err != nil {
		t.Errorf("New, %d levels: %v", MaxArgumentsDepthRFC8785, err)
	}
	_, err := p.Parse([]byte(`{"name":"t","arguments":`+quoteJSON(t, deep)+`}`), ShapeAuto)
	if e, isE := errors.AsType[*Error](err); !isE || e.Class() != canon.ClassDepth || !e.InString || e.Offset != int64(5*MaxArgumentsDepthRFC8785) {
		t.Errorf("OpenAI string, %d levels: %v", MaxArgumentsDepthRFC8785+1, err)
	}
	_, err = p.New("t", []byte(deep))
	if e, isE := errors.AsType[*Error](err); !isE || e.Class() != canon.ClassDepth || e.Offset != int64(5*MaxArgumentsDepthRFC8785) {
		t.Errorf("New, %d levels: %v", MaxArgumentsDepthRFC8785+1, err)
	}
	// In place, the input's own 1000 levels bound the arguments.
	_, err = p.Parse([]byte(`{"name":"t","arguments":`+deep+`}`), ShapeAuto)
	if e, isE := errors.AsType[*Error](err); !isE || e.Class() != canon.ClassDepth {
		t.Errorf("in place, %d levels: %v", MaxArgumentsDepthRFC8785+1, err)
	}
}

// TestProfileOf: ProfileOf chooses each call's profile by its tool name,
// decoded, in place of Profile: in a call on its own, in a message (one
// call of each), and in Parser.New; a choice other than canon.Strict or
// canon.RFC8785, or such a Profile, is an error and no act.
func TestProfileOf(t *testing.T) {
	var asked []string
	p := Parser{Profile: canon.RFC8785, ProfileOf: func(tool string) canon.Profile {
		asked = append(asked, tool)
		if strings.HasPrefix(tool, "geo") {
			return canon.RFC8785
		}
		return canon.Strict
	}}
	a, err := p.Parse([]byte(`{"name":"ge\u006f_lookup","arguments":{"lat":47.37}}`), ShapeAuto)
	if err != nil || a.Profile != canon.RFC8785 || string(a.Canonical) != `{"act":"tool_call/v1","arguments":{"lat":47.37},"profile":"rfc8785","tool":"geo_lookup"}` {
		t.Errorf("geo_lookup: %v, %v", a, err)
	}
	_, err = p.Parse([]byte(`{"name":"pay","arguments":{"amount":19.99}}`), ShapeAuto)
	if e, ok := errors.AsType[*Error](err); !ok || e.Class() != canon.ClassNonInteger || e.Pointer != "/arguments/amount" {
		t.Errorf("pay: %v", err)
	}
	a, err = p.Parse([]byte(`{"name":"pay","arguments":{"amount_cents":1999}}`), ShapeAuto)
	if want, _ := wantAct(t, "", "pay", `{"amount_cents":1999}`); err != nil || string(a.Canonical) != want || a.Profile != canon.Strict {
		t.Errorf("pay in cents: %v, %v", a, err)
	}
	msg := `{"role":"assistant","tool_calls":[` +
		`{"id":"c1","type":"function","function":{"name":"geo","arguments":"{\"lat\":47.37}"}},` +
		`{"id":"c2","type":"function","function":{"name":"pay","arguments":"{\"amount_cents\":5}"}}]}`
	acts, err := p.AppendMessage(nil, []byte(msg), ShapeAuto)
	if err != nil || len(acts) != 2 || acts[0].Profile != canon.RFC8785 || acts[1].Profile != canon.Strict ||
		!bytes.Contains(acts[0].Canonical, []byte(`"profile":"rfc8785"`)) || bytes.Contains(acts[1].Canonical, []byte(`"profile"`)) {
		t.Errorf("message: %v, %v", acts, err)
	}
	if a, err := p.New("geo", []byte(`{"lat":1.5}`)); err != nil || a.Profile != canon.RFC8785 {
		t.Errorf("New geo: %v, %v", a, err)
	}
	if a, err := p.New("geo\n\"x\"", []byte(`{"lat":1.5}`)); err != nil || a.Profile != canon.RFC8785 || a.Tool != "geo\n\"x\"" ||
		string(a.Canonical) != `{"act":"tool_call/v1","arguments":{"lat":1.5},"profile":"rfc8785","tool":"geo\n\"x\""}` {
		t.Errorf("New geo with escapes: %v, %v", a, err)
	}
	if _, err := p.New("pay", []byte(`{"amount":1.5}`)); err == nil {
		t.Error("New pay with a fraction: no error")
	}
	if want := []string{"geo_lookup", "pay", "pay", "geo", "pay", "geo", "geo\n\"x\"", "pay"}; strings.Join(asked, ",") != strings.Join(want, ",") {
		t.Errorf("ProfileOf asked for %q, want %q", asked, want)
	}

	small, err := canon.RFC8785.WithMaxSize(1 << 10)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(`{"name":"geo","arguments":{}}`)
	bad := Parser{ProfileOf: func(string) canon.Profile { return small }}
	var got Act
	if err := bad.ParseInto(&got, src, ShapeAuto); !errors.Is(err, errProfile) || len(got.Canonical) != 0 || !strings.Contains(err.Error(), `ProfileOf("geo")`) {
		t.Errorf("ProfileOf returning %v: %v, %s", small, err, got.Canonical)
	}
	if _, err := bad.New("geo", nil); !errors.Is(err, errProfile) {
		t.Errorf("New, ProfileOf returning %v: %v", small, err)
	}
	badP := Parser{Profile: small}
	if _, err := badP.Parse(src, ShapeAuto); !errors.Is(err, errProfile) {
		t.Errorf("Profile %v: %v", small, err)
	}
	if _, err := badP.AppendMessage(nil, []byte(msg), ShapeAuto); !errors.Is(err, errProfile) {
		t.Errorf("AppendMessage, Profile %v: %v", small, err)
	}
	if _, err := badP.New("geo", nil); !errors.Is(err, errProfile) {
		t.Errorf("New, Profile %v: %v", small, err)
	}
}

// TestProfilePool: the pooled Parsers of Parse, ParseMessage and New read
// under the strict profile whatever a Parser read before.
func TestProfilePool(t *testing.T) {
	src := []byte(`{"name":"geo","arguments":{"lat":47.37}}`)
	for range 4 {
		p := getParser("")
		p.Profile = canon.RFC8785
		p.ProfileOf = func(string) canon.Profile { return canon.RFC8785 }
		if _, err := p.Parse(src, ShapeAuto); err != nil {
			t.Fatal(err)
		}
		putParser(p)
		if _, err := Parse(src, ShapeAuto, ""); err == nil {
			t.Fatal("Parse took a fraction after a pooled Parser read under rfc8785")
		}
		if _, err := New("", "geo", []byte(`{"lat":47.37}`)); err == nil {
			t.Fatal("New took a fraction after a pooled Parser read under rfc8785")
		}
	}
}

// TestProfileAllocations: a warm Parser reading under rfc8785, or choosing
// the profile with ProfileOf, allocates no more than under strict: nothing
// for the demo call in every shape.
func TestProfileAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("the race detector changes allocation counts")
	}
	for _, p := range []*Parser{
		{Profile: canon.RFC8785},
		{ProfileOf: func(string) canon.Profile { return canon.RFC8785 }},
		{ProfileOf: func(string) canon.Profile { return canon.Strict }},
	} {
		var a Act
		for _, in := range benchInputs(t) {
			if err := p.ParseInto(&a, in.data, ShapeAuto); err != nil {
				t.Fatalf("%s: %v", in.name, err)
			}
			if n := testing.AllocsPerRun(50, func() { p.ParseInto(&a, in.data, ShapeAuto) }); n != 0 {
				t.Errorf("%s, profile %v: ParseInto allocates %v times", in.name, a.Profile, n)
			}
			if n := testing.AllocsPerRun(50, func() { p.Digest(in.data, ShapeAuto) }); n != 0 {
				t.Errorf("%s, profile %v: Digest allocates %v times", in.name, a.Profile, n)
			}
		}
	}
}

// FuzzProfiles checks, for any input, that an act read under rfc8785
// never has the digest of an act read under strict, from this input or
// any other: its canonical bytes are a strict act's with
// "profile":"rfc8785" after the arguments, and no strict act has that
// member. Whatever the strict profile reads, rfc8785 reads too, to the
// same tool and arguments; and New gives each profile's act from them.
func FuzzProfiles(f *testing.F) {
	for _, c := range calls {
		for _, fm := range callForms {
			f.Add([]byte(fm.write(marshal(f, c.tool), c.args, quoteJSON(f, c.args))))
		}
	}
	for _, src := range demoInputs(f) {
		f.Add([]byte(src))
	}
	f.Add([]byte(`{"name":"geo","arguments":{"lat":47.37,"n":9007199254740993}}`))
	f.Add([]byte(`{"name":"geo","arguments":"{\"lat\":1e-7}","id":0.5}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		var strict Parser
		loose := Parser{Profile: canon.RFC8785}
		a, errR := loose.Parse(src, ShapeAuto)
		s, errS := strict.Parse(src, ShapeAuto)
		if errS == nil && errR != nil {
			t.Fatalf("strict reads %s, rfc8785 refuses: %v", s.Canonical, errR)
		}
		if errR != nil {
			return
		}
		if a.Profile != canon.RFC8785 || !bytes.HasPrefix(a.Canonical[a.argsEnd:], []byte(profileMember)) {
			t.Fatalf("rfc8785 act %s", a.Canonical)
		}
		// The act without its profile member is the act's strict layout.
		bare := append(bytes.Clone(a.Canonical[:a.argsEnd]), a.Canonical[a.argsEnd+len(profileMember):]...)
		if errS == nil {
			if a.Digest == s.Digest || !bytes.Equal(bare, s.Canonical) || a.Tool != s.Tool {
				t.Fatalf("rfc8785 %s (%s), strict %s (%s)", a.Canonical, a.Digest, s.Canonical, s.Digest)
			}
		}
		// Read as a call itself, the canonical rfc8785 act is no tool
		// call (it has no name member), and no strict act: whatever holds
		// a profile member the strict reading never writes one.
		if s2, err := strict.New(a.Tool, a.Arguments()); err == nil {
			if s2.Digest == a.Digest || bytes.Contains(s2.Canonical[s2.argsEnd:], []byte(`"profile"`)) {
				t.Fatalf("New strict %s, rfc8785 %s", s2.Canonical, a.Canonical)
			}
		}
		n, err := loose.New(a.Tool, a.Arguments())
		if err != nil || n.Digest != a.Digest {
			t.Fatalf("New rfc8785 of %q %s: %v, %v", a.Tool, a.Arguments(), n, err)
		}
		if !canon.IsCanonical(a.Canonical, canon.RFC8785) {
			t.Fatalf("rfc8785 act not canonical: %s", a.Canonical)
		}
	})
}
