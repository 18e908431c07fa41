//go:build race

package main

// raceEnabled reports a build with the race detector, whose test binary,
// run as a child process, is too slow for the timings of some tests.
const raceEnabled = true
