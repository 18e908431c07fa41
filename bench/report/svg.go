package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
)

// chartGroup is one input of the chart: a bar per library.
type chartGroup struct {
	label string
	bars  []bar
}

// bar is a library's median per-round ratio to bbdigest and its range.
type bar struct {
	lib           string
	ratio, lo, hi float64
}

var palette = map[string]string{
	"jsontext":      "#4e79a7",
	"gowebpki":      "#f28e2b",
	"encoding-json": "#59a14f",
	libNode:         "#e15759",
}

func legendName(lib string) string {
	switch lib {
	case "gowebpki":
		return "gowebpki/jcs"
	case "encoding-json":
		return "encoding/json round trip (not RFC 8785-exact)"
	case libNode:
		return "Node canonicalize (in process)"
	}
	return lib
}

func color(lib string) string {
	if c, ok := palette[lib]; ok {
		return c
	}
	return "#76b7b2"
}

// writeChart writes a horizontal bar chart of the groups as a standalone
// SVG (no script, no external font or style), on a log scale: a bar per
// library and input, its length the median ratio, a whisker its range.
func writeChart(w io.Writer, title, subtitle string, groups []chartGroup) error {
	const (
		width    = 900.0
		left     = 250.0 // labels
		right    = 70.0  // value labels
		barH     = 13.0
		barGap   = 3.0
		groupGap = 16.0
		top      = 88.0
	)
	var libs []string
	lo, hi := 1.0, 1.0
	nbars := 0
	for _, g := range groups {
		for _, b := range g.bars {
			if !contains(libs, b.lib) {
				libs = append(libs, b.lib)
			}
			lo, hi = math.Min(lo, math.Min(b.lo, b.ratio)), math.Max(hi, math.Max(b.hi, b.ratio))
			nbars++
		}
	}
	// The axis runs between steps of 1, 2, 5 × 10^k around the values.
	a0, a1 := stepBelow(lo), stepAbove(hi*1.05)
	d0, d1 := math.Log10(a0), math.Log10(a1)
	plotW := width - left - right
	x := func(v float64) float64 { return left + plotW*(math.Log10(v)-d0)/(d1-d0) }
	height := top + float64(len(groups))*groupGap + float64(nbars)*(barH+barGap) + 50

	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="%.0f" y="20" font-size="14" font-weight="bold">%s</text>`+"\n", 10.0, esc(title))
	p(`<text x="%.0f" y="38" font-size="11" fill="#555555">%s</text>`+"\n", 10.0, esc(subtitle))
	// Legend.
	lx := 10.0
	for _, l := range libs {
		name := legendName(l)
		p(`<rect x="%.1f" y="50" width="12" height="12" fill="%s"/><text x="%.1f" y="60">%s</text>`+"\n", lx, color(l), lx+16, esc(name))
		lx += 24 + 7*float64(len(name))
	}
	// Grid: 1, 2, 5 × 10^k.
	axisY := height - 40
	for v := a0; v <= a1*1.0001; v = stepAbove(v * 1.0001) {
		gx := x(v)
		stroke, sw := "#dddddd", 1.0
		if v == 1 {
			stroke, sw = "#333333", 1.5
		}
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`+"\n", gx, top-8, gx, axisY, stroke, sw)
		p(`<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555555">%s×</text>`+"\n", gx, axisY+14, strconv.FormatFloat(v, 'g', -1, 64))
	}
	p(`<text x="%.1f" y="%.1f" fill="#555555">1× = bbdigest; longer is slower than bbdigest (log scale); the line across a bar is the range over the rounds</text>`+"\n", 10.0, axisY+30)
	y := top
	for _, g := range groups {
		p(`<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, y+barH-2, esc(g.label))
		for _, bb := range g.bars {
			x0, x1 := x(a0), x(bb.ratio)
			p(`<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s (range %s–%s)</title></rect>`+"\n",
				x0, y, math.Max(x1-x0, 1), barH, color(bb.lib), esc(g.label+", "+bb.lib), fmtX(bb.ratio), fmtRatio(bb.lo), fmtRatio(bb.hi))
			if bb.hi > bb.lo {
				p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222222" stroke-width="1"/>`+"\n", x(bb.lo), y+barH/2, x(bb.hi), y+barH/2)
			}
			p(`<text x="%.1f" y="%.1f" font-size="11">%s</text>`+"\n", math.Max(x1, x(bb.hi))+4, y+barH-2, fmtX(bb.ratio))
			y += barH + barGap
		}
		y += groupGap
	}
	p("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// stepBelow returns the largest of 1, 2, 5 × 10^k at most v (v > 0).
func stepBelow(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= v*1.0000001 {
			return m * p
		}
	}
	return p
}

// stepAbove returns the smallest of 1, 2, 5 × 10^k at least v (v > 0).
func stepAbove(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v*0.9999999 {
			return m * p
		}
	}
	return 10 * p
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
