// Package shaunit measures the SHA256RNDS2 instruction of the machine it
// runs on: its latency (one dependent chain) and its throughput (several
// independent chains), with and without SHA256MSG1/MSG2 in between. These
// bound every SHA-NI kernel in ../../hashing: a SHA-256 block takes 32
// SHA256RNDS2, so one stream can go no faster than 32 latencies per block
// and any number of interleaved streams no faster than 32 reciprocal
// throughputs per block. Run:
//
//	go -C bench test -bench . ./shaunit
//
// The benchmarks report ns per SHA256RNDS2; they are skipped where the CPU
// has no SHA extensions, and the package is empty off amd64 (and with the
// purego tag).
package shaunit
