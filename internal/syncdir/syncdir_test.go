package syncdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSync(t *testing.T) {
	if err := Sync(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := Sync(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("Sync of a missing directory succeeded")
	}
}

func TestData(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("x"); err != nil {
		t.Fatal(err)
	}
	if err := Data(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := Data(f); err == nil {
		t.Fatal("Data of a closed file succeeded")
	}
}
