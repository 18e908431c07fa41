// Package archive re-hashes and verifies JSON Lines archives on every core,
// for auditors who check years of receipts: [Rehash] answers every line of
// its inputs with the digest of its canonical form (or why it is
// rejected), [Verify] checks the digest each record claims, and both
// return a [Summary] of the run. It is what the bbdigest command's
// "archive rehash", "archive verify" and "archive join" run; its output is
// byte for byte theirs.
//
// It stands on package batch (the lines across the workers, in order, in
// bounded memory), canon and hashing, and on github.com/klauspost/compress
// for compressed inputs. A program that only canonicalizes or digests
// records it holds in memory wants package batch, not this one.
//
// # Result lines
//
// Every input line gets exactly one result line, in input order: blank
// lines, CRLF endings, invalid UTF-8, a missing final newline and a
// truncated last line included. From Rehash:
//
//	{"line":1,"digest":"sha256:aa58…"}
//	{"line":2,"error":{"class":"duplicate-name","offset":7,"pointer":"/a","message":"duplicate object member name \"a\""}}
//
// A rejection carries canon's class name, the byte offset in the line,
// the JSON pointer of the offending value and the message, in that order;
// a line longer than Options.MaxRecord is class too-large, unread, at the
// cost of the bound once. With several inputs each result line starts
// with "file", the input's Name, and lines count from 1 in each input.
// Every string is written as a JSON string with the characters a terminal
// interprets escaped as \uXXXX (a byte that is not UTF-8 as U+FFFD), so
// a result line is one line of inert text.
//
// Verify reads records {"digest":"sha256:<64 lowercase hex>","doc":<JSON>}
// in either member order, and answers "ok":true and the digest,
// "ok":false with the digest and the one "claimed" (class mismatch), or
// "ok":false with the rejection of doc (its offset counted from the start
// of the line, its pointer "/doc" and the pointer in doc). A record that
// is not such an object (another member, a name twice or escaped, a
// digest hashing.ParseDigest refuses) is class wrapper, with the pointer
// "": the record itself, read without decoding it, and the offset says
// where the reading stopped.
//
// # Inputs
//
// An [Input] is a name and a way to open it: [File], [FileFS], [Reader].
// gzip and zstd are recognized by their first bytes (which no JSON text
// starts with) and read as a stream, with no temporary file; the zstd
// window is capped at 32 MiB (a frame that needs more is refused rather
// than given the memory). Whatever an input expands to, memory stays flat:
// batch's blocks in flight (a few hundred KiB per worker), the buffers of
// the input and the output, the decompressor's window, and one line at
// most of Options.MaxRecord.
//
// # Resume
//
// With Options.OutFile the result lines go to a file that a run killed
// part-way can continue (Options.Resume), byte for byte the output of a
// run never stopped. Beside it the run keeps a sidecar, OutFile+".resume":
// the command and the options that change the answers, the input names,
// and a checkpoint (the result lines answered, the SHA-256 of the input
// bytes they answer, OutFile's length and SHA-256 there), written after
// OutFile is fsynced, so that it never records more than OutFile holds.
// Resume trusts no kept line: it computes the answers of the lines it
// skips again, on every worker, and keeps a line only if it is byte for
// byte the line this run writes there; anything else is a *ResumeError,
// and OutFile and its sidecar are left untouched. The sidecar is not
// authenticated, so rewriting it and OutFile can make Resume refuse, or
// compute more, but never finish OutFile with a line that a run over the
// inputs would not write. It does not vouch for the inputs themselves
// (compare the summary's EndSHA256), nor for OutFile once the run has
// ended (compare Summary.Output). When ctx is done, the run stops in
// order, OutFile and the sidecar synced, and returns an *InterruptedError.
//
// # Shards
//
// Options.Shard {I, N} answers the lines that start in the I-th of N byte
// ranges of one input (of its decompressed bytes, for a compressed input,
// which the shard decompresses once first to measure), numbered as in the
// whole input, so that the outputs of the N shards, concatenated in index
// order, are byte for byte the output of one run over the whole input. N
// processes need no coordination: the pods of a Kubernetes Indexed Job
// (cmd/bbdigest/kubernetes has its manifests), say. Each shard's
// Summary records its range and the SHA-256 of the input bytes before it
// and up to its end; [Join] checks that the summaries of the N shards
// cover the input exactly once, in order, all complete, each starting
// where the one before ended, on the same bytes, and combines them.
//
// # Errors
//
// A run reports the first failure it meets, after the result lines of the
// lines read before it: a *FileError for an input or OutFile that cannot
// be opened, read or decompressed, a *WriteError for result lines that
// cannot be written, a *ResumeError, an *InterruptedError. Its Summary is
// returned all the same, marked incomplete, but for a run refused before
// it started (see Rehash). A rejected line is not an error: it is answered,
// and counted in Summary.Failed by class.
//
// # Concurrency
//
// Rehash and Verify may run concurrently on different inputs and
// outputs; a Progress is read from any goroutine while its run goes on.
package archive
