package receipt

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/canon"
	"github.com/bbdigest/bbdigest/internal/race"
)

// chain builds the lines of a chain of n records signed by s, with edit
// applied to each payload before it is signed (nil: none), as Append
// would build them but for the edits.
func chain(s *Signer, n int, edit func(i int, p *Payload)) [][]byte {
	var lines [][]byte
	var prev [32]byte
	for i := range n {
		p := samplePayload(i)
		p.Seq, p.PrevHash, p.TimestampMS = uint64(i+1), prev, 1_780_000_000_000+int64(i)
		p.KeyID, p.ReceiptID = s.KeyID(), s.receiptID(p.Seq)
		if edit != nil {
			edit(i, &p)
		}
		line := s.appendLine(nil, &p)
		prev = sha256.Sum256(line)
		lines = append(lines, line)
	}
	return lines
}

// file joins lines into a receipt file.
func file(lines [][]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	return b
}

// TestVerifyClean verifies whole files of 0 to 300 records with 1 and 2
// workers, and checks the Summary against the file: the seqs, the bytes,
// and the digest of the last line computed with crypto/sha256.
func TestVerifyClean(t *testing.T) {
	s := testSigner(1)
	for _, n := range []int{0, 1, 2, 5, 300} {
		b := file(chain(s, n, nil))
		for _, workers := range []int{1, 2} {
			sum, err := verifyBytes(b, s.Public(), workers)
			if err != nil {
				t.Fatalf("%d records, %d workers: %v", n, workers, err)
			}
			want := Summary{Records: int64(n), Bytes: int64(len(b))}
			if n > 0 {
				lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
				want.FirstSeq, want.LastSeq, want.Last = 1, uint64(n), sha256.Sum256(lines[n-1])
			}
			if sum != want {
				t.Errorf("%d records, %d workers: %+v, want %+v", n, workers, sum, want)
			}
		}
	}
	// Those of a Log, too.
	_, b, rs := writeLog(t, t.TempDir(), s, 7)
	sum, err := verifyBytes(b, s.Public(), 0)
	if err != nil || sum.Records != 7 || sum.Last != rs[6].Digest {
		t.Errorf("a Log's file: %+v, %v", sum, err)
	}
}

// wantChainError checks that err is a *ChainError at line (1-based) of b,
// wrapping want.
func wantChainError(t *testing.T, label string, err error, b []byte, line int, want error) *ChainError {
	t.Helper()
	ce, ok := errors.AsType[*ChainError](err)
	if !ok {
		t.Errorf("%s: %v, want a *ChainError", label, err)
		return nil
	}
	starts := lineStarts(b)
	if ce.Line != int64(line) || line > len(starts) || ce.Offset != int64(starts[line-1]) {
		t.Errorf("%s: %v: line %d at offset %d, want line %d at offset %v", label, ce, ce.Line, ce.Offset, line, starts[min(line, len(starts))-1])
	}
	if want != nil && !errors.Is(err, want) {
		t.Errorf("%s: %v, want an error wrapping %v", label, err, want)
	}
	return ce
}

// TestVerifyFlip flips each byte of a five-record file in turn, three ways
// (its low bit, all its bits, its 0x20 bit), and checks that every flip is
// detected at the record that holds the byte (a line's "\n" belongs to its
// record), with that line's offset, and that the records before it are
// counted as verified. The flip of the last "\n" leaves a torn record.
func TestVerifyFlip(t *testing.T) {
	s := testSigner(1)
	records := 5
	masks := []byte{0x01, 0xff, 0x20}
	if race.Enabled || testing.Short() {
		// CI's 32-bit step runs -short under emulation, where each flip
		// costs up to five Ed25519 verifications: two records still hold
		// a first record and a linked one.
		records, masks = 2, masks[:1]
	}
	lines := chain(s, records, nil)
	b := file(lines)
	starts := lineStarts(b)
	detected := 0
	for i := range b {
		rec := 1
		for rec < len(starts) && starts[rec] <= i {
			rec++
		}
		for _, mask := range masks {
			c := bytes.Clone(b)
			c[i] ^= mask
			label := fmt.Sprintf("byte %d ^%#x (%q in record %d)", i, mask, b[i], rec)
			sum, err := verifyBytes(c, s.Public(), 0)
			var want error
			if i == len(b)-1 {
				want = ErrTorn
			}
			if ce := wantChainError(t, label, err, c, rec, want); ce != nil {
				detected++
				if want == nil && errors.Is(err, ErrTorn) {
					t.Errorf("%s: %v: torn", label, err)
				}
				if sum.Records != int64(rec-1) || (rec > 1 && sum.Last != sha256.Sum256(lines[rec-2])) {
					t.Errorf("%s: summary %+v, want %d records", label, sum, rec-1)
				}
			}
		}
	}
	if detected != len(b)*len(masks) {
		t.Errorf("%d flips of %d detected", detected, len(b)*len(masks))
	}
}

