package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/bbdigest/bbdigest/internal/cpu"
	"github.com/bbdigest/bbdigest/internal/impl"

	// The packages whose kernels cpu reports register them when they
	// initialise (the other commands import them too).
	_ "github.com/bbdigest/bbdigest/canon"
	_ "github.com/bbdigest/bbdigest/hashing"
)

// cpuHelp is the help of cpu (help/cpu.txt).
var cpuHelp = helpFile("cpu")

// cpu prints the CPU features found, the SHA-256 paths chosen for single
// messages and for batches, and canon's kernels, as text or (--json) as one
// JSON object.
func (c *cli) cpu(args []string) int {
	fs := c.flagSet("cpu")
	asJSON := fs.Bool("json", false, "")
	if _, code := c.parse(fs, args, 0); code >= 0 {
		return code
	}
	r := newCPUReport()
	if *asJSON {
		return c.writeJSON(r)
	}
	// The text holds names from the environment (BBDIGEST_SHA256) and the
	// CPU: escape each line as any diagnostic.
	for line := range strings.Lines(r.String() + "\n") {
		fmt.Fprintln(c.stdout, safeText(strings.TrimSuffix(line, "\n")))
	}
	if r.Warning != "" {
		c.hintf("%s", r.Warning)
	}
	return exitOK
}

// cpuReport is what cpu prints, read from internal/cpu and the registry of
// kernels (internal/impl). Its JSON field names are stable; canon was added
// after the others.
type cpuReport struct {
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
	Canon map[string]kernelReport `json:"canon"`

	canonOrder []string // canon's kernels in registration order, for String
}

// kernelReport is the state of one kernel in a cpuReport.
type kernelReport struct {
	Impl      string   `json:"impl"`
	Available []string `json:"available"`
}

func newCPUReport() cpuReport {
	sha := impl.Lookup("hashing", "sha256")
	r := cpuReport{
		GOARCH:          runtime.GOARCH,
		CPU:             cpu.Brand(),
		PureGo:          cpu.PureGo,
		Features:        cpu.Features(),
		Implementations: sha.Available(),
		Path:            sha.Active(),
		Forced:          sha.Forced,
		Warning:         sha.Warning,
		Canon:           map[string]kernelReport{},
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
		r.Canon[k.Name] = kernelReport{Impl: k.Active(), Available: k.Available()}
		r.canonOrder = append(r.canonOrder, k.Name)
	}
	return r
}

// String returns the report as a few lines of text, such as
//
//	sha256 path: shani (single: shani, batch: shani-x2, 2 lanes)
//	available:   generic, shani, avx2
//	canon:       classify=sse2 utf8=ssse3 minify=off rank=insertion
//	cpu:         AMD EPYC (amd64): sse4.1 ssse3 sha avx avx2 bmi2 pclmulqdq popcnt
func (r cpuReport) String() string {
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
