package receipt

// The high-water file PATH.hwm records the log's last acknowledged record
// (its seq, the log's length through its "\n", and the SHA-256 of its
// line), outside the log: a mark kept inside the log would go with the
// records it is there to vouch for. It follows ledger/bolt's high-water
// file (ledger/bolt/hwm.go).
//
// The file holds two slots, at offsets 0 and markSlotStride (different
// disk sectors), each markSlotSize bytes: the magic "bbdRHW1\n", the seq
// and the size as big-endian u64, the 32 digest bytes, and the CRC-32C of
// those 56 bytes, big-endian. A write goes to the slot not holding the
// newest mark, in place, then fsync: a write torn by a crash damages only
// that slot, and the other still holds the previous mark, which the log
// is at or beyond (the group the torn write was recording had been
// synced to the log before it, and was never acknowledged). See
// markState.newest for what is read, and Log.recover for what Open
// accepts.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bbdigest/bbdigest/hashing"
	"github.com/bbdigest/bbdigest/internal/syncdir"
)

const (
	markMagic      = "bbdRHW1\n"
	markSlotSize   = 8 + 8 + 8 + 32 + 4 // magic, seq, size, digest, CRC-32C
	markSlotStride = 512
	markFileSize   = markSlotStride + markSlotSize
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Mark is a receipt log's high-water mark: its last acknowledged record,
// the one whose Append returned last. The Log keeps it in the high-water
// file beside the log (MarkPath), updated after each group of records is
// synced to the log and before their Appends return, so every
// acknowledged record is at or below it, and a record above it was never
// acknowledged. ReadMark reads it; VerifyOptions.Mark checks a log
// against it.
type Mark struct {
	Seq    uint64         // the record's seq; 0 for a log with no acknowledged record
	Size   int64          // the log's length through the record's "\n"; 0 with Seq 0
	Digest hashing.Digest // SHA-256 of the record's line (Summary.Last); zero with Seq 0
}

// valid reports whether m is a mark a Log could have written.
func (m Mark) valid() bool {
	if m.Seq == 0 {
		return m.Size == 0 && m.Digest == (hashing.Digest{})
	}
	// The shortest line a record can have is far longer than one byte:
	// Size > Seq is all that is worth checking without the file.
	return m.Seq <= maxSafe && m.Size > int64(m.Seq) && m.Size < 1<<62
}

// MarkPath returns the path of the high-water file of the receipt log at
// logPath: logPath + ".hwm", beside it, with the log's name as given (a
// symbolic link is not followed: open a log by one name).
func MarkPath(logPath string) string { return logPath + ".hwm" }

func encodeMarkSlot(b []byte, m Mark) {
	copy(b, markMagic)
	binary.BigEndian.PutUint64(b[8:], m.Seq)
	binary.BigEndian.PutUint64(b[16:], uint64(m.Size))
	copy(b[24:56], m.Digest[:])
	binary.BigEndian.PutUint32(b[56:], crc32.Checksum(b[:56], castagnoli))
}

func decodeMarkSlot(b []byte) (Mark, bool) {
	var m Mark
	if len(b) < markSlotSize || string(b[:8]) != markMagic ||
		binary.BigEndian.Uint32(b[56:]) != crc32.Checksum(b[:56], castagnoli) {
		return m, false
	}
	size := binary.BigEndian.Uint64(b[16:])
	if size >= 1<<62 {
		return m, false
	}
	m.Seq, m.Size = binary.BigEndian.Uint64(b[8:]), int64(size)
	copy(m.Digest[:], b[24:56])
	return m, m.valid()
}

// markState is what a high-water file holds.
type markState struct {
	exists bool
	valid  [2]bool
	mark   [2]Mark
}

// readMarkState reads the high-water file at path. A missing file is not
// an error (exists is false); an unreadable one is. It reads at most
// markFileSize bytes.
func readMarkState(path string) (markState, error) {
	var s markState
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	defer f.Close()
	s.exists = true
	b := make([]byte, markFileSize)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return s, err
	}
	for i := range 2 {
		if off := i * markSlotStride; off+markSlotSize <= n {
			s.mark[i], s.valid[i] = decodeMarkSlot(b[off:])
		}
	}
	return s, nil
}

