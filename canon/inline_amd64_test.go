//go:build amd64 && !purego

package canon

func init() {
	// A string with a byte above 0x7F, the rare case of scanPlain: out of
	// line, so that the common path of scanPlain stays short.
	outOfLine = append(outOfLine, "(*Canonicalizer).scanPlainHigh")
}
