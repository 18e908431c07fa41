package escbits

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestMasksGuardPage runs every implementation on the last l bytes before
// a page that cannot be read, for every l: a read past p+l faults.
func TestMasksGuardPage(t *testing.T) {
	page := unix.Getpagesize()
	mem, err := unix.Mmap(-1, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer unix.Munmap(mem)
	if err := unix.Mprotect(mem[page:], unix.PROT_NONE); err != nil {
		t.Skip("mprotect:", err)
	}
	for k := range page {
		mem[k] = "ab\"\\/\x01\xc3"[k%7]
	}
	for name, masks := range maskImpls(t) {
		for l := 1; l <= 64; l++ {
			b := mem[page-l : page]
			q, bs, sl, other := masks(&b[0], l)
			wq, wbs, wsl, wo := naiveMasks(b)
			if q != wq || bs != wbs || sl != wsl || other != wo {
				t.Fatalf("%s: l=%d at the guard page: %x %x %x %x, want %x %x %x %x", name, l, q, bs, sl, other, wq, wbs, wsl, wo)
			}
		}
	}
}
