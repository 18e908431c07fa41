// Package cpureport is what "bbdigest cpu" reports: the CPU features
// found that some kernel reads, the SHA-256 path chosen for single
// messages and for batches (and a BBDIGEST_SHA256 that forced it, or why
// it could not), and the implementation in force of each of canon's
// kernels, read from internal/cpu and the registry of kernels
// (internal/impl), as text or as JSON with stable field names.
package cpureport

import (
	"runtime"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/internal/cpu"
	"github.com/bbdigest/bbdigest/internal/impl"

	// The packages whose kernels the report names register them when
	// they initialise.
	_ "github.com/bbdigest/bbdigest/canon"
	_ "github.com/bbdigest/bbdigest/hashing"
)

// Report is what "bbdigest cpu" prints, read from internal/cpu and the
// registry of kernels (internal/impl). Its JSON field names are stable;
// canon was added after the others.
type Report struct {
	GOARCH          string   `json:"goarch"`
	CPU             string   `json:"cpu,omitempty"`
	PureGo          bool     `json:"purego"`
	Features        []string `json:"features"`        // CPU features found that some kernel reads, lowercase
	Implementations []string `json:"implementations"` // SHA-256 paths available
	Path            string   `json:"path"`            // the SHA-256 path in force
	Single          string   `json:"single"`          // its kernel for one message: generic, shani, arm64, stdlib
	Batch           string   `json:"batch"`           // its kernel for batches: serial, shani-x2, avx2-x8, avx512-x16
	Lanes           int      `json:"lanes"`           // messages the batch kernel hashes at once
	Forced          string   `json:"forced,omitempty"`
	Warning         string   `json:"warning,omitempty"`
	// Canon maps each of canon's kernels (classify, utf8, minify, rank) to
	// the implementation in force and those available.
	Canon map[string]Kernel `json:"canon"`

	canonOrder []string // canon's kernels in registration order, for String
}

// Kernel is the state of one kernel in a Report: the implementation in
// force and those available on this CPU and build.
type Kernel struct {
	Impl      string   `json:"impl"`
	Available []string `json:"available"`
}

// New returns the report of this process: its CPU, the SHA-256 path of
// package hashing in force (forced by BBDIGEST_SHA256, or why not) and
// canon's kernels.
func New() Report {
	sha := impl.Lookup("hashing", "sha256")
	r := Report{
		GOARCH:          runtime.GOARCH,
		CPU:             cpu.Brand(),
		PureGo:          cpu.PureGo,
		Features:        cpu.Features(),
		Implementations: sha.Available(),
		Path:            sha.Active(),
		Forced:          sha.Forced,
		Warning:         sha.Warning,
		Canon:           map[string]Kernel{},
	}
	if r.Features == nil {
		r.Features = []string{}
	}
	for _, p := range sha.Parts() {
		switch p.Role {
		case "single":
			r.Single = p.Name
		case "batch":
			r.Batch, r.Lanes = p.Name, p.Lanes
		}
	}
	for _, k := range impl.Kernels("canon") {
		r.Canon[k.Name] = Kernel{Impl: k.Active(), Available: k.Available()}
		r.canonOrder = append(r.canonOrder, k.Name)
	}
	return r
}

// String returns the report as a few lines of text, such as
//
//	sha256 path: shani (single: shani, batch: shani-x2, 2 lanes)
//	available:   generic, shani, avx2
//	canon:       classify=sse2 utf8=ssse3 minify=off rank=insertion escrun=generic
//	cpu:         AMD EPYC (amd64): sse4.1 ssse3 sha avx avx2 bmi2 pclmulqdq popcnt
func (r Report) String() string {
	var b strings.Builder
	b.WriteString("sha256 path: " + r.Path + " (single: " + r.Single + ", batch: " + r.Batch)
	if r.Lanes > 1 {
		b.WriteString(", " + strconv.Itoa(r.Lanes) + " lanes")
	}
	b.WriteString(")\n")
	b.WriteString("available:   " + strings.Join(r.Implementations, ", ") + "\n")
	b.WriteString("canon:      ")
	for _, name := range r.canonOrder {
		b.WriteString(" " + name + "=" + r.Canon[name].Impl)
	}
	b.WriteString("\n")
	name := r.CPU
	if name == "" {
		name = "unknown"
	}
	b.WriteString("cpu:         " + name + " (" + r.GOARCH + "): " + strings.Join(r.Features, " "))
	if r.PureGo {
		b.WriteString("\nbuild:       purego (no assembly)")
	}
	if r.Forced != "" {
		b.WriteString("\nBBDIGEST_SHA256: " + r.Forced)
	}
	if r.Warning != "" {
		b.WriteString("\nwarning:     " + r.Warning)
	}
	return b.String()
}
