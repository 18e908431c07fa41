package bbdigest

import (
	"sync"

	"github.com/bbdigest/bbdigest/canon"
)

var digesters sync.Pool

func getDigester(p canon.Profile) *Digester {
	if d, ok := digesters.Get().(*Digester); ok {
		d.c.Reset(p)
		return d
	}
	return NewDigester(p)
}

// maxPooledOutput bounds the scratch memory a pooled Digester keeps.
const maxPooledOutput = 1 << 20

func putDigester(d *Digester) {
	if d.c.ArenaSize() > maxPooledOutput {
		return
	}
	digesters.Put(d)
}
