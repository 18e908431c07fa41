package bbdigest

import (
	"sync"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/poolcap"
)

var digesters sync.Pool

func getDigester(p canon.Profile) *Digester {
	if d, ok := digesters.Get().(*Digester); ok {
		d.c.Reset(p)
		return d
	}
	return NewDigester(p)
}

// putDigester pools d unless its scratch memory is past poolcap.Max.
func putDigester(d *Digester) {
	if !poolcap.Keep(poolcap.CanonArena(&d.c)) {
		return
	}
	digesters.Put(d)
}
