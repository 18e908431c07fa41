package receipt

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/fips140"
	"crypto/sha512"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"filippo.io/edwards25519"
)

// TestSignWithIsEd25519 holds signWith to crypto/ed25519.Sign: given RFC
// 8032's own nonce for the message, r = SHA-512(prefix || M) mod L, it
// must write the very signature crypto/ed25519 writes, for random keys
// and messages of every length around SHA-512's block.
func TestSignWithIsEd25519(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sc := newSignScratch()
	for i := range 300 {
		seed := make([]byte, ed25519.SeedSize)
		for j := range seed {
			seed[j] = byte(rng.Uint32())
		}
		priv := ed25519.NewKeyFromSeed(seed)
		s := NewSigner(priv)
		msg := make([]byte, i%260)
		for j := range msg {
			msg[j] = byte(rng.Uint32())
		}
		var n nonce
		d := sha512.Sum512(append(s.key.prefix[:], msg...))
		if _, err := n.r.SetUniformBytes(d[:]); err != nil {
			t.Fatal(err)
		}
		n.setR()
		var sig [ed25519.SignatureSize]byte
		s.key.signWith(&sig, sc, s.pub, msg, &n)
		if want := ed25519.Sign(priv, msg); !bytes.Equal(sig[:], want) {
			t.Fatalf("key %x, %d-byte message: signWith %x, crypto/ed25519 %x", seed, len(msg), sig, want)
		}
	}
}

// TestDrawnNonces checks the nonces the pool draws: each signs what
// crypto/ed25519.Verify accepts, and no two are alike.
func TestDrawnNonces(t *testing.T) {
	s := testSigner(3)
	sc := newSignScratch()
	seen := make(map[[32]byte]bool)
	msg := []byte(`{"seq":1}`)
	for i := range 200 {
		var n nonce
		s.key.draw(&n)
		if seen[n.R] {
			t.Fatalf("draw %d: R %x drawn before", i, n.R)
		}
		seen[n.R] = true
		if n.r.Equal(edwards25519.NewScalar()) == 1 {
			t.Fatalf("draw %d: r is zero", i)
		}
		var sig [ed25519.SignatureSize]byte
		s.key.signWith(&sig, sc, s.pub, msg, &n)
		if !ed25519.Verify(s.pub, msg, sig[:]) {
			t.Fatalf("draw %d: the signature does not verify", i)
		}
		if bytes.Equal(sig[:], ed25519.Sign(s.priv, msg)) {
			t.Fatalf("draw %d: the signature is RFC 8032's deterministic one", i)
		}
		msg[len(msg)-2]++
		if ed25519.Verify(s.pub, msg, sig[:]) {
			t.Fatalf("draw %d: the signature verifies for another message", i)
		}
	}
}

// TestNoncePool checks the pool's bookkeeping: nothing is ready until
// asked for; each take asks for one more; every nonce taken is new; stop
// ends its goroutines.
func TestNoncePool(t *testing.T) {
	s := testSigner(4)
	p := newNoncePool(s.key)
	if p == nil {
		t.Skip("FIPS 140-3 mode: no pool")
	}
	var n nonce
	if p.take(&n) {
		t.Fatal("a nonce was ready before any was asked for")
	}
	seen := make(map[[32]byte]bool)
	for i := range 3 * noncePoolSize {
		waitReady(t, p)
		if !p.take(&n) {
			t.Fatalf("take %d: none ready", i)
		}
		if seen[n.R] {
			t.Fatalf("take %d: nonce taken before", i)
		}
		seen[n.R] = true
	}
	time.Sleep(10 * time.Millisecond)
	if got := len(p.ready); got > 1 {
		t.Errorf("%d nonces ready after one-at-a-time takes: the pool drew more than it was asked for", got)
	}
	p.stop()
	select {
	case p.want <- struct{}{}: // a token nobody takes
	default:
	}
	time.Sleep(5 * time.Millisecond)
	if len(p.ready) > 1 {
		t.Error("the pool drew after stop")
	}
}

