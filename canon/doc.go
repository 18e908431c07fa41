// Package canon turns JSON text into its canonical form: the JSON
// Canonicalization Scheme of RFC 8785, under the strict profile of
// draft-morrison-binding-moment-envelope-04 §6.3 by default.
//
// It works in one pass over the input bytes, without building a tree and
// without recursion, checking the profile's bounds as it goes, and it
// rejects, never repairs. A reusable [Canonicalizer] keeps its scratch memory
// between calls and, once warm, allocates nothing.
//
// # Profiles
//
// [Strict] (the default, and the zero [Profile]) is the envelope draft's
// §6.3 profile, adopted from EP §13.12: a number is accepted only when the
// exact decimal value of its literal is an integer of magnitude at most
// 2^53-1, decided from the literal's digits without rounding through
// float64, so 1.0, 1e0, 1e2, -0 and -0.0 are accepted (as 1, 1, 100, 0 and
// 0) while 1.5, 1e21, 1.00000000000000001, 9007199254740992 and 1e-400 are
// rejected. Containers nest at most 64 deep (the outermost is depth 1).
//
// [RFC8785] is plain RFC 8785 over I-JSON (RFC 7493): every number that is a
// finite IEEE-754 double after correct rounding, written exactly as
// ECMAScript's Number.prototype.toString (RFC 8785 §3.2.2.3). Literals that
// overflow (1e400) are rejected, never clamped; underflow gives 0. Nesting
// is bounded too ([DefaultRFC8785MaxDepth] unless set with
// [Profile.WithMaxDepth]).
//
// Both profiles reject: member names that collide after escape decoding;
// escapes of unpaired UTF-16 surrogates, in names too; ill-formed UTF-8
// (overlongs, encoded surrogates, code points above U+10FFFF, truncated
// sequences); a byte-order mark; and every syntax error of RFC 8259,
// including trailing data after the value. Top-level scalars are accepted.
//
// # Output
//
// Exactly RFC 8785 §3.2: no whitespace; strings escape only '"', '\' and
// the controls below U+0020 (\b \t \n \f \r, else \u00xx in lowercase hex),
// every other character is written as raw UTF-8 (U+007F, U+2028 and U+FEFF
// included) with no Unicode normalization; object members are sorted by the
// UTF-16 code units of their decoded names ([CompareUTF16]).
//
// Input that is already canonical is recognised by a lean validating scan
// that keeps no per-member records, and passed through:
// [Canonicalizer.View] returns the input slice itself, and
// [Canonicalizer.Append] copies it with one append. At the first byte that
// is not canonical that scan gives up and the full engine runs from the
// start (pretty-printed input is handed over at its first newline).
//
// On CPUs with AVX-512 VBMI2, input with whitespace to drop is first
// compressed sixty-four bytes at a time (VPCOMPRESSB), outside strings,
// and the engine runs on the compact text; an input that this rejects is
// run again as it is, so errors always carry offsets and pointers into the
// caller's input. Elsewhere the engine drops whitespace itself (see
// minify.go for why both give the same result).
//
// # Kernels
//
// Five steps have alternative implementations, chosen once at start-up
// from the CPU features (detected by internal/cpu, as for package hashing):
// the classification of a window of input by string-ending and high bytes
// (SSE2, or AVX-512 BW), the UTF-8 check of strings (unicode/utf8 per
// string, or the lookup method of utf8_lookup.go in SSSE3 or AVX-512 BW),
// the whitespace compression above (AVX-512 VBMI2), the ordering of
// objects of 9 to 16 members (a rank by AVX-512 F compares instead of an
// insertion sort), in the engine, the runs of \" and \\ escapes in a
// string (JSON text held in a string), passed 64 bytes per step (AVX-512 F
// and BW), and the check of input that is already canonical: a walk from
// token to token (quick.go), or, on inputs up to 64 KiB where AVX-512 VBMI2
// is, an index of the input's quotes and structural characters made 64
// bytes at a time and then walked (index.go), each Canonicalizer choosing
// between the two by its last input. All give the same output and
// the same errors. Nothing user-facing forces one; bbdigest cpu reports
// those in force. Tests force each through the module's registry of
// kernels (internal/impl, where canon registers the kernels classify,
// utf8, minify, quick, rank and escrun; see impl.go), run per-path tests
// under every available implementation with impltest.ForEach, and fail
// rather than skip an implementation named in BBDIGEST_REQUIRE_CANON
// (classify-avx512, utf8-ssse3, utf8-avx512, minify-avx512,
// quick-index-avx512, quick-adaptive, rank-avx512, escrun-avx512). The purego build tag, or an
// architecture other than amd64, leaves the portable Go alone (the files
// named _noasm.go).
//
// # Errors
//
// Every rejection is a *[Error] carrying a [Class], the byte offset in the
// input and the JSON Pointer (RFC 6901) of the value being read. The class
// names (syntax, invalid-utf8, duplicate-name, unpaired-surrogate,
// non-integer, unsafe-integer, number-range, depth, too-large) are API and
// never change; the message text may. Each class has a sentinel, so
// errors.Is(err, canon.ErrDuplicateName) works, and
// errors.AsType[*canon.Error](err) returns the details.
//
// # Security
//
// No input causes a panic, a stack overflow or unbounded memory: depth is
// bounded before a container is entered, and input size by
// [Profile.MaxSize] ([DefaultMaxSize] unless set, [MaxSizeLimit] at most),
// checked before any work (and, by [Canonicalizer.Transcode], while
// reading, so that rejecting a longer stream holds little more than the
// bound). Memory is linear in the input: with the predefined depth bounds a
// call's peak memory, the input and the output included, stays within 7
// times the input. An object of millions of short names, the costliest
// shape per byte of input, takes about 4.5 times (16 bytes for each member
// and 4 for its place in the sorted order); such objects nested 1000 deep,
// 6.5 times; numbers written longer than they are read (1e20 becomes 21
// digits) about the output plus the input. Transcode holds one more copy of
// the input while it joins what it has read from a stream. Raising the
// depth bound with [Profile.WithMaxDepth] adds up to about 200 bytes per
// level of nesting that an input reaches.
//
// # Concurrency
//
// A [Canonicalizer] is not safe for concurrent use. The package-level
// functions are, and reuse pooled Canonicalizers.
package canon