// TestVerifyTruncate cuts the file at every offset inside its last record
// (the "\n" included): Verify reports a torn record at line 5, after
// verifying the four before it.
func TestVerifyTruncate(t *testing.T) {
	s := testSigner(1)
	lines := chain(s, 5, nil)
	b := file(lines)
	last := lineStarts(b)[4]
	for cut := last + 1; cut < len(b); cut++ {
		sum, err := verifyBytes(b[:cut], s.Public(), 0)
		wantChainError(t, fmt.Sprintf("cut at %d", cut), err, b[:cut], 5, ErrTorn)
		if sum.Records != 4 || sum.LastSeq != 4 || sum.Last != sha256.Sum256(lines[3]) {
			t.Errorf("cut at %d: summary %+v", cut, sum)
		}
	}
	// Cut at a line boundary: a whole, shorter file.
	if sum, err := verifyBytes(b[:last], s.Public(), 0); err != nil || sum.Records != 4 {
		t.Errorf("cut at the last line: %+v, %v", sum, err)
	}
	// A file of one torn record.
	sum, err := verifyBytes(b[:10], s.Public(), 0)
	wantChainError(t, "first record torn", err, b[:10], 1, ErrTorn)
	if sum.Records != 0 {
		t.Errorf("first record torn: %+v", sum)
	}
}

// TestVerifyErrors checks the error of each kind of bad record: its line,
// seq, offset and sentinel. The records are signed by the key, so that
// what fails is the one thing each case changes.
func TestVerifyErrors(t *testing.T) {
	s, other := testSigner(1), testSigner(2)
	good := chain(s, 5, nil)
	replace := func(i int, line []byte) [][]byte {
		ls := append([][]byte(nil), good...)
		ls[i] = line
		return ls
	}
	resign := func(i int, f func(p *Payload)) []byte {
		return chain(s, i+1, func(j int, p *Payload) {
			if j == i {
				f(p)
			}
		})[i]
	}
	tooLong := append(bytes.Clone(good[2][:len(good[2])-1]), strings.Repeat(" ", MaxLineSize)...)
	cases := []struct {
		name  string
		lines [][]byte
		line  int
		seq   uint64
		want  error
	}{
		{"missing record", append(append([][]byte(nil), good[:2]...), good[3:]...), 3, 4, ErrSeq},
		{"swapped records", [][]byte{good[0], good[2], good[1]}, 2, 3, ErrSeq},
		{"duplicate record", [][]byte{good[0], good[1], good[1]}, 3, 2, ErrSeq},
		{"first not 1", good[1:], 1, 2, ErrSeq},
		{"first prev_hash", replace(0, resign(0, func(p *Payload) { p.PrevHash[3] = 1 })), 1, 1, ErrLink},
		{"broken link", replace(3, resign(3, func(p *Payload) { p.PrevHash[0] ^= 1 })), 4, 4, ErrLink},
		{"seq jump", replace(3, resign(3, func(p *Payload) { p.Seq, p.ReceiptID = 5, s.receiptID(5) })), 4, 5, ErrSeq},
		{"other key", chain(other, 3, nil), 1, 1, ErrKeyID},
		{"other key, our key id", replace(2, chain(other, 3, func(_ int, p *Payload) { p.KeyID, p.ReceiptID = s.KeyID(), s.receiptID(p.Seq) })[2]), 3, 3, ErrSignature},
		{"receipt_id", replace(1, resign(1, func(p *Payload) { p.ReceiptID = s.receiptID(9) })), 2, 2, ErrKeyID},
		{"not canonical", replace(2, bytes.Replace(good[2], []byte(`,"payload"`), []byte(`, "payload"`), 1)), 3, 3, ErrNotCanonical},
		{"CRLF", replace(2, append(bytes.Clone(good[2]), '\r')), 3, 3, ErrNotCanonical},
		{"escaped", replace(2, bytes.Replace(good[2], []byte(`"policy_version"`), []byte(`"policy\u005fversion"`), 1)), 3, 3, ErrNotCanonical},
		{"empty line", replace(1, nil), 2, 0, ErrMalformed},
		{"not JSON", replace(1, []byte("hello")), 2, 0, canon.ErrSyntax},
		{"too long", replace(2, tooLong), 3, 0, ErrMalformed},
		{"version", replace(4, bytes.Replace(good[4], []byte("EP-RECEIPT-v1"), []byte("EP-RECEIPT-v2"), 1)), 5, 0, ErrVersion},
		{"algorithm", replace(4, bytes.Replace(good[4], []byte(`"Ed25519"`), []byte(`"Ed448"`), 1)), 5, 0, ErrAlgorithm},
		{"extra member", replace(4, append(bytes.Clone(good[4][:len(good[4])-1]), `,"zz":1}`...)), 5, 0, ErrMalformed},
		{"anchor member", replace(4, bytes.Replace(good[4], []byte(`,"payload"`), []byte(`,"anchor":{},"payload"`), 1)), 5, 0, ErrMalformed},
		{"signature cut", replace(4, append(bytes.Clone(good[4][:len(good[4])-6]), `"}}`...)), 5, 0, ErrMalformedSignature},
		// The last character of a 64-byte value carries 4 padding bits:
		// another spelling of the same bytes, refused by strict decoding.
		{"signature padding bits", replace(4, padBits(good[4])), 5, 0, ErrMalformedSignature},
		// encoding/base64 skips "\r" and "\n" even when strict: a
		// signature value with a JSON \n or \r escape in it decodes to the
		// same bytes, another spelling of the last record.
		{"signature line break", replace(4, sigBreak(good[4], `\n`)), 5, 0, ErrMalformedSignature},
		{"signature carriage return", replace(4, sigBreak(good[4], `\r\n`)), 5, 0, ErrMalformedSignature},
		// An empty member the writer leaves out, in a line signed as it is.
		{"empty tool", replace(1, signedAs(s, bytes.Replace(good[1], []byte(`"tool":"tool_1"`), []byte(`"tool":""`), 1))), 2, 2, ErrMalformed},
	}
	for _, c := range cases {
		b := file(c.lines)
		for _, workers := range []int{1, 2} {
			label := fmt.Sprintf("%s/workers=%d", c.name, workers)
			sum, err := verifyBytes(b, s.Public(), workers)
			ce := wantChainError(t, label, err, b, c.line, c.want)
			if ce == nil {
				continue
			}
			if c.seq != 0 && ce.Seq != c.seq {
				t.Errorf("%s: %v: seq %d, want %d", label, ce, ce.Seq, c.seq)
			}
			if sum.Records != int64(c.line-1) {
				t.Errorf("%s: %d records verified, want %d", label, sum.Records, c.line-1)
			}
			if !strings.HasPrefix(ce.Error(), fmt.Sprintf("receipt: line %d ", c.line)) || ce.What == "" {
				t.Errorf("%s: message %q", label, ce.Error())
			}
		}
	}
}

