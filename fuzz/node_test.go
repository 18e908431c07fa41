package fuzz

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
)

// TestCanonicalizeVsNodeCanonicalize compares bbdigest with the reference
// JCS of JavaScript: JSON.parse followed by the npm package canonicalize
// (fuzz/node/canon.js), run once over every document.
//
// The bulk are ~20,000 generated documents valid under rfc8785, on which
// the two must produce identical bytes. JSON.parse silently keeps the last
// of duplicate names and accepts lone surrogates (canonicalize then rejects
// them), so the generator never makes either; instead, documents of each
// class bbdigest must reject are checked separately, against both bbdigest
// and the documented Node behaviour.
func TestCanonicalizeVsNodeCanonicalize(t *testing.T) {
	requireNode(t)
	n := 20_000 * *genScale
	if testing.Short() {
		n /= 10
	}
	t.Logf("generator seed %#x (-gen.seed)", *genSeed)

	var docs [][]byte
	docs = append(docs, conformanceInputs(t)...)
	for _, tc := range trickyCases {
		docs = append(docs, []byte(tc.in))
	}
	g := newDocGen(3)
	for range n {
		docs = append(docs, g.doc())
	}
	bad := rejectDocs(newDocGen(4), n/20)
	all := append([][]byte(nil), docs...)
	for _, b := range bad {
		all = append(all, b.in)
	}
	results := runNode(t, all)

	for i, src := range docs {
		out, err := checkInvariants(t, src)
		if i >= len(docs)-n && err != nil {
			t.Fatalf("bbdigest rejects generated document %s: %v", q(src), qerr(err))
		}
		compareWithPeer(t, peerNode, src, out, err, results[i].out, results[i].err)
	}

	counts := map[canon.Class]int{}
	for i, b := range bad {
		r := results[len(docs)+i]
		_, err := checkInvariants(t, b.in)
		e, ok := errors.AsType[*canon.Error](err)
		if !ok || e.Class != b.class {
			t.Fatalf("bbdigest: got %v for %s, want class %s", qerr(err), q(b.in), b.class)
		}
		counts[b.class]++
		switch b.class {
		case canon.ClassDuplicateName:
			// Class node-keeps-last-duplicate (divergence_test.go): Node
			// accepts, as if only the last member of each name were there.
			want, err := canon.Canonicalize(b.lastWins, canon.RFC8785)
			if err != nil {
				t.Fatalf("last-wins form %s rejected: %v", q(b.lastWins), qerr(err))
			}
			if r.err != nil || !bytes.Equal(r.out, want) {
				t.Errorf("node on %s: got %s, %v; want the last-wins form %s", q(b.in), q(r.out), r.err, q(want))
			}
		default:
			// Lone surrogates (canonicalize rejects what JSON.parse let
			// through) and overflow (JSON.parse gives Infinity, which
			// canonicalize rejects): Node agrees with bbdigest.
			if r.err == nil {
				t.Errorf("node accepts %s as %s, want a rejection like bbdigest's %s", q(b.in), q(r.out), b.class)
			}
		}
	}
	t.Logf("%d documents agree; rejected as expected: %v", len(docs), counts)
}

// requireNode skips the test, or fails it under CI=true, when Node.js or
// the npm package canonicalize is missing.
func requireNode(t *testing.T) {
	t.Helper()
	var missing string
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat("node/node_modules/canonicalize/package.json"); err != nil {
		missing = "the npm package canonicalize is not installed; run `npm ci --prefix fuzz/node`"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal(missing)
	}
	t.Skip(missing)
}

// nodeResult is what canon.js made of one document.
type nodeResult struct {
	out []byte
	err error
}

