package bolt

// The high-water file PATH.hwm records the bbolt transaction id of the last
// commit a Ledger made, outside bbolt's pages: a mark stored in the
// database would roll back with the meta page it hangs from. On open the
// ledger refuses a file whose current transaction is below the mark.
//
// The file holds two slots, at offsets 0 and hwmSlotStride (different disk
// sectors), each 20 bytes: the magic "bbdHWM1\n", the txid as a big-endian
// u64, and the CRC-32C of those 16 bytes, big-endian. A write goes to the
// slot not holding the newest mark, in place, then fsync: a write torn by a
// crash damages only that slot, and the other still holds the previous
// mark, which is below the database's txid (the commit it was recording
// had completed). See hwmState.check for what open accepts.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bbdigest/bbdigest/internal/syncdir"
)

const (
	hwmMagic      = "bbdHWM1\n"
	hwmSlotSize   = 20
	hwmSlotStride = 512
	hwmFileSize   = hwmSlotStride + hwmSlotSize
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func encodeHWMSlot(b []byte, txid uint64) {
	copy(b, hwmMagic)
	binary.BigEndian.PutUint64(b[8:], txid)
	binary.BigEndian.PutUint32(b[16:], crc32.Checksum(b[:16], castagnoli))
}

func decodeHWMSlot(b []byte) (uint64, bool) {
	if len(b) < hwmSlotSize || string(b[:8]) != hwmMagic ||
		binary.BigEndian.Uint32(b[16:]) != crc32.Checksum(b[:16], castagnoli) {
		return 0, false
	}
	return binary.BigEndian.Uint64(b[8:]), true
}

// hwmState is what the high-water file holds.
type hwmState struct {
	exists bool
	valid  [2]bool
	txid   [2]uint64
}

// readHWM reads the high-water file at path. A missing file is not an
// error (exists is false); an unreadable one is.
func readHWM(path string) (hwmState, error) {
	var s hwmState
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	s.exists = true
	for i := range 2 {
		if off := i * hwmSlotStride; off+hwmSlotSize <= len(b) {
			s.txid[i], s.valid[i] = decodeHWMSlot(b[off:])
		}
	}
	return s, nil
}

// newest returns the highest valid mark and its slot.
func (s hwmState) newest() (txid uint64, slot int, ok bool) {
	for i := range 2 {
		if s.valid[i] && (!ok || s.txid[i] > txid) {
			txid, slot, ok = s.txid[i], i, true
		}
	}
	return txid, slot, ok
}

// check decides whether a database whose current transaction is txid may
// be used with this high-water file, for a database that has committed
// transactions (txid > 1; a fresh one is decided by the caller). It
// returns "" to accept, else the reason to refuse:
//
//   - no file: it was deleted, or the ledger was written by a version of
//     bbdigest that kept none;
//   - both slots valid: txid must be at least the higher mark;
//   - one slot valid, holding m: a write torn by a crash, which happens
//     only after the commit it records, so txid must exceed m. A txid equal
//     to m cannot be told from a damaged newest slot together with a
//     rolled-back database, so it is refused;
//   - no slot valid: refused.
func (s hwmState) check(txid uint64, path string) string {
	if !s.exists {
		return fmt.Sprintf("the high-water file %s is missing (deleted, or the ledger was written by an older bbdigest, which kept none)", path)
	}
	mark, _, ok := s.newest()
	switch {
	case !ok:
		return fmt.Sprintf("the high-water file %s is damaged", path)
	case s.valid[0] && s.valid[1] && txid < mark:
		return fmt.Sprintf("bbolt transaction %d is below the high-water mark %d in %s: the ledger was rolled back (a damaged newest meta page, or an older copy of the file)", txid, mark, path)
	case !(s.valid[0] && s.valid[1]) && txid <= mark:
		return fmt.Sprintf("the high-water file %s has a damaged slot and bbolt transaction %d is not above its other mark %d: the ledger or the file was damaged or rolled back", path, txid, mark)
	}
	return ""
}

// hwmFile is an open high-water file.
type hwmFile struct {
	f      *os.File
	path   string
	newest int  // the slot holding the newest mark: the next write goes to the other
	noSync bool // skip fsync (only where the database is NoSync too: benchmarks)
	// sync, if not nil, replaces the file's fdatasync (tests: failures,
	// and holding a group commit at its high-water update).
	sync func() error
}

// createHWM creates or truncates the high-water file at path, with both
// slots holding txid, syncs it and its directory.
func createHWM(path string, txid uint64) (*hwmFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	b := make([]byte, hwmFileSize)
	encodeHWMSlot(b, txid)
	encodeHWMSlot(b[hwmSlotStride:], txid)
	if _, err := f.WriteAt(b, 0); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if err := syncdir.Sync(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, err
	}
	return &hwmFile{f: f, path: path, newest: 0}, nil
}

// openHWM opens the existing high-water file at path for writing; newest is
// the slot holding the newest mark.
func openHWM(path string, newest int) (*hwmFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return &hwmFile{f: f, path: path, newest: newest}, nil
}

// write records txid in the slot not holding the newest mark and syncs
// it. If it fails, the slot written may be damaged; the next write goes to
// the same slot again.
func (h *hwmFile) write(txid uint64) error {
	slot := 1 - h.newest
	var b [hwmSlotSize]byte
	encodeHWMSlot(b[:], txid)
	if _, err := h.f.WriteAt(b[:], int64(slot*hwmSlotStride)); err != nil {
		return err
	}
	switch {
	case h.sync != nil:
		if err := h.sync(); err != nil {
			return err
		}
	case !h.noSync:
		if err := syncdir.Data(h.f); err != nil { // written in place: no journal commit for the mtime
			return err
		}
	}
	h.newest = slot
	return nil
}

func (h *hwmFile) close() error { return h.f.Close() }
