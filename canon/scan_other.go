//go:build !amd64 || purego

package canon

// scanPlainString is scanPlainGeneric on architectures without a vector
// scanner (and under the purego tag).
func scanPlainString(src []byte, pos int) (int, bool) { return scanPlainGeneric(src, pos) }
