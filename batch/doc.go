// Package batch canonicalizes and hashes many JSON records on every core,
// and answers each with one result, in input order.
//
// It is for hosts and auditors that re-hash archives: streams of JSON
// Lines holding envelopes, resolutions, tool-call acts and receipts,
// millions of small independent canonicalize-and-hash jobs. For one
// document, use canon and the root package's Digester instead.
//
// # Entry points
//
// [Stream] reads JSON Lines from an io.Reader and calls a function with
// each [Result]; [Lines] is the same as an iterator. [Records] answers
// records held in memory, and [Digests] is its simplest form: a slice in,
// a slice of results out. Each takes a context.Context and [Options]
// (profile, mode, workers, size bound, block size, the number of the
// first record), and every option's zero value is a sensible default.
// Options.Select digests a part of each record instead of the whole: the
// document of a record that wraps it with its claimed digest, say.
// Options.Check does more work on each accepted record on the workers,
// once it is canonicalized and hashed (package receipt verifies the
// signature of each receipt there), and its error answers the record.
//
// # Records and results
//
// Every record gets exactly one Result, and the results come in input
// order, numbered from 1: a bad record never stops the run, and none is
// dropped or merged. In a stream, a record is a line: the bytes before a
// "\n". A "\r" before the "\n" is part of the line, and is JSON
// whitespace; an empty line is answered (a syntax error at offset 0), and
// so is the last line when the input does not end with "\n", while an
// empty input has no lines. A line that is not a JSON text (cut short,
// ill-formed UTF-8, a duplicate name, a number the profile refuses, too
// deep) is answered with canon's error for it, its offset counted from the
// start of the line. A line longer than Options.MaxRecord (by default the
// profile's size bound, 256 MiB) is answered with class too-large. These
// are exactly the answers of the --lines mode of the bbdigest command,
// which prints them as
//
//	error CLASS OFFSET MESSAGE within "POINTER"
//
// A [Summary] counts the results delivered: accepted and rejected, which
// add up to the records, and the rejections by class.
//
// # How it runs
//
// The input is cut into blocks (256 KiB by default) of whole records.
// Workers, Options.Workers of them (GOMAXPROCS by default), each with its
// own reusable canon.Canonicalizer, canonicalize the records of one block
// at a time, keep their canonical forms together, and hash them all at
// once with [hashing.SumMany]'s kernels, which run several messages on the
// lanes of one core: this is what makes a worker faster than
// canonicalizing and hashing one record at a time, besides the parallel
// workers. A goroutine of its own reads the input ahead of the workers;
// with Options.WorkersRead (for a reader whose Read is a copy) and as many
// workers as GOMAXPROCS or more, each worker reads its next block itself
// instead (one at a time, in input order), so that the block is in the
// cache of the core that works on it. The results of each
// block are then delivered, block after block in input order, on the
// goroutine that called. The output does not depend on the number of
// workers, the block size, or how the reader splits its reads.
//
// # Memory
//
// Memory does not grow with the input: 2*Workers+2 blocks are in flight
// at most, each holding its input, the canonical forms that are not the
// input itself, and a few dozen bytes per record (a block takes at most
// BlockSize/64 records, or 16, so an input of empty lines does not fill
// one with millions). With the defaults that is about 1 MB per block.
//
// A record longer than a block is read into memory of its own and
// canonicalized on its own, and one such record at most is held at a
// time, whatever the number of workers: the others wait. That memory (the
// record's buffer and the Canonicalizer of long records) is kept from one
// long record to the next, so that a run of them reuses it instead of
// allocating it again for each, and is dropped when the run ends. A line
// that turns out longer than MaxRecord costs the bound once (it is read
// in chunks, and dropped as soon as it passes the bound), and the rest of
// it is skipped without being kept. A record that is canonicalized costs
// what canon documents, up to about 7 times its size.
//
// # Cancellation and errors
//
// A run ends when the input does, when the callback returns an error,
// when the context is done, or when the reader fails. The results
// delivered are then always a prefix of those of the whole input, and the
// call returns only once every goroutine it started has ended. A read
// error is returned as the reader gave it, after the answers to every line
// that ended before it. The run cannot interrupt a Read that blocks: to
// stop waiting on a pipe or a socket, also close it.
//
// # Concurrency
//
// The callback runs on the calling goroutine, one result at a time. Each
// call runs a pipeline of its own, so the functions of this package are
// safe for concurrent use. SHA-256 runs on the batch kernel that package
// hashing chose for this CPU (see bbdigest cpu and BBDIGEST_SHA256).
package batch