// runNode runs fuzz/node/canon.js once over docs.
func runNode(t *testing.T, docs [][]byte) []nodeResult {
	t.Helper()
	var in bytes.Buffer
	for _, d := range docs {
		in.WriteString(base64.StdEncoding.EncodeToString(d))
		in.WriteByte('\n')
	}
	cmd := exec.Command("node", "node/canon.js")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node node/canon.js: %v\n%s", err, stderr.Bytes())
	}
	var results []nodeResult
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if msg, ok := strings.CutPrefix(line, "!"); ok {
			results = append(results, nodeResult{err: errors.New(msg)})
			continue
		}
		out, err := base64.StdEncoding.DecodeString(line)
		if err != nil {
			t.Fatalf("canon.js output line %d: %v", len(results)+1, err)
		}
		results = append(results, nodeResult{out: out})
	}
	if len(results) != len(docs) {
		t.Fatalf("canon.js answered %d of %d documents", len(results), len(docs))
	}
	return results
}

// rejectDoc is a document bbdigest must reject.
type rejectDoc struct {
	in       []byte
	class    canon.Class
	lastWins []byte // duplicates: the document with only the last member of each name
}

// rejectDocs generates n documents of each class that JSON.parse handles
// differently from bbdigest: duplicate names (JSON.parse keeps the last),
// lone surrogates (JSON.parse accepts them), and numbers beyond the largest
// double (JSON.parse gives Infinity). Each is embedded at a random place in
// an otherwise valid generated document.
func rejectDocs(g *docGen, n int) []rejectDoc {
	var docs []rejectDoc
	embed := func(bad, ok string) (string, string) {
		ctx := string(g.doc())
		switch g.r.IntN(3) {
		case 0:
			return "[" + ctx + "," + bad + "]", "[" + ctx + "," + ok + "]"
		case 1:
			return `{"x":` + ctx + `,"y":[` + bad + `]}`, `{"x":` + ctx + `,"y":[` + ok + `]}`
		}
		return bad, ok
	}
	for range n {
		// Duplicates: the same name twice, spelled differently at random.
		name := g.name()
		spell := func(s string) string { // s as a JSON string, quotes included
			g.b = g.b[:0]
			g.string(s)
			return string(g.b)
		}
		inner := func(s string) string { sp := spell(s); return sp[1 : len(sp)-1] }
		v1, v2 := string(g.doc()), string(g.doc())
		var members []string // other members, sometimes enough for the hashed duplicate check
		for i := range []int{1, 3, 20, 40}[g.r.IntN(4)] {
			members = append(members, spell(name+"~"+strconv.Itoa(i))+":0")
		}
		split := g.r.IntN(len(members) + 1)
		first, second := spell(name)+":"+v1, spell(name)+":"+v2
		dupMembers := slices.Concat([]string{first}, members[:split], []string{second}, members[split:])
		lastMembers := slices.Concat(members[:split], []string{second}, members[split:])
		dup := "{" + strings.Join(dupMembers, ",") + "}"
		last := "{" + strings.Join(lastMembers, ",") + "}"
		in, ok := embed(dup, last)
		docs = append(docs, rejectDoc{[]byte(in), canon.ClassDuplicateName, []byte(ok)})

		// Lone surrogates, as a value or as a name.
		lone := []string{`\ud800`, `\udbff`, `\udc00`, `\udfff`, `\ud83d\u0041`, `\ud83dx`, `\ude00\ud83d`}[g.r.IntN(7)]
		s := `"` + inner(g.text(2)) + lone + inner(g.text(2)) + `"`
		if g.r.IntN(2) == 0 {
			s = "{" + s + ":1}"
		}
		in, _ = embed(s, "")
		docs = append(docs, rejectDoc{in: []byte(in), class: canon.ClassUnpairedSurrogate})

		// Numbers beyond the largest double.
		big := []string{"1e400", "-1e309", "1.7976931348623159e308", "-1.8E+308", "123e99999", "1" + strings.Repeat("0", 309)}[g.r.IntN(6)]
		in, _ = embed(big, "")
		docs = append(docs, rejectDoc{in: []byte(in), class: canon.ClassNumberRange})
	}
	return docs
}
