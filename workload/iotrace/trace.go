package iotrace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/collect"
)

// Record is one I/O of a trace: a bio as it arrived at the block layer.
type Record struct {
	// Time is the arrival time in nanoseconds, on the trace's own relative
	// clock or measured from the trace's first record or event (see the
	// package doc and each reader). It may be negative or go backwards
	// when the trace is not in time order.
	Time time.Duration
	// PID is the submitting process where the format records one
	// (blkparse, ftrace); the device number (disksim), the disk number
	// (msr) or the ASU (spc) where that is the format's natural stream id;
	// 0 otherwise (fio-iolog).
	PID int
	// Process is the submitter's command name where known (blkparse and
	// ftrace: the name in [..]); the host name for msr; "" otherwise.
	Process string
	// Device names what the I/O targets where the format says: "major,minor"
	// for blkparse, ftrace and blktrace, the file name for fio-iolog (offsets are
	// relative to that file); "" otherwise.
	Device string
	// Op is read, write, discard or flush.
	Op blkq.Op
	// Flags are the bio's REQ_* flags as far as the format tells them
	// (only blkparse and ftrace carry flags in their RWBS column; fio-iolog
	// marks its syncs with FlagSync).
	Flags blkq.Flags
	// Sector is the first 512-byte sector. Byte offsets are rounded down to
	// a sector boundary. It is 0 for a flush.
	Sector uint64
	// Sectors is the length in 512-byte sectors, at least 1 except for a
	// flush, where it is 0. Byte ranges are rounded out to whole sectors.
	Sectors uint32
	// Line is the 1-based line of the record in its source.
	Line int
	// Plug is how the kernel plugged the bio, where the trace shows it:
	// blkparse and ftrace traces with P and U events (plugs.go). 0 for the
	// other formats, and for traces without them.
	Plug Plug
	// Splits are where the kernel split the bio, where the trace shows it
	// (the X events of blkparse and ftrace traces that show their plugs,
	// plugs.go): each the length in sectors of a piece split off its
	// front, in order; the rest after the last went on whole. nil when
	// the kernel split nothing, or the trace does not say.
	Splits []uint32
}

// Format names a trace format. The zero value "" means "detect it".
type Format string

// The formats this package reads.
const (
	// FormatBlkparse is blkparse's default text output (blkparse.go).
	FormatBlkparse Format = "blkparse"
	// FormatFtrace is the ftrace blk tracer's output, plain or blk_classic,
	// and the block_* tracepoints (ftrace.go).
	FormatFtrace Format = "ftrace"
	// FormatDiskSim is DiskSim/MQSim ASCII with times in nanoseconds, as
	// MQSim reads it (disksim.go).
	FormatDiskSim Format = "disksim"
	// FormatMSR is the MSR Cambridge CSV (msr.go).
	FormatMSR Format = "msr"
	// FormatSPC is the SPC/UMass CSV (spc.go).
	FormatSPC Format = "spc"
	// FormatIolog is fio's iolog, versions 2 and 3 (iolog.go).
	FormatIolog Format = "fio-iolog"
)

// Formats lists every Format, in the order Detect tries them.
var Formats = []Format{FormatIolog, FormatFtrace, FormatBlkparse, FormatMSR, FormatSPC, FormatDiskSim}

// Reader yields the records of a trace in file order. Next returns io.EOF
// after the last record, and after any error it returns that error again.
// A Reader is not safe for concurrent use.
type Reader interface {
	Next() (Record, error)
}

// NewReader returns a reader of r in format f. name identifies the source in
// errors (a file name, usually). Nothing is read until the first Next. The
// only error is an unknown format.
func NewReader(r io.Reader, name string, f Format) (Reader, error) {
	switch f {
	case FormatBlkparse, FormatFtrace:
		er, err := NewEventReader(r, name, f)
		if err != nil {
			return nil, err
		}
		return newPlugReader(er.Next), nil
	case FormatDiskSim:
		return NewDiskSimReader(r, name, time.Nanosecond), nil
	case FormatMSR:
		return newMSRReader(r, name), nil
	case FormatSPC:
		return newSPCReader(r, name), nil
	case FormatIolog:
		return newIologReader(r, name), nil
	}
	return nil, fmt.Errorf("trace: unknown format %q (want one of %v)", f, Formats)
}

