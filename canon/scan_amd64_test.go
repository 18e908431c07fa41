//go:build amd64 && !purego

package canon

// haveIndexStop and indexStopFunc let the tests reach indexStop where it exists.
const haveIndexStop = true

var indexStopFunc = indexStop
