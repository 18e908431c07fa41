// Package poolcap holds the one bound on what an object put back into a
// pool may keep, for every pool of the module (canon's Canonicalizers, the
// root package's Digesters, envelope's Parsers), and the measure of a
// canon.Canonicalizer's scratch memory that the pools outside canon need.
// A larger object is dropped rather than pooled, so that one huge input
// does not pin its memory for the life of the process (as jsontext's
// pools do).
package poolcap

// Max is the most scratch memory, in bytes, that a pooled object keeps.
const Max = 1 << 20

// Keep reports whether an object that keeps n bytes of scratch memory may
// go back into its pool.
func Keep(n int) bool { return n <= Max }

// CanonArena reports roughly how many bytes of scratch memory c, a
// *canon.Canonicalizer, keeps between calls. Package canon sets it when it
// initialises: canon imports this package, so this one cannot name its
// type, and the measure reads canon's unexported fields.
var CanonArena func(c any) int
