package receipt

// This file signs with Ed25519 nonces drawn ahead of their messages.
//
// An Ed25519 signature (RFC 8032 §5.1.6) of M under the secret scalar s
// and the public key A is R || S, where r is the nonce, R = r·B encoded,
// k = SHA-512(R || A || M) and S = r + k·s mod L. Verification (§5.1.7)
// checks [S]B = R + [k]A: it does not depend on how r was chosen, only on
// r being secret, uniform and never used for a second message (two
// signatures with one r give s away). RFC 8032 derives r from the message,
// r = SHA-512(prefix || M), so that no random number generator is needed.
// That puts the costly step, the scalar multiplication r·B (about 15 µs of
// the signature's 20 on a Zen 5 core), after the message is known.
//
// A Log's messages are known only one at a time: each record's prev_hash
// is the digest of the line before it, signature included, so the
// signatures are one serial chain and a Log could append at most one
// record per full signature's time. Here r does not depend on the
// message: a noncePool draws r = SHA-512(prefix || 64 random bytes) mod L
// (random, and hedged with the key's secret prefix as RFC 8032 hedges
// with the message) and computes R = r·B on goroutines of its own, ahead
// of the records, so that the chain pays only k and S, about 1.5 µs. Each
// nonce leaves the pool through one channel receive and is used for one
// signature: no nonce signs twice. The signatures are Ed25519 signatures
// that crypto/ed25519.Verify (and every RFC 8032 verifier) accepts; they
// are not RFC 8032's deterministic ones, and two signatures of one
// message differ. Nothing in a receipt depends on that: a record is signed
// once, and its digest is taken from the line as signed.
//
// When the pool has no nonce ready (the first records, a burst), the
// signer signs with crypto/ed25519.Sign, RFC 8032's deterministic nonce:
// it never waits for the pool. With FIPS 140-3 mode on (GODEBUG
// fips140=on) there is no pool, and every signature is crypto/ed25519's,
// made inside the Go Cryptographic Module.

import (
	"crypto/ed25519"
	"crypto/fips140"
	"crypto/rand"
	"crypto/sha512"
	"hash"
	"runtime"
	"sync"

	"filippo.io/edwards25519"
)

// expandedKey is the signing half of an Ed25519 private key as RFC 8032
// §5.1.5 expands its seed: the secret scalar s and the prefix.
type expandedKey struct {
	s      edwards25519.Scalar
	prefix [32]byte
}

// expand returns the expanded key of seed, an ed25519.SeedSize seed.
func expand(seed []byte) *expandedKey {
	h := sha512.Sum512(seed)
	k := new(expandedKey)
	if _, err := k.s.SetBytesWithClamping(h[:32]); err != nil {
		panic("receipt: expand: " + err.Error()) // 32 bytes always set
	}
	copy(k.prefix[:], h[32:])
	clear(h[:])
	return k
}

// nonce is an Ed25519 signing nonce drawn before its message: the secret
// scalar r and its commitment R = r·B, encoded.
type nonce struct {
	r edwards25519.Scalar
	R [32]byte
}

// setR computes n.R from n.r.
func (n *nonce) setR() {
	var p edwards25519.Point
	copy(n.R[:], p.ScalarBaseMult(&n.r).Bytes())
}

// draw sets n to a new nonce: r is SHA-512(prefix || 64 bytes from
// crypto/rand) reduced mod L, uniform as RFC 8032's r is.
func (k *expandedKey) draw(n *nonce) {
	var in [32 + 64]byte
	copy(in[:32], k.prefix[:])
	rand.Read(in[32:]) // never fails: see crypto/rand.Read
	h := sha512.Sum512(in[:])
	if _, err := n.r.SetUniformBytes(h[:]); err != nil {
		panic("receipt: draw: " + err.Error()) // 64 bytes always set
	}
	clear(in[:])
	clear(h[:])
	n.setR()
}

// signScratch is signWith's scratch memory, for one goroutine at a time.
type signScratch struct {
	h hash.Hash // SHA-512
	d [sha512.Size]byte
}

func newSignScratch() *signScratch { return &signScratch{h: sha512.New()} }

// signWith writes to sig the Ed25519 signature of msg by the key k, whose
// public key is pub, made with the nonce n: RFC 8032 §5.1.6 from its step
// 3 on, with n in place of steps 1 and 2.
func (k *expandedKey) signWith(sig *[ed25519.SignatureSize]byte, sc *signScratch, pub, msg []byte, n *nonce) {
	h := sc.h
	h.Reset()
	h.Write(n.R[:])
	h.Write(pub)
	h.Write(msg)
	d := h.Sum(sc.d[:0])
	var c, s edwards25519.Scalar
	if _, err := c.SetUniformBytes(d); err != nil {
		panic("receipt: signWith: " + err.Error()) // 64 bytes always set
	}
	s.MultiplyAdd(&c, &k.s, &n.r)
	copy(sig[:32], n.R[:])
	copy(sig[32:], s.Bytes())
}

// noncePoolSize is how many nonces a noncePool holds ready at most, and
// how many it may be asked for before it has made them.
const noncePoolSize = 64

// noncePool draws nonces for one Log on goroutines of its own: one nonce
// for each one taken, or signature made without one, so that it computes
// about as many as the Log signs and nothing while the Log is idle.
type noncePool struct {
	key   *expandedKey
	want  chan struct{} // one token for each nonce to draw
	ready chan nonce    // drawn, each to be taken once
	done  chan struct{} // closed by stop
	wg    sync.WaitGroup
}

// newNoncePool returns a pool for key, running, or nil with FIPS 140-3
// mode on.
func newNoncePool(key *expandedKey) *noncePool {
	if fips140.Enabled() {
		return nil
	}
	p := &noncePool{
		key:   key,
		want:  make(chan struct{}, noncePoolSize),
		ready: make(chan nonce, noncePoolSize),
		done:  make(chan struct{}),
	}
	for range min(runtime.GOMAXPROCS(0), 4) {
		p.wg.Go(p.run)
	}
	return p
}

// run draws a nonce for each token, until stop.
func (p *noncePool) run() {
	var n nonce
	for {
		select {
		case <-p.want:
		case <-p.done:
			return
		}
		p.key.draw(&n)
		select {
		case p.ready <- n:
			n = nonce{} // r is as secret as the key: keep one copy, the pool's
		case <-p.done:
			return
		}
	}
}

// take sets n to a nonce from the pool and reports whether there was one
// ready; either way it asks the pool for one more. It never waits.
func (p *noncePool) take(n *nonce) bool {
	ok := false
	select {
	case *n = <-p.ready:
		ok = true
	default:
	}
	select {
	case p.want <- struct{}{}:
	default: // the pool has enough on order
	}
	return ok
}

// stop ends the pool's goroutines and waits for them. Nonces not taken
// are dropped.
func (p *noncePool) stop() {
	close(p.done)
	p.wg.Wait()
}
