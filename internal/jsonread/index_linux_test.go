//go:build linux

package jsonread

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestIndexGuardPage runs every path on inputs that end where an
// inaccessible page begins, every length to 100, with and without a match:
// a read past the slice faults.
func TestIndexGuardPage(t *testing.T) {
	mem, page := guardPage(t)
	for _, p := range indexPaths() {
		t.Run(p.name, func(t *testing.T) {
			if p.force != nil {
				p.force(t)
			}
			for n := 0; n <= 100; n++ {
				b := mem[page-n : page]
				for i := range b {
					b[i] = 'a'
				}
				if got := p.index(b); got != -1 {
					t.Fatalf("n=%d, no match: got %d", n, got)
				}
				if n > 0 {
					b[n-1] = '\\'
					if got := p.index(b); got != n-1 {
						t.Fatalf("n=%d, match last: got %d", n, got)
					}
					// A string that runs to the end: StringEnd reads
					// to the last byte and finds no end.
					b[0], b[n-1] = '"', 'a'
					if got, _ := StringEnd(b, 0); got != -1 {
						t.Fatalf("n=%d: StringEnd of an unterminated string: %d", n, got)
					}
				}
			}
		})
	}
}

// TestUnquoteGuardPage runs AppendUnquote's vector path on escaped strings
// that end where an inaccessible page begins, at every length to 130:
// its masked loads read no byte past the input.
func TestUnquoteGuardPage(t *testing.T) {
	if !useUnquoteAVX512 {
		t.Skip("no AVX-512 VBMI2 path on this CPU")
	}
	mem, page := guardPage(t)
	for n := 4; n <= 130; n++ {
		for _, closed := range []bool{true, false} {
			b := mem[page-n : page]
			b[0] = '"'
			for i := 1; i < n; i++ {
				b[i] = `\"ab`[(i-1)%4]
			}
			if closed {
				b[n-1] = '"'
				if b[n-2] == '\\' {
					b[n-2] = 'z'
				}
			}
			text, end := AppendUnquote(nil, b, 0)
			if closed != (end == n) || !closed && end != -1 {
				t.Fatalf("n=%d closed=%v: end %d, text %q", n, closed, end, text)
			}
		}
	}
}

// guardPage returns two pages of memory, the second inaccessible, and the
// page size: a slice that ends at mem[page] ends where a read past it
// faults. Both are unmapped when t ends.
func guardPage(t *testing.T) (mem []byte, page int) {
	page = unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	t.Cleanup(func() { unix.Munmap(mem) })
	if err := unix.Mprotect(mem[page:], unix.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	return mem, page
}
