// Package buildinfo reads what the Go toolchain recorded of the build of
// the running binary (runtime/debug.ReadBuildInfo): the version that
// "bbdigest version" prints when none was set at link time, and the day
// of the commit built, which dates the manual page, so that the same
// build always writes the same page.
package buildinfo

import (
	"runtime/debug"
	"time"
)

// Version returns the version of the build: the main module's version
// (v1.2.3, when built by go install of a tagged version), else "(devel)"
// and the first 12 digits of the commit, with "-dirty" when the tree had
// changes, else "(devel)"; "(unknown)" without build information.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	return version(bi, ok)
}

// version is Version of the build information bi (ok: there is some).
func version(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "(unknown)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		return "(devel) " + rev[:min(len(rev), 12)] + dirty
	}
	return "(devel)"
}

// Date returns the day of the commit the binary was built from,
// 2006-01-02, when the build recorded it; else (go run, go test) today's,
// in UTC.
func Date() string {
	bi, ok := debug.ReadBuildInfo()
	return date(bi, ok, time.Now())
}

// date is Date of the build information bi (ok: there is some), today
// being now.
func date(bi *debug.BuildInfo, ok bool, now time.Time) string {
	if ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" && len(s.Value) >= len("2006-01-02") {
				return s.Value[:len("2006-01-02")]
			}
		}
	}
	return now.UTC().Format("2006-01-02")
}
