package hashing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/bbdigest/bbdigest/internal/hexdec"
)

// Digest is a SHA-256 digest as a value: 32 bytes that compare with ==,
// can be map keys and are copied, not shared. Its text form is
// "sha256:" followed by 64 lowercase hexadecimal digits; see [ParseDigest].
type Digest [Size]byte

// digestPrefix is the algorithm prefix of the text form of a [Digest].
const digestPrefix = "sha256:"

// DigestTextLen is the length in bytes of the text form of a [Digest].
const DigestTextLen = len(digestPrefix) + 2*Size

// ErrInvalidDigest is wrapped by every error that [ParseDigest],
// [Digest.UnmarshalText] and [Digest.UnmarshalJSON] return, so callers can
// test for it with errors.Is.
var ErrInvalidDigest = errors.New("invalid digest")

// DigestError reports why a text was rejected as a [Digest]. Offset is the
// byte offset in the input where the problem was found. Its Error text may
// change between versions; match on [ErrInvalidDigest] instead.
type DigestError struct {
	Input  string // the rejected input, cut to at most 80 bytes
	Offset int    // byte offset of the problem in the input
	Reason string // what is wrong, e.g. `uppercase hex digit 'A'`
}

// Error returns a message such as
// `hashing: invalid digest "sha256:ab": want 64 hex digits, got 2 at offset 7`.
func (e *DigestError) Error() string {
	return "hashing: invalid digest " + strconv.Quote(e.Input) + ": " + e.Reason + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns [ErrInvalidDigest].
func (e *DigestError) Unwrap() error { return ErrInvalidDigest }

func digestError(s string, off int, reason string) error {
	if len(s) > 80 {
		s = s[:80]
	}
	return &DigestError{Input: s, Offset: off, Reason: reason}
}

const (
	hexDigits      = "0123456789abcdef"
	upperHexDigits = "0123456789ABCDEF"
)

// appendHex appends the 64 hex digits of d, written with digits, to dst.
func appendHex(dst []byte, d *Digest, digits string) []byte {
	for _, b := range d {
		dst = append(dst, digits[b>>4], digits[b&0x0f])
	}
	return dst
}

// AppendTo appends the text form of d ("sha256:" and 64 lowercase hex
// digits) to dst and returns the extended slice. It does not allocate when
// dst has room for [DigestTextLen] more bytes.
func (d Digest) AppendTo(dst []byte) []byte {
	dst = append(dst, digestPrefix...)
	return appendHex(dst, &d, hexDigits)
}

// Bytes returns the 32 bytes of d in a new slice, which the caller may
// modify; d[:] is the allocation-free alternative.
func (d Digest) Bytes() []byte {
	b := make([]byte, Size)
	copy(b, d[:])
	return b
}

// Hex returns the 64 lowercase hexadecimal digits of d, without the
// "sha256:" prefix: hex.EncodeToString(d[:]).
func (d Digest) Hex() string {
	var buf [2 * Size]byte
	return string(appendHex(buf[:0], &d, hexDigits))
}

// Format implements [fmt.Formatter]. The verbs print d as follows:
//
//	%x   the 32 bytes as 64 lowercase hex digits, as for a [32]byte
//	%X   the same with uppercase digits
//	%s   the text form, as String returns it: "sha256:" and 64 hex digits
//	%v   the text form, as %s (so do %+v and Print and Println)
//	%q   the text form as a double-quoted Go string; %#q backquotes it
//	%#v  Go syntax, hashing.Digest{0xba, 0x78, ...}, as fmt prints a
//	     [32]byte type without methods
//
// So code that printed a [32]byte with %x or %X prints the same for a
// Digest. Width, precision and flags act as fmt applies them, for %x and
// %X as to a [32]byte (%#x puts a single "0x" before the 64 digits, % x a
// space between bytes, %.4x prints the first 4 bytes, %80x and %-80x pad
// with spaces on the left or right, %080x with zeros), and for %s, %v and
// %q as to a string (%-80s pads the text form with spaces on the right to
// 80 characters, %.10s keeps its first 10). Any other verb is reported as
// fmt reports a verb that a value does not support, with the text form:
// %d prints %!d(hashing.Digest=sha256:ba7816bf...).
func (d Digest) Format(f fmt.State, verb rune) {
	plain := !hasFlags(f)
	switch verb {
	case 'x', 'X':
		if plain {
			var buf [2 * Size]byte
			digits := hexDigits
			if verb == 'X' {
				digits = upperHexDigits
			}
			f.Write(appendHex(buf[:0], &d, digits))
			return
		}
		fmt.Fprintf(f, fmt.FormatString(f, verb), [Size]byte(d))
	case 'v', 's', 'q':
		if verb == 'v' && f.Flag('#') {
			s := fmt.Sprintf(fmt.FormatString(f, verb), [Size]byte(d))
			f.Write([]byte("hashing.Digest" + strings.TrimPrefix(s, "[32]uint8")))
			return
		}
		if plain && verb != 'q' {
			var buf [DigestTextLen]byte
			f.Write(d.AppendTo(buf[:0]))
			return
		}
		fmt.Fprintf(f, fmt.FormatString(f, verb), d.String())
	default:
		// As fmt reports a bad verb for a value of string kind: the type,
		// then the value as %v with the width, precision and flags given,
		// where '#' does not quote it.
		spec := []byte{'%'}
		for _, c := range "-+ 0" {
			if f.Flag(int(c)) {
				spec = append(spec, byte(c))
			}
		}
		if w, ok := f.Width(); ok {
			spec = strconv.AppendInt(spec, int64(w), 10)
		}
		if p, ok := f.Precision(); ok {
			spec = strconv.AppendInt(append(spec, '.'), int64(p), 10)
		}
		f.Write([]byte("%!" + string(verb) + "(hashing.Digest="))
		fmt.Fprintf(f, string(append(spec, 'v')), d.String())
		f.Write([]byte(")"))
	}
}

// hasFlags reports whether the directive has a flag, a width or a
// precision.
func hasFlags(f fmt.State) bool {
	if _, ok := f.Width(); ok {
		return true
	}
	if _, ok := f.Precision(); ok {
		return true
	}
	for _, c := range "-+# 0" {
		if f.Flag(int(c)) {
			return true
		}
	}
	return false
}

// String returns the text form of d: "sha256:" followed by 64 lowercase
// hexadecimal digits. It allocates only the returned string.
func (d Digest) String() string {
	var buf [DigestTextLen]byte
	return string(d.AppendTo(buf[:0]))
}

// AppendText implements [encoding.TextAppender]; it is [Digest.AppendTo]
// with an error result that is always nil.
func (d Digest) AppendText(b []byte) ([]byte, error) {
	return d.AppendTo(b), nil
}

// MarshalText implements [encoding.TextMarshaler] with the text form of d.
func (d Digest) MarshalText() ([]byte, error) {
	return d.AppendTo(make([]byte, 0, DigestTextLen)), nil
}

// UnmarshalText implements [encoding.TextUnmarshaler] with the rules of
// [ParseDigest]. On error the receiver is unchanged.
func (d *Digest) UnmarshalText(text []byte) error {
	v, err := parseDigest(text)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON implements [json.Marshaler]: the text form of d as a JSON
// string.
func (d Digest) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, DigestTextLen+2)
	b = append(b, '"')
	b = d.AppendTo(b)
	return append(b, '"'), nil
}