// newest returns the newest valid mark and its slot. Two valid slots of
// one seq must hold the same mark: a Log never writes two marks of one
// seq, but for the previous mark written again after a failed write
// (markFile.restore); two that differ are damage, and not ok.
func (s markState) newest() (m Mark, slot int, ok bool) {
	switch {
	case s.valid[0] && s.valid[1] && s.mark[0].Seq == s.mark[1].Seq:
		return s.mark[0], 0, s.mark[0] == s.mark[1]
	case s.valid[0] && (!s.valid[1] || s.mark[0].Seq > s.mark[1].Seq):
		return s.mark[0], 0, true
	case s.valid[1]:
		return s.mark[1], 1, true
	}
	return m, 0, false
}

// ReadMark reads the high-water mark from the high-water file at path
// (MarkPath of the log's path): the newer of its two slots that is
// intact. It fails with an error wrapping fs.ErrNotExist when there is no
// such file, and with one wrapping ErrMark when neither slot is intact, or
// the two hold different marks of one seq.
func ReadMark(path string) (Mark, error) {
	s, err := readMarkState(path)
	if err != nil {
		return Mark{}, fmt.Errorf("receipt: high-water file %s: %w", path, pathError(path, err))
	}
	if !s.exists {
		return Mark{}, fmt.Errorf("receipt: high-water file %s: %w", path, fs.ErrNotExist)
	}
	m, _, ok := s.newest()
	if !ok {
		return Mark{}, fmt.Errorf("%w: %s is damaged: neither of its two slots holds a mark", ErrMark, path)
	}
	return m, nil
}

// pathError returns err without its path when it is a *fs.PathError about
// path, which the message that wraps it already names.
func pathError(path string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok && pe.Path == path {
		return pe.Err
	}
	return err
}

// markFile is an open high-water file.
type markFile struct {
	f      *os.File
	path   string
	newest int  // the slot holding cur: the next write goes to the other
	cur    Mark // the newest mark, on disk
	buf    [markSlotSize]byte
	// Test hooks: writeAt and sync, if not nil, replace the file's
	// WriteAt and fsync.
	writeAt func(b []byte, off int64) error
	sync    func() error
}

// createMark creates the high-water file at path, which must not exist,
// with both slots holding the zero Mark (a new, empty log), and syncs it
// and its directory.
func createMark(path string) (*markFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	b := make([]byte, markFileSize)
	encodeMarkSlot(b, Mark{})
	encodeMarkSlot(b[markSlotStride:], Mark{})
	if _, err = f.WriteAt(b, 0); err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = syncdir.Sync(filepath.Dir(path))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &markFile{f: f, path: path}, nil
}

// rewriteMark opens the existing high-water file at path, whose slots are
// damaged, and writes the zero Mark in both, synced: a new, empty log
// whose creation a crash cut short.
func rewriteMark(path string) (*markFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	b := make([]byte, markFileSize)
	encodeMarkSlot(b, Mark{})
	encodeMarkSlot(b[markSlotStride:], Mark{})
	if _, err = f.WriteAt(b, 0); err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &markFile{f: f, path: path}, nil
}

// openMark opens the existing high-water file at path for writing; slot
// holds m, its newest mark.
func openMark(path string, slot int, m Mark) (*markFile, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return &markFile{f: f, path: path, newest: slot, cur: m}, nil
}

// write records m in the slot not holding the newest mark and syncs it;
// m becomes the newest. If it fails, that slot may hold m, the previous
// mark or neither (see restore), and the newest is unchanged.
func (h *markFile) write(m Mark) error {
	if err := h.put(1-h.newest, m); err != nil {
		return err
	}
	h.newest, h.cur = 1-h.newest, m
	return nil
}

// restore writes the newest mark again in the other slot, which a failed
// write may have left holding a mark that was never acknowledged, and
// syncs it.
func (h *markFile) restore() error { return h.put(1-h.newest, h.cur) }

func (h *markFile) put(slot int, m Mark) error {
	b := h.buf[:] // not on the stack: WriteAt's argument escapes
	encodeMarkSlot(b, m)
	var err error
	if h.writeAt != nil {
		err = h.writeAt(b, int64(slot*markSlotStride))
	} else {
		_, err = h.f.WriteAt(b, int64(slot*markSlotStride))
	}
	if err != nil {
		return err
	}
	if h.sync != nil {
		return h.sync()
	}
	return syncdir.Data(h.f) // the slot is written in place: no journal commit for the mtime
}

func (h *markFile) close() error { return h.f.Close() }