// ReadAll reads r to the end. It returns every record read before the first
// error, and that error (nil at a clean end of input).
func ReadAll(r Reader) ([]Record, error) {
	return collect.All(r.Next)
}

// ReadFile reads the trace at path in format f, or in the format Detect finds
// in its first 64 KiB when f is "". It returns the format used, the records
// read before any error, and the error.
func ReadFile(path string, f Format) ([]Record, Format, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, f, err
	}
	defer fh.Close()
	if f == "" {
		head := make([]byte, 64<<10)
		n, err := io.ReadFull(fh, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, f, err
		}
		if f, err = Detect(head[:n]); err != nil {
			return nil, f, fmt.Errorf("%s: %w", path, err)
		}
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return nil, f, err
		}
	}
	r, err := NewReader(fh, path, f)
	if err != nil {
		return nil, f, err
	}
	recs, err := ReadAll(r)
	return recs, f, err
}

// ErrTruncated is matched (errors.Is) by the error for a last line that has
// no newline and does not parse: the trace was cut short.
var ErrTruncated = errors.New("truncated final record")

// ParseError is a line a reader could not turn into a record.
type ParseError struct {
	// Name is the source name given to NewReader.
	Name string
	// Line is the 1-based line number.
	Line int
	// Field is the offending field, named as the format's documentation
	// names it ("Offset", "arrival_time", "RWBS"), or "" for the line as a
	// whole.
	Field string
	// Msg says what is wrong.
	Msg string
	// Truncated is set when the line is the last of the input, lacks its
	// newline, and does not parse: the trace was cut short.
	Truncated bool
}

// Error reads like a compiler message:
// `trace.csv:17: field "Offset": invalid number "12x"`.
func (e *ParseError) Error() string {
	s := fmt.Sprintf("%s:%d: ", e.Name, e.Line)
	if e.Truncated {
		s += "truncated final record: "
	}
	if e.Field != "" {
		s += fmt.Sprintf("field %q: ", e.Field)
	}
	return s + e.Msg
}

// Unwrap gives ErrTruncated for a truncated final record.
func (e *ParseError) Unwrap() error {
	if e.Truncated {
		return ErrTruncated
	}
	return nil
}

// fieldError is what the per-format line parsers return; the reader adds the
// source name and line.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return fmt.Sprintf("field %q: %s", e.field, e.msg)
}

// badField makes a line parser's error. String arguments are shortened to
// 60 bytes: they are quoted from the input, which may be garbage.
func badField(field, format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = truncate(s, 60)
		}
	}
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// lineError turns a line parser's error into a *ParseError for line l.
func lineError(name string, l line, err error) error {
	pe := &ParseError{Name: name, Line: l.n, Msg: err.Error(), Truncated: l.unterminated}
	var fe *fieldError
	if errors.As(err, &fe) {
		pe.Field, pe.Msg = fe.field, fe.msg
	}
	return pe
}

// checkRecord reports whether rec is well formed: a known op, a non-empty
// range for data ops and an empty one at sector 0 for a flush, a range that
// does not wrap, known flags and a line number. Every reader's records pass
// it; the tests and fuzz targets hold them to it.
func checkRecord(rec Record) error {
	switch rec.Op {
	case blkq.OpRead, blkq.OpWrite, blkq.OpDiscard:
		if rec.Sectors == 0 {
			return fmt.Errorf("%v of 0 sectors", rec.Op)
		}
		if rec.Sector > math.MaxUint64-uint64(rec.Sectors) {
			return fmt.Errorf("range %d+%d wraps", rec.Sector, rec.Sectors)
		}
	case blkq.OpFlush:
		if rec.Sector != 0 || rec.Sectors != 0 {
			return fmt.Errorf("flush with range %d+%d", rec.Sector, rec.Sectors)
		}
	default:
		return fmt.Errorf("unknown op %v", rec.Op)
	}
	const known = blkq.FlagSync | blkq.FlagMeta | blkq.FlagReadAhead | blkq.FlagFUA | blkq.FlagPreflush | blkq.FlagNoMerge
	if rec.Flags&^known != 0 {
		return fmt.Errorf("unknown flags %#x", uint16(rec.Flags))
	}
	if rec.Line < 1 {
		return fmt.Errorf("line %d", rec.Line)
	}
	if rec.PID < 0 {
		return fmt.Errorf("pid %d", rec.PID)
	}
	return nil
}
