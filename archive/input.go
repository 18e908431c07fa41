package archive

// The inputs of Rehash and Verify: a file, an fs.FS's file or a reader,
// read as it is or, when its first bytes are the magic number of gzip or
// zstd, through the decompressor of github.com/klauspost/compress, as a
// stream (no temporary file). Whatever a compressed input expands to,
// memory stays bounded: the records are cut from the stream by batch with
// its per-record bound, and the zstd window is limited (zstdMaxWindow).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// The magic numbers: gzip (RFC 1952: ID1, ID2 and CM 8, deflate) and a
// zstd frame (RFC 8878). A JSON text cannot start with either (0x1f and
// 0x28 0xb5 are not JSON), so no plain archive is taken for a compressed
// one, but for a first line that is not JSON anyway.
var (
	gzipMagic = []byte{0x1f, 0x8b, 0x08}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// zstdMaxWindow is the largest zstd window accepted: a frame that needs a
// larger one (zstd --ultra -20 and up, --long=26 and up) is refused with
// an I/O error rather than given that much memory. Every level up to 19
// uses 8 MiB at most.
const zstdMaxWindow = 32 << 20

// archiveReadSize is the size of the reads from a decompressor that make
// the blocks of batch: a decompressor returns a little at a time, and a
// block goes to the workers after every read.
const archiveReadSize = 256 << 10

// archiveInBufs keeps the read buffers of the inputs that are closed, for
// the next input in the process (see lineStreamBufs).
var archiveInBufs = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// Input is one input of a run: a JSON Lines archive, plain, gzip or zstd
// (recognized by its first bytes).
type Input struct {
	// Name names the input in the result lines ("file", with several
	// inputs), the Summary, the errors, and OutFile's sidecar, which a
	// run with Resume must be given again.
	Name string

	// Open opens the input, once to answer it, and for a Shard of a
	// compressed input once more before, to measure the size it
	// decompresses to. When what it returns has a Stat method (an
	// *os.File, an fs.File) that reports a regular file, its size is
	// the input's raw size (progress, plain shards); a Shard of a plain
	// input needs one.
	Open func() (io.ReadCloser, error)

	path string // the file's path, for File inputs: OutFile must not be one
}

// File returns the Input of the file at path, named path.
func File(path string) Input {
	return Input{Name: path, path: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// FileFS returns the Input of the file name in fsys, named name.
func FileFS(fsys fs.FS, name string) Input {
	return Input{Name: name, Open: func() (io.ReadCloser, error) { return fsys.Open(name) }}
}

// Reader returns an Input named name that reads r, which is never closed
// (standard input, say). It can be opened once: a Shard, which needs the
// size of the input, needs a file.
func Reader(name string, r io.Reader) Input {
	var opened atomic.Bool
	return Input{Name: name, Open: func() (io.ReadCloser, error) {
		if opened.Swap(true) {
			return nil, errReadOnce
		}
		return io.NopCloser(r), nil
	}}
}

// errReadOnce is the error of a second Open of a Reader.
var errReadOnce = errors.New("a reader can be read once")

// archiveInput is one opened input.
type archiveInput struct {
	in          Input
	compression string       // "none", "gzip" or "zstd"
	rawSize     int64        // the size of a regular file; -1 for anything else
	rawRead     atomic.Int64 // bytes read from the file or stdin so far
	r           io.Reader    // the JSON Lines, decompressed
	closers     []func()
}

// openInput opens the input in and detects its compression. Once ctx is
// done, reading the input fails with ctx's error (at the next read of
// the file or stdin: one that waits for input goes on waiting). The
// caller must call close.
func openInput(ctx context.Context, input Input) (*archiveInput, error) {
	in := &archiveInput{in: input, compression: "none", rawSize: -1}
	f, err := input.Open()
	if err != nil {
		return nil, err
	}
	in.closers = append(in.closers, func() { f.Close() })
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			in.rawSize = fi.Size()
		}
	}
	var raw io.Reader = f
	br := archiveInBufs.Get().(*bufio.Reader)
	br.Reset(&countingReader{r: ctxReader{ctx, raw}, n: &in.rawRead})
	in.closers = append(in.closers, func() {
		br.Reset(nil)
		archiveInBufs.Put(br)
	})
	magic, err := br.Peek(len(zstdMagic))
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		in.close()
		return nil, err
	}
	switch {
	case bytes.HasPrefix(magic, gzipMagic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			in.close()
			return nil, decompressError{"gzip", err}
		}
		in.compression, in.r = "gzip", fillReader{decompressReader{"gzip", zr}}
	case bytes.HasPrefix(magic, zstdMagic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderLowmem(true))
		if err != nil {
			in.close()
			return nil, decompressError{"zstd", err}
		}
		in.closers = append(in.closers, zr.Close)
		in.compression, in.r = "zstd", fillReader{decompressReader{"zstd", zr}}
	default:
		in.r = fillReader{br}
	}
	return in, nil
}

// close releases the input's file and decompressor.
func (in *archiveInput) close() {
	for i := len(in.closers) - 1; i >= 0; i-- {
		in.closers[i]()
	}
	in.closers = nil
}

// countingReader counts the bytes read through it in n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// fillReader reads until p is full, the input ends or fails, so that the
// blocks of batch are full ones.
type fillReader struct{ r io.Reader }

func (f fillReader) Read(p []byte) (int, error) {
	p = p[:min(len(p), archiveReadSize)]
	n := 0
	for n < len(p) {
		k, err := f.r.Read(p[n:])
		n += k
		if err != nil {
			return n, err
		}
		if k == 0 {
			return n, nil // let the caller count reads that return nothing
		}
	}
	return n, nil
}

// decompressReader names the decompressor in its errors.
type decompressReader struct {
	kind string
	r    io.Reader
}

func (d decompressReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = decompressError{d.kind, err}
	}
	return n, err
}

// decompressError is an error of a decompressor: corrupt or truncated
// data, or a zstd window over zstdMaxWindow.
type decompressError struct {
	kind string
	err  error
}

func (e decompressError) Error() string {
	msg := e.err.Error()
	switch {
	case errors.Is(e.err, io.ErrUnexpectedEOF):
		msg = "the compressed stream is cut short"
	case errors.Is(e.err, zstd.ErrWindowSizeExceeded), errors.Is(e.err, zstd.ErrDecoderSizeExceeded):
		msg = "the frame needs a window over the " + strconv.Itoa(zstdMaxWindow>>20) + " MiB bound"
	}
	if !strings.HasPrefix(msg, e.kind+":") {
		msg = e.kind + ": " + msg
	}
	return msg
}

func (e decompressError) Unwrap() error { return e.err }

// ctxReader ends its input with ctx's error once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
