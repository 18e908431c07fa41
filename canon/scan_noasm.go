//go:build !amd64 || purego

package canon

// Without assembly there is no classification window and no vector UTF-8
// check: strings are scanned byte by byte (scanPlainGeneric).
const (
	haveClassifySSE2   = false
	haveClassifyAVX512 = false
	haveUTF8Lookup     = false
	haveUTF8AVX512     = false
)

// classWindow is empty without a vector classifier.
type classWindow struct{}

func (w *classWindow) reset() {}

// scanPlain is scanPlainGeneric(c.src, pos).
func (c *Canonicalizer) scanPlain(pos int) (int, bool) { return scanPlainGeneric(c.src, pos) }

// scanPlainQuick is scanPlain (amd64 has a variant for the fast path).
func (c *Canonicalizer) scanPlainQuick(pos int) (int, bool) { return scanPlainGeneric(c.src, pos) }

// stopRun is stopRunGeneric(c.src, i).
func (c *Canonicalizer) stopRun(i int) (int, bool) { return stopRunGeneric(c.src, i) }
