//go:build !linux

package main

import "os"

// maxRSSKiB returns 0: the report reads the peak resident set from Linux's
// rusage only (other systems count it in other units, or not at all).
func maxRSSKiB(*os.ProcessState) int64 { return 0 }

// resetRSSPeak does nothing: see maxRSSKiB.
func resetRSSPeak() {}

// rssFloorKiB returns 0, as maxRSSKiB does.
func rssFloorKiB() int64 { return 0 }
