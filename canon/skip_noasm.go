//go:build !amd64 || purego

package canon

// skipQuoteEscapes is the no-op without a classification window: the
// string's escapes are taken one at a time by scanEscaped (see
// skip_amd64.go).
func (c *Canonicalizer) skipQuoteEscapes(i int) int { return i }
