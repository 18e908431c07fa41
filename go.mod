module github.com/bbdigest/bbdigest

go 1.26

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	go.etcd.io/bbolt v1.4.3
)

require golang.org/x/sys v0.41.0 // indirect
