module github.com/bbdigest/bbdigest/fuzz

go 1.26

require (
	github.com/bbdigest/bbdigest v0.0.0
	github.com/go-json-experiment/json v1.27.2
	github.com/gowebpki/jcs v1.0.2
)

require (
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	golang.org/x/sys v0.41.0 // indirect
)

replace github.com/bbdigest/bbdigest => ../
