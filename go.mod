module github.com/bbdigest/bbdigest

go 1.26

require (
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/gowebpki/jcs v1.0.2 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/valyala/fastjson v1.6.10 // indirect
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