// padBits returns line with the lowest bit of its signature value's last
// character flipped: one of the padding bits, which leaves the decoded
// bytes as they are.
func padBits(line []byte) []byte {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	out := bytes.Clone(line)
	i := len(out) - len(lineSuffix) - 1
	out[i] = alphabet[strings.IndexByte(alphabet, out[i])^1]
	return out
}

// sigBreak returns line with esc, JSON escapes of line breaks, put into
// its signature value after the tenth character.
func sigBreak(line []byte, esc string) []byte {
	i := bytes.LastIndex(line, []byte(lineMiddle)) + len(lineMiddle) + 10
	return append(append(append([]byte(nil), line[:i]...), esc...), line[i:]...)
}

// signedAs signs the payload of line again with s, as it is.
func signedAs(s *Signer, line []byte) []byte {
	payload := line[len(linePrefix):bytes.LastIndex(line, []byte(lineMiddle))]
	out := append([]byte(linePrefix), payload...)
	out = append(out, lineMiddle...)
	out = base64.RawURLEncoding.AppendEncode(out, ed25519.Sign(s.priv, payload))
	return append(out, lineSuffix...)
}

// TestVerifyReader checks that a read error is returned as it is, after
// the records before it, that a done context stops the run, and the
// refusal of a bad key and a negative number of workers.
func TestVerifyReader(t *testing.T) {
	s := testSigner(1)
	b := file(chain(s, 20, nil))
	boom := errors.New("boom")
	r := io.MultiReader(bytes.NewReader(b[:len(b)/2]), iotestErr{boom})
	if _, err := Verify(context.Background(), r, s.Public(), VerifyOptions{}); err != boom {
		t.Errorf("read error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Verify(ctx, bytes.NewReader(b), s.Public(), VerifyOptions{}); err != context.Canceled {
		t.Errorf("canceled: %v", err)
	}
	if _, err := Verify(context.Background(), bytes.NewReader(b), s.Public()[:31], VerifyOptions{}); err == nil {
		t.Error("short key accepted")
	}
	if _, err := Verify(context.Background(), bytes.NewReader(b), s.Public(), VerifyOptions{Workers: -1}); err == nil {
		t.Error("negative workers accepted")
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }
