//go:build !amd64 || purego

package canon

const haveIndexStop = false

var indexStopFunc = func([]byte) (int, bool) { panic("unreachable") }

// scanPlainString, the SSE2 scanner on amd64, is the generic one here, so
// that the tests that compare the two build everywhere.
func scanPlainString(src []byte, pos int) (int, bool) { return scanPlainGeneric(src, pos) }
