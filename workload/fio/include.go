package fio

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// fio's include directive: "include FILE" on a line of its own reads
// FILE's option lines as if they stood where the directive does, into the
// section being read ([global] or a job). A relative FILE is found beside
// the file that includes it (fio prefixes the including file's
// directory); an included file may include others, but may not start a
// section (fio: "No new sections in included files").
//
// fio 3.33 reports a missing or section-holding include file and goes on
// without its options (exit status 0), and crashes on a bare "include".
// blkq makes each of these an error naming the file and line, since a job
// run without the options its author included is not the job asked for.
// blkq also takes an absolute FILE as written, where fio 3.33 prefixes the
// directory to it as well and so cannot open it.

// maxIncludeDepth bounds nested includes, so that a file that includes
// itself is an error, not a stack overflow.
const maxIncludeDepth = 16

// include reads the job file named by arg (relative to the directory of
// the file being parsed) into the current section.
func (p *parser) include(arg string, line int) error {
	if arg == "" {
		return p.errorf(line, "", "", "include needs a file name (include FILE)")
	}
	if !p.inSection {
		return p.errorf(line, "", "", "include %s appears before any [section]", quote(arg))
	}
	if p.including >= maxIncludeDepth {
		return p.errorf(line, "", "", "include %s: more than %d nested includes (does a file include itself?)", quote(arg), maxIncludeDepth)
	}
	path := arg
	if !filepath.IsAbs(path) && p.path != StdinPath {
		path = filepath.Join(filepath.Dir(p.path), arg)
	}
	src, err := readJobText(path)
	if err != nil {
		return p.errorf(line, "", "", "include %s: %v", quote(arg), err)
	}
	outer := p.path
	p.path, p.including = path, p.including+1
	defer func() { p.path, p.including = outer, p.including-1 }()
	for i, raw := range splitLines(src) {
		kind, text, _ := classifyLine(raw)
		switch kind {
		case lineSection:
			return p.errorf(i+1, "", "", "an included file may not start a section (fio: no new sections in included files)")
		case lineOption:
			if err := p.option(text, i+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// readJobText reads a regular job file of at most MaxFileSize bytes. A
// FIFO, a terminal or a device is refused: reading one could wait for ever.
func readJobText(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(src) > MaxFileSize {
		return nil, fmt.Errorf("longer than %d bytes (16 MiB), blkq's limit for a job file", MaxFileSize)
	}
	return src, nil
}
