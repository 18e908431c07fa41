// Package casename names the rows of test tables by the file and line that
// wrote them, as go-json-experiment/json's internal/jsontest does, so that a
// failing row's message points at the row, not at the loop that ran it.
//
// A table carries a CaseName (or, for rows with no name of their own, a
// CasePos) in each row:
//
//	for _, tc := range []struct {
//		name casename.CaseName
//		in   string
//	}{
//		{casename.Name("empty"), ``},
//	} {
//		t.Run(tc.name.Name, func(t *testing.T) {
//			...
//			t.Errorf("%s: got %v", tc.name.Where, got)
//		})
//	}
//
// and the message reads "name_test.go:123: got ...". The position is captured
// as a program counter and turned into a file and line only when it is
// printed, so a table costs one runtime.Callers per row. Package casename
// imports only the standard library; it is for tests.
package casename

import (
	"path"
	"runtime"
	"strconv"
)

// CaseName is a test case's name and the file and line of the row that
// wrote it.
type CaseName struct {
	Name  string
	Where CasePos
}

// Name returns s as a CaseName at the file and line of its caller: the row
// of the table.
func Name(s string) CaseName {
	c := CaseName{Name: s}
	runtime.Callers(2, c.Where.pc[:])
	return c
}

// CasePos is a file and line in a test file. Its zero value is no position,
// and prints as "?".
type CasePos struct{ pc [1]uintptr }

// Here returns the file and line of its caller: the position of a row that
// has no name of its own, such as a row named by its input.
func Here() CasePos {
	var p CasePos
	runtime.Callers(2, p.pc[:])
	return p
}

// Caller returns the file and line skip calls above the caller of Caller:
// Caller(0) is Here, and Caller(1), called in a helper through which every
// row of a table is written (act's ec), is the row.
func Caller(skip int) CasePos {
	var p CasePos
	runtime.Callers(skip+2, p.pc[:])
	return p
}

// String returns the position as "file.go:123", with the base name of the
// file, or "?" for the zero CasePos.
func (p CasePos) String() string {
	if p.pc[0] == 0 {
		return "?"
	}
	frame, _ := runtime.CallersFrames(p.pc[:]).Next()
	return path.Base(frame.File) + ":" + strconv.Itoa(frame.Line)
}
