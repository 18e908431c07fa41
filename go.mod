module github.com/bbdigest/bbdigest

go 1.26

require (
	github.com/go-json-experiment/json v1.27.2
	github.com/gowebpki/jcs v1.0.2
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/minio/sha256-simd v1.0.1
	github.com/rogpeppe/go-internal v1.16.0
	github.com/valyala/fastjson v1.6.10
	go.etcd.io/bbolt v1.4.3
	golang.org/x/sys v0.41.0
)

require golang.org/x/tools v0.26.0 // indirect
