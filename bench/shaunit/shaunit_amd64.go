//go:build amd64 && !purego

package shaunit

// Each function runs n iterations of a fixed block of SHA256RNDS2
// instructions (see shaunit_amd64.s for the count per iteration) on
// zeroed registers: the values do not matter, only the dependencies.

func chain1(n int) // one dependent chain, 8 per iteration
func chain2(n int) // two independent chains, 16 per iteration
func chain3(n int) // three independent chains, 24 per iteration
func chain4(n int) // four independent chains, 8 per iteration
func mixed(n int)  // two chains, 16 per iteration, with 14 SHA256MSG1/MSG2 between them
