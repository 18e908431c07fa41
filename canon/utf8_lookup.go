package canon

// NOTE: UTF-8 validation by table lookup.
//
// The amd64 scanner checks the UTF-8 of a whole classification window at
// once, sixteen bytes per step with SSSE3 (utf8BlocksSSSE3) or sixty-four
// with AVX-512 BW (utf8BlocksAVX512), with the lookup method of Keiser and
// Lemire ("Validating UTF-8 in less than one instruction per byte",
// 2021). Every way a byte stream can fail to be UTF-8 shows in a pair of
// adjacent bytes (the byte before, prev1, and the current byte), except
// one: a lead byte of a three- or four-byte sequence must be followed by
// two or three continuation bytes, which is checked from the bytes two and
// three back.
//
// For the pair check, three 16-entry tables map the high nibble of prev1,
// the low nibble of prev1 and the high nibble of the current byte to sets of
// error kinds (one bit each); a pair is ill-formed exactly when the three
// sets share a bit. The pair table marks "continuation after a continuation"
// (twoConts) as an error as well; that pair is legitimate exactly when the
// byte two back leads a three-byte sequence or the byte three back a
// four-byte one, so the final error for a byte is
//
//	special(prev1, cur) XOR 0x80·[prev2 >= 0xE0 or prev3 >= 0xF0]
//
// and the stream is valid iff every byte's error is zero. An error is
// reported at the byte where it becomes visible: a truncated sequence at the
// byte after it, a stray continuation at itself, an overlong, surrogate or
// too-large sequence at its second byte. So an ill-formed string always shows
// an error at one of its own bytes or at the ASCII byte that ends it, which
// is all the scanner needs (see classWindow.validBody in scan_amd64.go).
//
// The tables are checked exhaustively against unicode/utf8 by
// TestUTF8LookupModel on every short sequence, and both kernels against the
// Go model (utf8LookupModel in the tests) on random input (TestUTF8Blocks,
// FuzzUTF8Blocks) and on every ill-formed sequence placed across every 16-
// and 64-byte boundary (TestUTF8BlocksBoundaries).

// Error kinds of the lookup tables, one bit each.
const (
	u8TooShort  = 1 << 0 // a lead byte not followed by a continuation: 11______ 0_______, 11______ 11______
	u8TooLong   = 1 << 1 // a continuation after ASCII: 0_______ 10______
	u8Overlong3 = 1 << 2 // 11100000 100_____
	u8TooLarge  = 1 << 3 // 11110100 1001____, 11110100 101_____, 11110101-11111111 1001____/101_____
	u8Surrogate = 1 << 4 // 11101101 101_____
	u8Overlong2 = 1 << 5 // 1100000_ 10______
	u8TooLarge1 = 1 << 6 // 11110101-11111111 1000____
	u8TwoConts  = 1 << 7 // 10______ 10______ (legitimate inside a 3- or 4-byte sequence)
	u8Overlong4 = 1 << 6 // 11110000 1000____ (shares a bit with u8TooLarge1: no lead byte has both)
	u8Carry     = u8TooShort | u8TooLong | u8TwoConts
)

// utf8Lookup holds the three tables and the constants of the assembly, in
// the order it loads them (16 bytes each).
var utf8Lookup = [7][16]byte{
	// 0: by the high nibble of prev1.
	{
		u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, u8TooLong, // 0_______
		u8TwoConts, u8TwoConts, u8TwoConts, u8TwoConts, // 10______
		u8TooShort | u8Overlong2,                            // 1100____
		u8TooShort,                                          // 1101____
		u8TooShort | u8Overlong3 | u8Surrogate,              // 1110____
		u8TooShort | u8TooLarge | u8TooLarge1 | u8Overlong4, // 1111____
	},
	// 1: by the low nibble of prev1.
	{
		u8Carry | u8Overlong3 | u8Overlong2 | u8Overlong4, // ____0000
		u8Carry | u8Overlong2,                             // ____0001
		u8Carry,                                           // ____0010
		u8Carry,                                           // ____0011
		u8Carry | u8TooLarge,                              // ____0100
		u8Carry | u8TooLarge | u8TooLarge1,                // ____0101
		u8Carry | u8TooLarge | u8TooLarge1,                // ____0110
		u8Carry | u8TooLarge | u8TooLarge1,                // ____0111
		u8Carry | u8TooLarge | u8TooLarge1,                // ____1000
		u8Carry | u8TooLarge | u8TooLarge1,                // ____1001
		u8Carry | u8TooLarge | u8TooLarge1,                // ____1010
		u8Carry | u8TooLarge | u8TooLarge1,                // ____1011
		u8Carry | u8TooLarge | u8TooLarge1,                // ____1100
		u8Carry | u8TooLarge | u8TooLarge1 | u8Surrogate,  // ____1101
		u8Carry | u8TooLarge | u8TooLarge1,                // ____1110
		u8Carry | u8TooLarge | u8TooLarge1,                // ____1111
	},
	// 2: by the high nibble of the current byte.
	{
		u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, u8TooShort, // 0_______
		u8TooLong | u8Overlong2 | u8TwoConts | u8Overlong3 | u8TooLarge1 | u8Overlong4, // 1000____
		u8TooLong | u8Overlong2 | u8TwoConts | u8Overlong3 | u8TooLarge,                // 1001____
		u8TooLong | u8Overlong2 | u8TwoConts | u8Surrogate | u8TooLarge,                // 1010____
		u8TooLong | u8Overlong2 | u8TwoConts | u8Surrogate | u8TooLarge,                // 1011____
		u8TooShort, u8TooShort, u8TooShort, u8TooShort, // 11______
	},
	{0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F}, // 3: nibble mask
	{0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60, 0x60}, // 4: 0xE0-0x80
	{0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70}, // 5: 0xF0-0x80
	{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80}, // 6: bit 7
}