// waitReady waits until p has a nonce ready, for at most 5 s.
func waitReady(t *testing.T, p *noncePool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); len(p.ready) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no nonce ready after 5 s")
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// TestLogPresigned appends records one at a time, each once the pool has
// a nonce ready, so that every record but the first is signed with a
// drawn nonce: the log must verify, and Stats must count them.
func TestLogPresigned(t *testing.T) {
	s := testSigner(5)
	path := filepath.Join(t.TempDir(), "log")
	l, err := Open(path, s, Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	if l.nonces == nil {
		l.Close()
		t.Skip("FIPS 140-3 mode: no pool")
	}
	const n = 40
	var got []Receipt
	for i := range n {
		if i > 0 {
			waitReady(t, l.nonces)
		}
		r, err := l.Append(context.Background(), samplePayload(i))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	// A record refused for its size is signed, and with a nonce, but is
	// no record of the log: Presigned does not count it.
	waitReady(t, l.nonces)
	big := samplePayload(n)
	big.Detail = string(bytes.Repeat([]byte("x"), MaxLineSize))
	if _, err := l.Append(context.Background(), big); err == nil {
		t.Fatal("a line over MaxLineSize accepted")
	}
	st := l.Stats()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if st.Presigned != n-1 {
		t.Errorf("Stats.Presigned %d, want %d (every record but the first)", st.Presigned, n-1)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.Records != n {
		t.Fatalf("Verify: %+v, %v", sum, err)
	}
	// The first record's signature is RFC 8032's (no nonce was ready);
	// the others are not, and each verifies on its own.
	for i, r := range got {
		payload := r.Line[len(linePrefix):bytes.LastIndex(r.Line, []byte(lineMiddle))]
		sigText := r.Line[bytes.LastIndex(r.Line, []byte(lineMiddle))+len(lineMiddle) : len(r.Line)-len(lineSuffix)]
		sig, err := b64.DecodeString(string(sigText))
		if err != nil {
			t.Fatal(err)
		}
		if !ed25519.Verify(s.Public(), payload, sig) {
			t.Fatalf("record %d: the signature does not verify", i+1)
		}
		if det := bytes.Equal(sig, ed25519.Sign(s.priv, payload)); det != (i == 0) {
			t.Errorf("record %d: deterministic signature %v, want %v", i+1, det, i == 0)
		}
	}
}

// TestLogDeterministic checks Options.Deterministic: two logs of the same
// records, key and clock are the same bytes, signed by crypto/ed25519
// alone; without it, the same records are signed with drawn nonces as
// soon as some are ready, and the logs differ.
func TestLogDeterministic(t *testing.T) {
	s := testSigner(6)
	write := func(det bool) ([]byte, Stats) {
		path := filepath.Join(t.TempDir(), "log")
		l, err := Open(path, s, Options{Now: fixedClock(), Deterministic: det})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			if !det && i > 0 && l.nonces != nil {
				waitReady(t, l.nonces)
			}
			if _, err := l.Append(context.Background(), samplePayload(i)); err != nil {
				t.Fatal(err)
			}
		}
		st := l.Stats()
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if sum, err := verifyBytes(b, s.Public(), 0); err != nil || sum.Records != 20 {
			t.Fatalf("Verify: %+v, %v", sum, err)
		}
		return b, st
	}
	a, sta := write(true)
	b, stb := write(true)
	if !bytes.Equal(a, b) || sta.Presigned != 0 || stb.Presigned != 0 {
		t.Errorf("Deterministic: the logs differ (%v), or records were presigned (%d, %d)", !bytes.Equal(a, b), sta.Presigned, stb.Presigned)
	}
	if c, stc := write(false); stc.Presigned > 0 && bytes.Equal(a, c) {
		t.Error("the default log, with presigned records, is the deterministic one")
	} else if stc.Presigned == 0 && !fips140.Enabled() {
		t.Error("the default log presigned nothing")
	}
}
