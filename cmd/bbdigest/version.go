package main

import (
	"fmt"

	"github.com/bbdigest/bbdigest/internal/buildinfo"
)

// versionHelp is the help of version (help/version.txt).
var versionHelp = helpFile("version")

// Version is the version "bbdigest version" prints. Release builds set it
// with -ldflags "-X main.Version=v1.2.3"; otherwise it comes from the build
// information.
var Version = ""

// version returns the version to print: Version, else what the build
// recorded (internal/buildinfo).
func version() string {
	if Version != "" {
		return Version
	}
	return buildinfo.Version()
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
