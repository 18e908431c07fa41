package main

import (
	"fmt"
	"runtime/debug"
)

// versionHelp is the help of version (help/version.txt).
var versionHelp = helpFile("version")

// Version is the version "bbdigest version" prints. Release builds set it
// with -ldflags "-X main.Version=v1.2.3"; otherwise it comes from the build
// information.
var Version = ""

// version returns the version to print: Version, else the module version
// or the VCS revision of the build information.
func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
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

// version is "bbdigest version": it prints "bbdigest " and the version.
func (c *cli) version(args []string) int {
	fs := c.flagSet("version")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	fmt.Fprintf(c.stdout, "bbdigest %s\n", safeText(version()))
	return exitOK
}
