package main

import (
	"crypto/sha256"
	"encoding/hex"
)

// digestPrefix starts every digest string (envelope draft §6.2).
const digestPrefix = "sha256:"

// appendDigest appends the digest string of the canonical bytes, "sha256:"
// and 64 lowercase hexadecimal characters, to dst. It does not allocate
// when dst has room.
//
// This is the only place the CLI computes a digest; it moves to the hashing
// package when that lands.
func appendDigest(dst, canonical []byte) []byte {
	sum := sha256.Sum256(canonical)
	dst = append(dst, digestPrefix...)
	return hex.AppendEncode(dst, sum[:])
}
