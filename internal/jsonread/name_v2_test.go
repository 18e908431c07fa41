//go:build goexperiment.jsonv2

package jsonread_test

import (
	jsonv2 "encoding/json/v2"
	"reflect"
	"testing"

	"github.com/bbdigest/bbdigest/internal/jsonread"
	"github.com/bbdigest/bbdigest/internal/jsonread/jsonnametest"
)

// TestFoldVsEncodingJSONv2 asks encoding/json/v2 (GOEXPERIMENT=jsonv2),
// with MatchCaseInsensitiveNames, whether it takes each Variant of each
// name of jsonnametest.Names, raw and escaped, for a field of that name:
// EqualFold must give the same answer every time. (The fuzz module holds
// EqualFold to github.com/go-json-experiment/json the same way in every
// build.)
func TestFoldVsEncodingJSONv2(t *testing.T) {
	for _, name := range jsonnametest.Names {
		for _, v := range jsonnametest.Variants(name) {
			for _, esc := range []bool{false, true} {
				q := jsonnametest.Quote(v, esc)
				p := reflect.New(jsonnametest.Struct(name))
				if err := jsonv2.Unmarshal([]byte(`{`+q+`:1}`), p.Interface(), jsonv2.MatchCaseInsensitiveNames(true)); err != nil {
					t.Fatal(err)
				}
				if got := p.Elem().Field(0).Int() == 1; got != jsonread.EqualFold(v, name) {
					t.Errorf("encoding/json/v2 takes %s for %q: %v; EqualFold says %v", q, name, got, !got)
				}
			}
		}
	}
}
