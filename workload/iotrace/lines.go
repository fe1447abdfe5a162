package iotrace

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// maxLine bounds a line, in bytes: no trace format here has lines anywhere
// near it, so a longer one means the input is not text of these formats.
const maxLine = 1 << 20

// line is one line of a text trace, without its "\n" or "\r\n".
type line struct {
	text string
	n    int // 1-based line number
	// unterminated is set for a last line with no newline: if it does not
	// parse, the trace was cut short.
	unterminated bool
}

// lineReader splits a text trace into lines. Errors are sticky.
type lineReader struct {
	br   *bufio.Reader
	name string
	n    int
	err  error
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), name: name}
}

// next returns the next line, or io.EOF at the end, or a read error (which
// names the source), or a *ParseError for an overlong line.
func (lr *lineReader) next() (line, error) {
	if lr.err != nil {
		return line{}, lr.err
	}
	var buf []byte
	for {
		chunk, err := lr.br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			lr.err = &ParseError{Name: lr.name, Line: lr.n + 1, Msg: fmt.Sprintf("line longer than %d bytes", maxLine)}
			return line{}, lr.err
		}
		switch err {
		case nil:
			lr.n++
			return line{text: trimEOL(buf), n: lr.n}, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			lr.err = io.EOF
			if len(buf) == 0 {
				return line{}, io.EOF
			}
			lr.n++
			return line{text: trimEOL(buf), n: lr.n, unterminated: true}, nil
		default:
			lr.err = fmt.Errorf("%s: read after line %d: %w", lr.name, lr.n, err)
			return line{}, lr.err
		}
	}
}

func trimEOL(b []byte) string {
	s := string(b)
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// isBlank reports a line of only spaces and tabs.
func isBlank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// cutFields splits off the first n whitespace-separated fields of s and
// returns them with the rest of s (leading space removed). ok is false when s
// has fewer than n fields.
func cutFields(s string, n int) (fields []string, rest string, ok bool) {
	fields = make([]string, 0, n)
	for len(fields) < n {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return fields, "", false
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		fields = append(fields, s[:end])
		s = s[end:]
	}
	return fields, strings.TrimLeft(s, " \t"), true
}

// splitCSV splits a CSV line on commas and trims spaces around each field.
// The trace CSVs here have no quoting.
func splitCSV(s string) []string {
	f := strings.Split(s, ",")
	for i := range f {
		f[i] = strings.TrimSpace(f[i])
	}
	return f
}
