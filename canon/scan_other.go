//go:build !amd64 || purego

package canon

// scanPlainString is scanPlainGeneric on architectures without a vector
// scanner (and under the purego tag).
func scanPlainString(src []byte, pos int) (int, bool) { return scanPlainGeneric(src, pos) }

// classWindow is empty without a vector classifier.
type classWindow struct{}

func (w *classWindow) reset() {}

// scanPlain is scanPlainGeneric(c.src, pos).
func (c *Canonicalizer) scanPlain(pos int) (int, bool) { return scanPlainGeneric(c.src, pos) }
