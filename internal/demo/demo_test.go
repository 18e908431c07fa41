package demo

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocsAreTheFiles: Docs lists every JSON file of this directory, once,
// in the order of their names, each with the file's bytes; the three
// documents of §6.4 carry the draft's digests and no other does.
func TestDocsAreTheFiles(t *testing.T) {
	files, err := filepath.Glob("*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no JSON files: %v", err)
	}
	docs := Docs()
	var names []string
	for _, d := range docs {
		names = append(names, d.Name+".json")
	}
	if !slices.Equal(names, files) {
		t.Fatalf("Docs lists %v, the directory holds %v", names, files)
	}
	for _, d := range docs {
		want, err := os.ReadFile(d.Name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(d.Src, want) {
			t.Errorf("%s: Src is not the file", d.Name)
		}
		draft := strings.HasPrefix(d.Name, "action-") || d.Name == "envelope-draft-6.4"
		if (d.Published != "") != draft || (draft && !strings.HasPrefix(d.Published, "sha256:")) {
			t.Errorf("%s: Published = %q", d.Name, d.Published)
		}
	}
	for name, f := range map[string]func() []byte{
		"action-1-dates":          DraftAction1,
		"action-2-dates-passport": DraftAction2,
		"envelope-draft-6.4":      DraftEnvelope,
		"envelope-meta":           MetaEnvelope,
		"tool-call":               ToolCall,
		"tool-result":             ToolResult,
	} {
		want, err := os.ReadFile(name + ".json")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f(), want) {
			t.Errorf("the function for %s does not return its file", name)
		}
	}
}

// TestFreshCopies: a caller that changes what it was given changes no
// later caller's document.
func TestFreshCopies(t *testing.T) {
	a := DraftEnvelope()
	want := bytes.Clone(a)
	clear(a)
	if !bytes.Equal(DraftEnvelope(), want) {
		t.Fatal("DraftEnvelope returned a shared slice")
	}
	d := Docs()
	clear(d[0].Src)
	if !bytes.Equal(Docs()[0].Src, DraftAction1()) || bytes.Equal(d[0].Src, DraftAction1()) {
		t.Fatal("Docs returned a shared slice")
	}
}