// UnmarshalJSON implements [json.Unmarshaler]. It accepts a JSON string
// holding the text form of a digest (see [ParseDigest]); JSON null leaves
// the receiver unchanged, as encoding/json expects; anything else is an
// error wrapping [ErrInvalidDigest]. On error the receiver is unchanged.
func (d *Digest) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	// Fast path: a plain JSON string without escapes, which is what every
	// encoder produces for a digest.
	if len(data) == DigestTextLen+2 && data[0] == '"' && data[len(data)-1] == '"' {
		return d.UnmarshalText(data[1 : len(data)-1])
	}
	var s string
	if len(data) == 0 || data[0] != '"' || json.Unmarshal(data, &s) != nil {
		return digestError(string(data), 0, "want a JSON string")
	}
	return d.UnmarshalText([]byte(s))
}

// ParseDigest parses the text form of a SHA-256 digest. The input must be
// exactly "sha256:" followed by exactly 64 lowercase hexadecimal digits,
// with nothing before or after: uppercase digits, other algorithms such as
// "sha512:", a missing prefix, 63 or 65 digits and surrounding space are
// all rejected with a [*DigestError] that wraps [ErrInvalidDigest].
func ParseDigest(s string) (Digest, error) {
	return parseDigest(s)
}

func parseDigest[T string | []byte](s T) (Digest, error) {
	var d Digest
	if len(s) < len(digestPrefix) || string(s[:len(digestPrefix)]) != digestPrefix {
		return d, digestError(string(s), 0, prefixReason(string(s)))
	}
	return parseHex(s, len(digestPrefix))
}

// ParseHex parses exactly 64 lowercase hexadecimal digits: the text form
// of a digest without its "sha256:" prefix, as a receipt's prev_hash
// writes a chain hash. Uppercase digits, 63 or 65 digits and surrounding
// space are rejected, as ParseDigest rejects them, with a [*DigestError]
// that wraps [ErrInvalidDigest].
func ParseHex[T string | []byte](hex T) (Digest, error) {
	return parseHex(hex, 0)
}

// parseHex parses s[start:], 64 lowercase hex digits, naming offsets in s.
// hexdec.Lower32 decodes the digits (all at once with AVX-512 BW); only
// when it refuses them does the loop below find the first bad digit, to
// name it.
func parseHex[T string | []byte](s T, start int) (Digest, error) {
	var d Digest
	hex := s[start:]
	if len(hex) != 2*Size {
		return d, digestError(string(s), start,
			"want 64 hex digits, got "+strconv.Itoa(len(hex))+" bytes")
	}
	if hexdec.Lower32((*[Size]byte)(&d), hexView(hex)) {
		return d, nil
	}
	for i := range Size {
		hi, ok1 := fromHex(hex[2*i])
		lo, ok2 := fromHex(hex[2*i+1])
		if !ok1 || !ok2 {
			j := 2 * i
			if ok1 {
				j++
			}
			return Digest{}, digestError(string(s), start+j, badDigitReason(hex[j]))
		}
		d[i] = hi<<4 | lo
	}
	return d, nil
}

// hexView returns the 64 bytes of h (len(h) == 64) as an array pointer,
// for hexdec.Lower32, which only reads them: a view of a string's bytes,
// or of a slice's, made without copying either.
func hexView[T string | []byte](h T) *[2 * Size]byte {
	switch v := any(h).(type) {
	case string:
		return (*[2 * Size]byte)(unsafe.Pointer(unsafe.StringData(v)))
	case []byte:
		return (*[2 * Size]byte)(v)
	}
	panic("unreachable")
}

func fromHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

func badDigitReason(c byte) string {
	if 'A' <= c && c <= 'F' {
		return "uppercase hex digit " + strconv.QuoteRune(rune(c)) + " (digests are lowercase)"
	}
	return "not a lowercase hex digit: " + strconv.Quote(string([]byte{c}))
}

func prefixReason(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return "unsupported algorithm " + strconv.Quote(s[:i]) + ", want \"sha256:\" prefix"
		}
	}
	return "missing \"sha256:\" prefix"
}
