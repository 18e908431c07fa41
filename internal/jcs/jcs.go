// Package jcs holds the one writer of RFC 8785 string literals that the
// packages writing canonical JSON by hand share (act's acts, receipt's
// receipts, envelope's resolutions): canon reads JSON, and these packages
// write a few known members around values canon has already made
// canonical.
package jcs

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string literal escaped as RFC 8785
// §3.2.2.2 requires: '"' and '\' escaped, the controls below U+0020 as
// \b \t \n \f \r or \u00xx (lowercase hex), every other byte as it is.
// s must be valid UTF-8; the callers check it, since what to do with bytes
// that are not is theirs to say.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
