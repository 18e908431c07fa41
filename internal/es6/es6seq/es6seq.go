// Package es6seq regenerates, for tests, the ES6 number test sequence of
// the RFC 8785 reference implementation
// (../shared/conformance/rfc8785/es6numbers): the bit patterns of its
// doubles, in order, and the published SHA-256 checksums of its first lines.
// A line is the double's bits in lowercase hex, a comma, its ECMAScript
// Number.prototype.toString form and a newline.
package es6seq

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Bits yields the bit patterns of the sequence: the static values, then
// 0x0010000000000000+i for i < 2000, then the SHA-256 chain of a 32-byte
// zero block read as 4 little-endian doubles per block, skipping ±0, NaN
// and ±Inf. It never ends by itself.
func Bits(static []uint64) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for _, b := range static {
			if !yield(b) {
				return
			}
		}
		for i := uint64(0); i < 2000; i++ {
			if !yield(0x0010000000000000 + i) {
				return
			}
		}
		var block [32]byte
		for {
			block = sha256.Sum256(block[:])
			for j := 0; j < 32; j += 8 {
				b := binary.LittleEndian.Uint64(block[j:])
				x := math.Float64frombits(b)
				if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
					continue
				}
				if !yield(b) {
					return
				}
			}
		}
	}
}

// Load reads the two files of the es6numbers directory dir that the
// sequence needs: the static values (static-u64.txt) and the checksums
// (checksums.txt).
func Load(dir string) (static []uint64, checksums map[int]string, err error) {
	if static, err = ReadStatic(filepath.Join(dir, "static-u64.txt")); err != nil {
		return nil, nil, err
	}
	if checksums, err = ReadChecksums(filepath.Join(dir, "checksums.txt")); err != nil {
		return nil, nil, err
	}
	return static, checksums, nil
}

// ShortLines is how many lines a test checks at most in -short mode.
const ShortLines = 100_000

// Lines returns how many lines of the sequence a test should check, given
// the count n it was asked for (a flag): n, but at most ShortLines when
// short, and an error unless a checksum is published for that many lines.
func Lines(checksums map[int]string, n int, short bool) (int, error) {
	if short && n > ShortLines {
		n = ShortLines
	}
	if _, ok := checksums[n]; !ok {
		return 0, fmt.Errorf("no published checksum for the first %d lines", n)
	}
	return n, nil
}

// ReadChecksums reads checksums.txt: the hex SHA-256 of the first N lines,
// by N.
func ReadChecksums(path string) (map[int]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[int]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 3 || len(f[0]) != 64 {
			return nil, fmt.Errorf("%s: malformed line %q", path, line)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s: malformed line %q", path, line)
		}
		m[n] = f[0]
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s: no checksums", path)
	}
	return m, nil
}

// ReadStatic reads static-u64.txt: the 168 bit patterns the sequence
// starts with.
func ReadStatic(path string) ([]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var vs []uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := string(bytes.TrimSpace(sc.Bytes()))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		b, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		vs = append(vs, b)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(vs) != 168 {
		return nil, fmt.Errorf("%s: %d values, want 168", path, len(vs))
	}
	return vs, nil
}
