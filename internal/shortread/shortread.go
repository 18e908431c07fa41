// Package shortread is a test helper: an io.Reader that returns its data in
// reads of sizes a fuzz input chooses, so that read boundaries fall inside
// multi-byte characters, escapes, numbers and records anywhere.
package shortread

import "io"

// Reader returns data in reads of the sizes sizes gives in turn (1 to 16
// bytes, from the low four bits of each byte, cycling), and the last data
// with io.EOF when the size byte that ends it has its high bit set
// (otherwise io.EOF comes on the next call).
type Reader struct {
	data  []byte
	sizes []byte
	i     int
}

// New returns a Reader of data, cut as sizes says.
func New(data, sizes []byte) *Reader { return &Reader{data: data, sizes: sizes} }

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	s := byte(0)
	if len(r.sizes) > 0 {
		s = r.sizes[r.i%len(r.sizes)]
		r.i++
	}
	n := copy(p[:min(len(p), int(s&15)+1)], r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 && s&0x80 != 0 {
		return n, io.EOF
	}
	return n, nil
}
