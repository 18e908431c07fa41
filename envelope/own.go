package envelope

// The memory of an Envelope made by Parse. Allocating costs by the byte
// here (the heap grows, the garbage collector runs and gives pages back,
// the pages fault in again), and by the object (each pointer-bearing
// object is zeroed and its heap bits written): Parse used five objects,
// the Envelope, its text, its options and its two string slices (1520
// bytes for the §6.4 envelope). ownBlock puts them in one object whose
// size is a size class of the allocator, with the text in the tail that
// holds no pointers (so the collector never scans it).
//
// The text is written once, by newOwned, before any string is sliced out
// of it, and never again: the Envelope's canonical bytes and its strings
// are views of it (unsafe.String and unsafe.Slice over the same array),
// so they cannot change apart (TestEnvelopeImmutable,
// TestParseIntoAfterParseKeepsStrings). ParseInto into such an Envelope
// later reuses the backing of its options and string slices, which the
// Envelope never hands out (Options, Findings and Recommendations copy),
// and drops its text: canonical is set to other memory, never written
// through.

import "unsafe"

// stringsInline is the number of findings, and of recommendations, that
// an Envelope from Parse holds without allocating again.
const stringsInline = 4

// ownBlock is the one allocation of Parse: the Envelope, the backing of
// its options and string slices, and its text, a [N]byte.
type ownBlock[T any] struct {
	e    Envelope
	opts [maxOptions]Option
	strs [2 * stringsInline]string
	text T
}

// ownHead is the size of an ownBlock before its text; mallocHeader is the
// header the allocator puts before an object of more than 512 bytes that
// holds pointers (a type pointer). ownText(c) is the text that fits in an
// object of size class c.
const (
	ownHead      = unsafe.Offsetof(ownBlock[[0]byte]{}.text)
	mallocHeader = unsafe.Sizeof(uintptr(0))
)

// The text capacities of the ownBlocks: size classes of the Go allocator
// (runtime/sizeclasses.go) minus ownHead and mallocHeader, so that a block
// wastes at most the gap to the next class (12% at most, and at most the
// text's own rounding up).
const (
	own896  = 896 - ownHead - mallocHeader
	own1024 = 1024 - ownHead - mallocHeader
	own1152 = 1152 - ownHead - mallocHeader
	own1280 = 1280 - ownHead - mallocHeader
	own1408 = 1408 - ownHead - mallocHeader
	own1536 = 1536 - ownHead - mallocHeader
	own1792 = 1792 - ownHead - mallocHeader
	own2048 = 2048 - ownHead - mallocHeader
	own2304 = 2304 - ownHead - mallocHeader
	own2688 = 2688 - ownHead - mallocHeader
	own3072 = 3072 - ownHead - mallocHeader
	own3456 = 3456 - ownHead - mallocHeader
	own4096 = 4096 - ownHead - mallocHeader
	own4864 = 4864 - ownHead - mallocHeader
	own5376 = 5376 - ownHead - mallocHeader
	own6144 = 6144 - ownHead - mallocHeader
	own6912 = 6912 - ownHead - mallocHeader
	own8192 = 8192 - ownHead - mallocHeader
)

// newOwned returns a new Envelope for the canonical envelope b, with its
// slices' backing in place, and a string holding b's bytes (its text) in
// the same allocation when b is at most a few KiB, else in one of its own.
func newOwned(b []byte) (*Envelope, string) {
	switch n := uintptr(len(b)); {
	case n <= own896:
		return newOwn[[own896]byte](b)
	case n <= own1024:
		return newOwn[[own1024]byte](b)
	case n <= own1152:
		return newOwn[[own1152]byte](b)
	case n <= own1280:
		return newOwn[[own1280]byte](b)
	case n <= own1408:
		return newOwn[[own1408]byte](b)
	case n <= own1536:
		return newOwn[[own1536]byte](b)
	case n <= own1792:
		return newOwn[[own1792]byte](b)
	case n <= own2048:
		return newOwn[[own2048]byte](b)
	case n <= own2304:
		return newOwn[[own2304]byte](b)
	case n <= own2688:
		return newOwn[[own2688]byte](b)
	case n <= own3072:
		return newOwn[[own3072]byte](b)
	case n <= own3456:
		return newOwn[[own3456]byte](b)
	case n <= own4096:
		return newOwn[[own4096]byte](b)
	case n <= own4864:
		return newOwn[[own4864]byte](b)
	case n <= own5376:
		return newOwn[[own5376]byte](b)
	case n <= own6144:
		return newOwn[[own6144]byte](b)
	case n <= own6912:
		return newOwn[[own6912]byte](b)
	case n <= own8192:
		return newOwn[[own8192]byte](b)
	}
	e, _ := newOwn[[0]byte](nil)
	return e, string(b)
}

// newOwn is newOwned with the text in an ownBlock whose text is T, a
// [N]byte with N >= len(b).
func newOwn[T any](b []byte) (*Envelope, string) {
	k := new(ownBlock[T])
	k.e.options = k.opts[:0]
	k.e.findings = k.strs[:0:stringsInline]
	k.e.recommendations = k.strs[stringsInline:stringsInline:len(k.strs)]
	if len(b) == 0 {
		return &k.e, ""
	}
	text := unsafe.Slice((*byte)(unsafe.Pointer(&k.text)), unsafe.Sizeof(k.text))
	if copy(text, b) != len(b) {
		panic("envelope: newOwn: text larger than its block") // newOwned chose T
	}
	return &k.e, unsafe.String(&text[0], len(b))
}
