//go:build !amd64 || purego

package canon

const haveIndexStop = false

var indexStopFunc = func([]byte) (int, bool) { panic("unreachable") }
