module github.com/bbdigest/bbdigest/bench

go 1.26.0

require (
	github.com/bbdigest/bbdigest v0.0.0
	github.com/go-json-experiment/json v1.27.2
	github.com/gowebpki/jcs v1.0.2
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/minio/sha256-simd v1.0.1
	github.com/valyala/fastjson v1.6.10
)

require golang.org/x/sys v0.48.0 // indirect

replace github.com/bbdigest/bbdigest => ../
