package shortread

import (
	"io"
	"testing"
)

func TestReader(t *testing.T) {
	data := []byte("0123456789abcdefghij")
	r := New(data, []byte{0, 2, 0x80 | 15})
	var got []byte
	var sizes []int
	for {
		buf := make([]byte, 64)
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		if n > 0 {
			sizes = append(sizes, n)
		}
		if err == io.EOF {
			break
		}
	}
	if string(got) != string(data) {
		t.Fatalf("read %q", got)
	}
	want := []int{1, 3, 16}
	if len(sizes) != len(want) {
		t.Fatalf("read sizes %v, want %v", sizes, want)
	}
	for i := range want {
		if sizes[i] != want[i] {
			t.Fatalf("read sizes %v, want %v", sizes, want)
		}
	}
}
