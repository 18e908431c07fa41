// Package scripttest runs the command-line scripts of bbdigest,
// cmd/bbdigest/testdata/script/*.txtar, with
// github.com/rogpeppe/go-internal/testscript, against the bbdigest binary
// built from the library module. It contains test code only, in a module of
// its own (github.com/bbdigest/bbdigest/cmd/bbdigest/scripttest), so that
// go-internal stays out of the library's go.mod.
//
// Run the scripts with
//
//	cd cmd/bbdigest/scripttest && go test
//
// or all of them with ./test.sh at the root of the repository.
package scripttest
