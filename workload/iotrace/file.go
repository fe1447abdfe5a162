package iotrace

// A replay opens its trace several times (detection, sizing the device,
// checking the records, replaying), so a trace file is given as an Opener
// that reads it from the start on each call, rather than as one Reader.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"time"
)

// headSize is how much of a file detection reads: a large file of garbage
// fails at once without being read.
const headSize = 64 << 10

// File is a Reader of a trace file, to be closed after use.
type File struct {
	Reader
	f *os.File
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// An Opener opens its trace file again from the start, for one more pass.
type Opener func() (*File, error)

// Open checks the trace file at path and returns its Opener. f is the
// format, or "" to detect it from the first 64 KiB: FormatBlktrace for a
// blktrace binary file, else what Detect finds. unit is the time unit of a
// DiskSim trace's arrival times (0: nanoseconds, as MQSim writes them).
// A pipe, FIFO or socket is refused (see rereadable); errors name the file.
func Open(path string, f Format, unit time.Duration) (Opener, error) {
	if err := rereadable(path); err != nil {
		return nil, err
	}
	f, err := FileFormat(path, f)
	if err != nil {
		return nil, err
	}
	if unit > 0 && f != FormatDiskSim {
		return nil, fmt.Errorf("%s: a %s trace: only DiskSim traces take a time unit", path, f)
	}
	if f == FormatBlktrace {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		names := BlktraceNames(fh)
		fh.Close()
		return openWith(path, func(fh *os.File) (Reader, error) { return NewBlktraceReader(fh, path, names), nil }), nil
	}
	if _, err := NewReader(bytes.NewReader(nil), path, f); err != nil {
		return nil, err // an unknown format
	}
	return openWith(path, func(fh *os.File) (Reader, error) {
		if f == FormatDiskSim && unit > 0 {
			return NewDiskSimReader(fh, path, unit), nil
		}
		return NewReader(fh, path, f)
	}), nil
}

// FileFormat returns f, or when f is "" the format of the file at path:
// FormatBlktrace for a blktrace binary file, else what Detect finds in
// its first 64 KiB.
func FileFormat(path string, f Format) (Format, error) {
	if f != "" {
		return f, nil
	}
	head, err := readHead(path, headSize)
	if err != nil {
		return "", err
	}
	if IsBlktrace(head) {
		return FormatBlktrace, nil
	}
	if f, err = Detect(head); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// openWith is the Opener that opens path and reads it with newReader.
func openWith(path string, newReader func(*os.File) (Reader, error)) Opener {
	return func() (*File, error) {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		r, err := newReader(fh)
		if err != nil {
			fh.Close()
			return nil, err
		}
		return &File{Reader: r, f: fh}, nil
	}
}

// rereadable refuses a trace that cannot be read twice: a pipe, FIFO or
// socket gives each open only what the previous ones left, so a replay
// would parse the middle of the stream, call it malformed, or wait for
// ever for a writer. A process substitution, <(zcat trace.gz), is such a
// pipe.
func rereadable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		return fmt.Errorf("%s: a pipe, FIFO or socket: replay reads its trace more than once; save it to a file first", path)
	}
	return nil
}

// readHead returns up to n bytes from the start of the file at path.
func readHead(path string, n int) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	head := make([]byte, n)
	got, err := io.ReadFull(fh, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return head[:got], nil
}
