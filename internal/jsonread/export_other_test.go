//go:build !amd64 || purego

package jsonread

import "testing"

// indexKernels are the kernels of indexQuoteOrBackslash this platform
// has: none, it runs the generic path.
func indexKernels() []string { return nil }

// forceIndex fails t: there is no kernel to force.
func forceIndex(t *testing.T, kernel string) { t.Fatalf("no kernel %q on this platform", kernel) }
