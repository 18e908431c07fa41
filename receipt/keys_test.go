package receipt

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
)

func marshalPKIX(pub ed25519.PublicKey) ([]byte, error) { return x509.MarshalPKIXPublicKey(pub) }

// TestKeyID checks the key id and the SPKI against crypto/x509, and the
// receipt id prefix against the key id.
func TestKeyID(t *testing.T) {
	for seed := range byte(4) {
		s := testSigner(seed)
		der, err := x509.MarshalPKIXPublicKey(s.Public())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(spki(s.Public()), der) {
			t.Errorf("spki %x, x509 %x", spki(s.Public()), der)
		}
		if want := independentKeyID(t, s.Public()); s.KeyID() != want || KeyID(s.Public()) != want {
			t.Errorf("key id %s, want %s", s.KeyID(), want)
		}
		if got, want := s.receiptID(42), "lavr:"+s.KeyID()[7:23]+":42"; got != want {
			t.Errorf("receipt id %s, want %s", got, want)
		}
		if got := MarshalPublicKey(s.Public()); got != base64.RawURLEncoding.EncodeToString(der) {
			t.Errorf("MarshalPublicKey %s", got)
		}
	}
}

// TestParsePublicKey reads EP's form and PEM, and refuses every other
// spelling: padding, non-zero padding bits, other key types, extra text.
func TestParsePublicKey(t *testing.T) {
	pub := testSigner(1).Public()
	der, _ := x509.MarshalPKIXPublicKey(pub)
	b64text := base64.RawURLEncoding.EncodeToString(der)
	pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	for _, ok := range []string{b64text, b64text + "\n", " " + b64text + " \r\n", pemText, pemText + "\n\n"} {
		got, err := ParsePublicKey([]byte(ok))
		if err != nil || !got.Equal(pub) {
			t.Errorf("ParsePublicKey(%q) = %x, %v", ok, got, err)
		}
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	// The last character of 44 bytes in base64 carries 4 bits of data
	// and 2 of padding: bump it within its 4-character group.
	last := b64text[len(b64text)-1]
	nonZero := b64text[:len(b64text)-1] + string(rune(last+1))
	bad := map[string]string{
		"empty":        "",
		"padded":       base64.URLEncoding.EncodeToString(der),
		"std alphabet": strings.NewReplacer("-", "+", "_", "/").Replace(b64text) + "+/",
		"pad bits":     nonZero,
		"raw 32 bytes": base64.RawURLEncoding.EncodeToString(pub),
		"ecdsa":        base64.RawURLEncoding.EncodeToString(ecDER),
		"trailing der": base64.RawURLEncoding.EncodeToString(append(der, 0)),
		"pem private":  strings.ReplaceAll(pemText, "PUBLIC", "PRIVATE"),
		"pem and more": pemText + "x",
		"two keys":     b64text + " " + b64text,
	}
	for name, text := range bad {
		got, err := ParsePublicKey([]byte(text))
		if err == nil {
			t.Errorf("%s: ParsePublicKey(%q) = %x, want an error", name, text, got)
			continue
		}
		ke, ok := errors.AsType[*KeyError](err)
		if !ok || ke.Private || ke.Reason == "" || err.Error() != "receipt: public key: "+ke.Reason {
			t.Errorf("%s: ParsePublicKey(%q): %v (%#v), want a *KeyError of a public key", name, text, err, ke)
		}
	}
}

// TestEPPublicKeys reads the public keys of the EP vectors.
func TestEPPublicKeys(t *testing.T) {
	for _, v := range loadEPVectors(t).Vectors {
		if _, err := ParsePublicKey([]byte(v.PublicKey)); err != nil {
			t.Errorf("%s: %v", v.ID, err)
		}
	}
}

// TestPrivateKey round-trips MarshalPrivateKey and ParsePrivateKey, reads
// a key with text before its block, and refuses other keys and blocks.
func TestPrivateKey(t *testing.T) {
	priv := testKey(3)
	text, err := MarshalPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(text, []byte("-----BEGIN PRIVATE KEY-----\n")) {
		t.Errorf("MarshalPrivateKey: %s", text)
	}
	for _, in := range [][]byte{text, append([]byte("# key id: x\n"), text...), append(bytes.Clone(text), "\n\n"...)} {
		got, err := ParsePrivateKey(in)
		if err != nil || !got.Equal(priv) {
			t.Errorf("ParsePrivateKey(%q) = %v", in, err)
		}
	}
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ec)
	for name, in := range map[string][]byte{
		"empty":  nil,
		"ecdsa":  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}),
		"public": bytes.ReplaceAll(text, []byte("PRIVATE"), []byte("PUBLIC")),
		"after":  append(bytes.Clone(text), "junk"...),
		"der":    {0x30, 0x2e},
	} {
		_, err := ParsePrivateKey(in)
		if err == nil {
			t.Errorf("%s: ParsePrivateKey accepted %q", name, in)
			continue
		}
		ke, ok := errors.AsType[*KeyError](err)
		if !ok || !ke.Private || ke.Reason == "" || err.Error() != "receipt: private key: "+ke.Reason {
			t.Errorf("%s: ParsePrivateKey(%q): %v (%#v), want a *KeyError of a private key", name, in, err, ke)
		}
	}
}

// TestNewSigner checks that a private key whose public half does not
// match its seed signs with the seed's key, and that a bad length panics.
func TestNewSigner(t *testing.T) {
	priv := bytes.Clone(testKey(5))
	priv[40] ^= 1 // the public half
	s := NewSigner(priv)
	if !s.Public().Equal(testKey(5).Public()) {
		t.Error("the Signer's public key is not the seed's")
	}
	defer func() {
		if recover() == nil {
			t.Error("NewSigner of a short key did not panic")
		}
	}()
	NewSigner(priv[:10])
}
