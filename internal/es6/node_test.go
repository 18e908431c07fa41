package es6

import (
	"bufio"
	"bytes"
	"flag"
	"math"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

var (
	nodeCount = flag.Int("es6node", 1_200_000, "doubles to check against Node's String(x)")
	nodeSeed  = flag.Uint64("es6seed", 20251201, "seed for the Node oracle test's generator (0: from the clock)")
)

// nodeScript reads doubles as hex bit patterns, one a line, on stdin and
// writes String(x) for each, one a line.
const nodeScript = `
const chunks = [];
process.stdin.on('data', c => chunks.push(c));
process.stdin.on('end', () => {
  const lines = Buffer.concat(chunks).toString('latin1').split('\n');
  const dv = new DataView(new ArrayBuffer(8));
  const out = [];
  for (const line of lines) {
    if (line === '') continue;
    const h = line.padStart(16, '0');
    dv.setUint32(0, parseInt(h.slice(0, 8), 16));
    dv.setUint32(4, parseInt(h.slice(8), 16));
    out.push(String(dv.getFloat64(0)));
  }
  out.push('');
  process.stdout.write(out.join('\n'));
});
`

// TestNodeOracle compares AppendFloat with Node's String(x) (V8's
// Number::toString) over more than a million doubles of every kind.
func TestNodeOracle(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		if inCI() {
			t.Fatalf("node is required in CI: %v", err)
		}
		t.Skipf("node not found: %v", err)
	}
	seed := *nodeSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -es6seed=%d)", seed, seed)
	xs := genDoubles(seed, *nodeCount)

	var in bytes.Buffer
	for _, x := range xs {
		in.Write(strconv.AppendUint(nil, math.Float64bits(x), 16))
		in.WriteByte('\n')
	}
	cmd := exec.Command(node, "-e", nodeScript)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}

	sc := bufio.NewScanner(bytes.NewReader(out))
	var buf []byte
	i, bad := 0, 0
	for sc.Scan() {
		if i >= len(xs) {
			t.Fatalf("node printed more than %d lines", len(xs))
		}
		want := sc.Bytes()
		buf = AppendFloat(buf[:0], xs[i])
		if !bytes.Equal(buf, want) {
			t.Errorf("%#016x: AppendFloat = %q, node String(x) = %q", math.Float64bits(xs[i]), buf, want)
			if bad++; bad == 20 {
				t.Fatal("too many mismatches")
			}
		}
		i++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(xs) {
		t.Fatalf("node printed %d lines, want %d", i, len(xs))
	}
	t.Logf("%d doubles agree with node %s", len(xs), node)
}
