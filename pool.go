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

// putDigester pools d unless its Canonicalizer is past the pools' bound.
func putDigester(d *Digester) {
	if !d.c.Poolable() {
		return
	}
	digesters.Put(d)
}
