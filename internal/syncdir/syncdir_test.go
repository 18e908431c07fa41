package syncdir

import (
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
