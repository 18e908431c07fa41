package casename_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/bbdigest/bbdigest/internal/casename"
)

// line returns "casename_test.go:N" for the line of its caller.
func line() string {
	_, file, n, _ := runtime.Caller(1)
	return file[strings.LastIndexByte(file, '/')+1:] + ":" + fmt.Sprint(n)
}

// row is a helper through which rows are written, as act's ec is.
func row(name string) casename.CaseName {
	return casename.CaseName{Name: name, Where: casename.Caller(1)}
}

// TestPositions: each function names the line it should, in a table as in
// a single call, and the zero CasePos prints as "?".
func TestPositions(t *testing.T) {
	for _, tc := range []struct {
		name casename.CaseName
		here casename.CasePos
		row  casename.CaseName
		want string
	}{
		{casename.Name("first"), casename.Here(), row("first"), line()},
		{casename.Name("second"), casename.Here(), row("second"), line()},
		{
			casename.Name("third"), casename.Here(), row("third"), line()},
	} {
		if got := tc.name.Where.String(); got != tc.want {
			t.Errorf("%s: Name: %s, want %s", tc.name.Name, got, tc.want)
		}
		if got := tc.here.String(); got != tc.want {
			t.Errorf("%s: Here: %s, want %s", tc.name.Name, got, tc.want)
		}
		if got := tc.row.Where.String(); got != tc.want || tc.row.Name != tc.name.Name {
			t.Errorf("%s: Caller(1) in a helper: %s %q, want %s", tc.name.Name, got, tc.row.Name, tc.want)
		}
	}
	if got, want := casename.Caller(0).String(), line(); got != want {
		t.Errorf("Caller(0) = %s, want %s", got, want)
	}
	if got := (casename.CasePos{}).String(); got != "?" {
		t.Errorf("zero CasePos = %q, want ?", got)
	}
}
