// Package bench compares package canon with other RFC 8785 (JCS)
// implementations: github.com/go-json-experiment/json/jsontext,
// github.com/gowebpki/jcs and, as the floor of a validating scan,
// github.com/valyala/fastjson; and package hashing's Sum256 with
// crypto/sha256 and github.com/minio/sha256-simd. It contains test code
// only, in a module of its own (github.com/bbdigest/bbdigest/bench, with the
// library replaced by ../), so the peers never enter the library's go.mod
// or a user's module graph.
//
// The inputs are generated deterministically from a logged seed (see
// corpus_test.go), and TestBenchmarkOutputsAgree runs every input once
// through every library and checks that the outputs agree byte for byte, so
// the benchmarks double as tests. Compare the libraries with
//
//	cd bench && go test -run '^$' -bench . -count 10 -benchtime 0.5s | tee /tmp/bench.txt
//	benchstat -col /lib /tmp/bench.txt
//
// The whole comparison (these benchmarks, the encoding/json round trip,
// Node's canonicalize, SHA-256, envelope, act, gate, JSON Lines of large
// records, archive rehash, and whole processes: `bbdigest digest --lines`
// and `bbdigest archive rehash` at 1 and all workers against the
// jsontext + crypto/sha256 line tool ./linefilter on generated archives
// and the large-record input, wall and CPU time, their digests compared
// line by line before timing), in interleaved rounds with per-round
// ratios, is one command that writes bench/report/README.md and chart.svg
// (command report, not run by CI):
//
//	bench/report.sh [-rounds N] [-benchtime D] [-process-records N] [-note TEXT]
package bench
