// Package race reports whether the race detector is built in, as the
// standard library's internal/race does, for the tests whose measure it
// changes: peak memory (its shadow memory) and allocation counts (sync.Pool
// drops items at random under it).
package race
