package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bbdigest/bbdigest/internal/demo"
	"github.com/bbdigest/bbdigest/ledger/bolt"
)

// ledgerCase is a working directory with the §6.4 envelope, a resolution
// selecting option 0, option 0's action, and a ledger path.
type ledgerCase struct {
	t      *testing.T
	ledger string
}

func newLedgerCase(t *testing.T) *ledgerCase {
	t.Helper()
	env, act := demo.DraftEnvelope(), demo.DraftAction1()
	t.Chdir(t.TempDir())
	for name, content := range map[string]string{
		"env.json": string(env),
		"act.json": string(act),
		"res.json": `{"binding_moment_resolution":{"envelope_digest":"` + demo.DraftEnvelopeDigest + `","resolution":"option","option_idx":0}}`,
	} {
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return &ledgerCase{t: t, ledger: "agent.db"}
}

// run runs bbdigest with args and returns its stdout, stderr and exit code.
func (lc *ledgerCase) run(args ...string) (string, string, int) {
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}
	code := c.main(args)
	return stdout.String(), stderr.String(), code
}

func (lc *ledgerCase) emit() {
	lc.t.Helper()
	if out, errOut, code := lc.run("envelope", "emit", "--ledger", lc.ledger, "env.json"); code != exitOK {
		lc.t.Fatalf("emit: exit %d: %s%s", code, out, errOut)
	}
}

// verify runs resolution verify against the ledger with extra flags and
// returns the decoded JSON answer, stderr and the exit code.
func (lc *ledgerCase) verify(extra ...string) (map[string]any, string, int) {
	lc.t.Helper()
	args := append([]string{"resolution", "verify", "--envelope", "env.json", "--resolution", "res.json",
		"--action", "act.json", "--ledger", lc.ledger}, extra...)
	out, errOut, code := lc.run(args...)
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || strings.Count(out, "\n") != 1 {
		lc.t.Fatalf("verify printed %q (%v), want one JSON object", out, err)
	}
	return v, errOut, code
}

// A ledger another process holds is an error that says so, after --wait.
func TestVerifyLedgerLocked(t *testing.T) {
	lc := newLedgerCase(t)
	lc.emit()
	held, err := bolt.Open(lc.ledger, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	v, errOut, code := lc.verify("--wait", "0")
	if code != exitLedger || v["outcome"] != "error" || v["error"] != "ledger" ||
		!strings.Contains(v["reason"].(string), "open ledger agent.db: locked by another process") {
		t.Errorf("locked, --wait 0: exit %d, %v", code, v)
	}
	if !strings.Contains(errOut, "bbdigest: hint: another bbdigest holds the ledger; --wait D waits longer") {
		t.Errorf("stderr %q", errOut)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("--wait 0 waited %v", d)
	}
	// Released while it waits: the answer comes once the lock is free.
	go func() {
		time.Sleep(200 * time.Millisecond)
		held.Close()
	}()
	if v, errOut, code := lc.verify("--wait", "5s"); code != exitOK || v["outcome"] != "authority" {
		t.Errorf("--wait 5s, released after 200 ms: exit %d, %v, %s", code, v, errOut)
	}
}

// The attack of the issue: after an authority, a flipped bit in the
// checksum of the newest bbolt meta page made bbolt fall back to the older
// meta page, where the envelope was only emitted, and the same resolution
// was authority again. Now the ledger is refused as corrupt, exit 3, and
// nothing is authorized.
func TestVerifyLedgerMetaFlip(t *testing.T) {
	lc := newLedgerCase(t)
	lc.emit()
	if v, _, code := lc.verify(); code != exitOK || v["outcome"] != "authority" {
		t.Fatalf("first verify: exit %d, %v", code, v)
	}
	db, err := os.ReadFile(lc.ledger)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt's meta page: a 16-byte page header, then magic, version,
	// page size, flags (4 bytes each), the root bucket (16), the freelist
	// and high-water page ids (8 each), txid (8) and checksum (8).
	const hdr, txidAt, sumAt = 16, 16 + 16 + 16 + 16, 16 + 16 + 16 + 24
	pageSize := int(binary.LittleEndian.Uint32(db[hdr+8:]))
	newest := 0
	if binary.LittleEndian.Uint64(db[pageSize+txidAt:]) > binary.LittleEndian.Uint64(db[txidAt:]) {
		newest = pageSize
	}
	db[newest+sumAt] ^= 1
	if err := os.WriteFile(lc.ledger, db, 0o600); err != nil {
		t.Fatal(err)
	}
	v, errOut, code := lc.verify()
	if code != exitLedger || v["outcome"] != "error" || v["error"] != "ledger" || !strings.Contains(v["reason"].(string), "ledger agent.db: corrupt: ") {
		t.Errorf("verify after the flip: exit %d, %v", code, v)
	}
	if !strings.Contains(errOut, "nothing was authorized or recorded") {
		t.Errorf("stderr %q", errOut)
	}
	if _, errOut, code := lc.run("envelope", "emit", "--ledger", lc.ledger, "env.json"); code != exitLedger || !strings.Contains(errOut, "ledger agent.db: corrupt: ") {
		t.Errorf("emit after the flip: exit %d, %s", code, errOut)
	}
	// Removing the high-water file does not help.
	os.Remove(lc.ledger + ".hwm")
	if v, _, code := lc.verify(); code != exitLedger || v["outcome"] == "authority" {
		t.Errorf("verify without the high-water file: exit %d, %v", code, v)
	}
}

// --ledger names a file that must exist for verify: an empty ledger in its
// place would discard, but a created one would hide a typo.
func TestVerifyLedgerMissing(t *testing.T) {
	lc := newLedgerCase(t)
	v, errOut, code := lc.verify()
	if code != exitLedger || v["error"] != "ledger" || v["reason"] != "ledger agent.db: file does not exist" {
		t.Errorf("exit %d, %v, %s", code, v, errOut)
	}
	if want := "bbdigest: error: resolution verify: ledger agent.db: file does not exist\n" +
		"bbdigest: hint: create an empty ledger with 'bbdigest ledger init PATH'; 'bbdigest envelope emit --ledger PATH' records envelopes in it\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if m, _ := filepath.Glob("agent.db*"); len(m) != 0 {
		t.Errorf("verify created %v", m)
	}
	// With the ledger 'ledger init' made, verify checks: the envelope was
	// never emitted there, so the resolution is discarded.
	if out, errOut, code := lc.run("ledger", "init", lc.ledger); code != exitOK || out != "" || errOut != "" {
		t.Fatalf("ledger init: exit %d, %q, %q", code, out, errOut)
	}
	v, errOut, code = lc.verify()
	if code != exitRejected || v["outcome"] != "discarded" || errOut != "" {
		t.Errorf("after ledger init: exit %d, %v, %q", code, v, errOut)
	}
}

