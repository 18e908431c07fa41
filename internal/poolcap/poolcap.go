// Package poolcap holds the one bound on what an object put back into a
// pool may keep, for every pool of the module: canon's Canonicalizers
// (through canon.Canonicalizer.Poolable, which every pool holding one asks),
// the root package's Digesters, envelope's and act's Parsers, batch's
// workers, and the buffers beside them. A larger object is dropped rather
// than pooled, so that one huge input does not pin its memory for the life
// of the process (as jsontext's pools do).
package poolcap

// Max is the most scratch memory, in bytes, that a pooled object keeps.
const Max = 1 << 20

// Keep reports whether an object that keeps n bytes of scratch memory may
// go back into its pool.
func Keep(n int) bool { return n <= Max }
