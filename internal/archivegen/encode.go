package archivegen

// Writing the values: canonical (RFC 8785) and in the other styles.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// style is how a value is written.
type style struct {
	canonical bool // RFC 8785: members sorted, no whitespace, minimal escapes
	shuffle   bool // members in random order
	space     bool // a space after ':' and ','
	escape    bool // every character that is not ASCII as a \u escape
}

// appendStyled appends v written in style st.
func appendStyled(b []byte, v any, st style, rng *rand.Rand) []byte {
	if st.canonical {
		return appendCanonical(b, v)
	}
	switch v := v.(type) {
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = sep(b, ',', st)
			}
			b = appendStyled(b, e, st, rng)
		}
		return append(b, ']')
	case object:
		order := make([]int, len(v))
		for i := range order {
			order[i] = i
		}
		if st.shuffle {
			rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		b = append(b, '{')
		for i, k := range order {
			if i > 0 {
				b = sep(b, ',', st)
			}
			b = appendString(b, v[k].name, st.escape)
			b = sep(b, ':', st)
			b = appendStyled(b, v[k].value, st, rng)
		}
		return append(b, '}')
	}
	return appendScalar(b, v, st.escape)
}

func sep(b []byte, c byte, st style) []byte {
	b = append(b, c)
	if st.space {
		b = append(b, ' ')
	}
	return b
}

// appendCanonical appends the canonical form of v (RFC 8785 §3.2): members
// sorted by the UTF-16 code units of their names, no whitespace, strings
// with only the escapes §3.2.2.2 requires, integers in decimal.
func appendCanonical(b []byte, v any) []byte {
	switch v := v.(type) {
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	case object:
		sorted := slices.Clone(v)
		slices.SortFunc(sorted, func(x, y member) int { return compareUTF16(x.name, y.name) })
		b = append(b, '{')
		for i, m := range sorted {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.name, false)
			b = append(b, ':')
			b = appendCanonical(b, m.value)
		}
		return append(b, '}')
	}
	return appendScalar(b, v, false)
}

// compareUTF16 compares a and b by their UTF-16 code units, as RFC 8785
// §3.2.3 sorts member names.
func compareUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// appendScalar appends a string, an integer or a boolean.
func appendScalar(b []byte, v any, escape bool) []byte {
	switch v := v.(type) {
	case string:
		return appendString(b, v, escape)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case bool:
		return strconv.AppendBool(b, v)
	}
	panic(fmt.Sprintf("BUG: archivegen: a value of type %T", v))
}

// appendString appends s as a JSON string: with the escapes RFC 8785
// §3.2.2.2 requires (\" \\ \b \t \n \f \r, other controls as \u00xx), and
// with escape every character that is not ASCII as a \u escape too.
func appendString(b []byte, s string, escape bool) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 || escape && r >= 0x80:
			for _, u := range utf16.AppendRune(nil, r) {
				b = fmt.Appendf(b, `\u%04x`, u)
			}
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return append(b, '"')
}
