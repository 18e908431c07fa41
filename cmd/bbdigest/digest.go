package main

import "github.com/bbdigest/bbdigest/hashing"

// appendDigest appends the digest string of the canonical bytes, "sha256:"
// and 64 lowercase hexadecimal characters, to dst. It does not allocate
// when dst has room.
//
// This is the only place the CLI computes a digest.
func appendDigest(dst, canonical []byte) []byte {
	return hashing.Sum(canonical).AppendTo(dst)
}
