package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Format is a set of fio output formats (--output-format=json,normal).
type Format uint8

// The output formats fio 3.33 takes.
const (
	FormatNormal   Format = 1 << iota // fio's human output ([WriteNormal])
	FormatTerse                       // --minimal ([WriteTerse])
	FormatJSON                        // [WriteJSON]
	FormatJSONPlus                    // json+ ([WriteJSONPlus]); implies FormatJSON
)

// ParseFormats parses fio's --output-format value: a comma-separated list
// of normal, terse, json and json+. An unknown or empty name is an error
// naming it.
func ParseFormats(s string) (Format, error) {
	var f Format
	for _, name := range strings.Split(s, ",") {
		switch name {
		case "normal":
			f |= FormatNormal
		case "terse":
			f |= FormatTerse
		case "json":
			f |= FormatJSON
		case "json+":
			f |= FormatJSONPlus | FormatJSON
		default:
			return 0, fmt.Errorf("output format %.40q: want normal, terse, json or json+ (a comma list of them)", name)
		}
	}
	return f, nil
}

// Write writes r in every format of f, in the order fio 3.33 prints them
// whatever the order of the list: the normal output's job lines first (fio
// prints them as the jobs start), then terse, then JSON (json+ when
// asked), then the rest of the normal output.
func Write(w io.Writer, r *Run, f Format) error { return write(w, r, f, true) }

// WriteNext writes r as [Write] does, as a report after the first of the
// same run (fio --status-interval): the normal output's job lines,
// version and "Starting" line, printed once before the first report, are
// left out; the blank line fio prints before each report stays.
func WriteNext(w io.Writer, r *Run, f Format) error { return write(w, r, f, false) }

func write(w io.Writer, r *Run, f Format, header bool) error {
	if r == nil {
		r = &Run{}
	}
	bw := bufio.NewWriter(w)
	switch {
	case f&FormatNormal == 0:
	case header:
		writeNormalHeader(bw, r)
	default:
		bw.WriteString("\n")
	}
	if f&FormatTerse != 0 {
		ver := r.TerseVersion
		if ver == 0 {
			ver = TerseVersion
		}
		if err := WriteTerseVersion(bw, r, ver); err != nil {
			return err
		}
	}
	if f&FormatJSON != 0 {
		writeJSONValue(bw, runJSON(r, f&FormatJSONPlus != 0), 0)
		bw.WriteString("\n")
	}
	if f&FormatNormal != 0 {
		writeNormalBody(bw, r)
	}
	return bw.Flush()
}