// TestLedgerInit: ledger init creates an empty ledger that the commands
// which need one open; it never replaces a file (exit 2, nothing
// changed); a ledger it cannot create is exit 3, leaving nothing.
func TestLedgerInit(t *testing.T) {
	lc := newLedgerCase(t)
	if out, errOut, code := lc.run("ledger", "init", "agent.db"); code != exitOK || out != "" || errOut != "" {
		t.Fatalf("exit %d, %q, %q", code, out, errOut)
	}
	l, err := bolt.Open("agent.db", &bolt.Options{MustExist: true})
	if err != nil {
		t.Fatalf("the ledger init made does not open: %v", err)
	}
	l.Close()
	lc.emit() // and takes envelopes
	before, _ := os.ReadFile("agent.db")

	existsHint := "bbdigest: hint: ledger init never replaces a file; deleting a ledger and its PATH.hwm forgets which envelopes it consumed\n"
	usageHint := "bbdigest: hint: run 'bbdigest help ledger' for usage\n"
	os.WriteFile("notes.txt", []byte("notes"), 0o600)
	os.WriteFile("old.db.hwm", []byte("x"), 0o600)
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"ledger", "init", "agent.db"}, exitUsage, "bbdigest: error: ledger init: create ledger agent.db: file already exists\n" + existsHint},
		{[]string{"ledger", "init", "notes.txt"}, exitUsage, "bbdigest: error: ledger init: create ledger notes.txt: file already exists\n" + existsHint},
		{[]string{"ledger", "init", "old.db"}, exitUsage, "bbdigest: error: ledger init: create ledger old.db: the high-water file old.db.hwm of an earlier ledger is there: file already exists\n" + existsHint},
		{[]string{"ledger", "init", filepath.Join("no", "dir", "x.db")}, exitLedger, "bbdigest: error: ledger init: create ledger " + filepath.Join("no", "dir", "x.db") + ": open: no such file or directory\n"},
		{[]string{"ledger", "init"}, exitUsage, "bbdigest: error: ledger init: missing PATH\n" + usageHint},
		{[]string{"ledger", "init", ""}, exitUsage, "bbdigest: error: ledger init: empty PATH\n" + usageHint},
		{[]string{"ledger", "init", "--", "-"}, exitUsage, "bbdigest: error: ledger init: PATH -: the ledger is a file, not stdout\n" + usageHint},
		{[]string{"ledger", "init", "a.db", "b.db"}, exitUsage, "bbdigest: error: ledger init: too many inputs (2)\n" + usageHint},
		{[]string{"ledger"}, exitUsage, "bbdigest: error: ledger: missing subcommand (init)\n" + usageHint},
		{[]string{"ledger", "check"}, exitUsage, "bbdigest: error: ledger: unknown subcommand \"check\"\n" + usageHint},
	} {
		out, errOut, code := lc.run(tc.args...)
		if code != tc.code || out != "" || errOut != tc.stderr {
			t.Errorf("%q: exit %d (want %d), stdout %q\nstderr %q\nwant   %q", tc.args, code, tc.code, out, errOut, tc.stderr)
		}
	}
	if after, _ := os.ReadFile("agent.db"); !bytes.Equal(after, before) {
		t.Error("ledger init changed the ledger it refused")
	}
	if got, _ := os.ReadFile("notes.txt"); string(got) != "notes" {
		t.Error("ledger init changed a file it refused")
	}
	for _, p := range []string{"old.db", "no", "a.db"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("a refused ledger init left %s", p)
		}
	}
	for _, args := range [][]string{{"ledger", "--help"}, {"ledger", "init", "--help"}, {"help", "ledger"}} {
		if out, _, code := lc.run(args...); code != exitOK || out != ledgerHelp {
			t.Errorf("%q: exit %d, %q", args, code, out)
		}
	}
}
