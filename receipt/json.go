package receipt

// The package reads JSON with internal/jsonread, the module's one reader
// of JSON that canon has checked, and only canonical JSON: a receipt line
// once it is known to be its own JCS form (notCanonical), or the output of
// the strict canon gate for an EP document. So it needs no whitespace
// handling, no duplicate checks and no number parsing beyond plain decimal
// integers: canon has settled all of that. Members come sorted by name,
// strings are escaped only as RFC 8785 §3.2.2.2 requires. A walk of bytes
// that are not canonical stops (jsonread.Iter.Close is then not the end of
// the object), so that they are refused rather than read wrong, and
// nothing panics (FuzzVerifyLine, and jsonread's FuzzReadVsCanon).
//
// This file holds the checks of values in that form.

// isString reports whether v is the string literal s, which needs no
// escaping.
func isString(v []byte, s string) bool {
	return len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s && v[len(v)-1] == '"'
}

// parseInt reads the canonical integer v: "0", or an optional "-" and
// digits without a leading zero, at most 16 of them (the strict profile
// bounds integers to 2^53-1).
func parseInt(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 16 || (v[0] == '0' && (len(v) > 1 || neg)) {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if n > maxSafe {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// maxSafe is 2^53-1, the largest integer of the strict profile.
const maxSafe = 1<<53 - 1
