package trace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/blkq-dev/blkq/internal/collect"
)

// A FormatError is a malformed record: it names the record (counted from
// 0, notify records included) and the byte offset where it starts.
type FormatError struct {
	Index  int
	Offset int64
	Msg    string
}

// Error returns "blktrace: record N at byte OFFSET: what is wrong".
func (e *FormatError) Error() string {
	return fmt.Sprintf("blktrace: record %d at byte %d: %s", e.Index, e.Offset, e.Msg)
}

// A Reader reads blktrace binary records. The byte order is taken from
// the first record's magic word (blktrace writes in the tracing machine's
// order) and must hold for the whole stream; versions 6 and 7, which share
// the 48-byte layout, are accepted.
type Reader struct {
	br    *bufio.Reader
	order binary.ByteOrder
	index int
	off   int64
	err   error
	hdr   [RecordSize]byte
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// ByteOrder returns the byte order of the records read so far (nil
// before the first).
func (r *Reader) ByteOrder() binary.ByteOrder { return r.order }

// Next returns the next record. At the end of the input it returns
// io.EOF; a malformed or truncated record gives a *FormatError, and every
// later call returns the same error.
func (r *Reader) Next() (Record, error) {
	var rec Record
	if r.err != nil {
		return rec, r.err
	}
	n, err := io.ReadFull(r.br, r.hdr[:])
	switch {
	case err == io.EOF:
		r.err = io.EOF
		return rec, r.err
	case err == io.ErrUnexpectedEOF:
		return rec, r.fail("truncated record: %d of %d bytes", n, RecordSize)
	case err != nil:
		return rec, r.fail("%v", err)
	}
	if r.order == nil {
		switch {
		case binary.LittleEndian.Uint32(r.hdr[:])&^0xff == Magic:
			r.order = binary.LittleEndian
		case binary.BigEndian.Uint32(r.hdr[:])&^0xff == Magic:
			r.order = binary.BigEndian
		default:
			return rec, r.fail("not a blktrace record: magic %#08x", binary.LittleEndian.Uint32(r.hdr[:]))
		}
	}
	magic := r.order.Uint32(r.hdr[:])
	if magic&^0xff != Magic {
		return rec, r.fail("bad magic %#08x (want %#08x in %v order)", magic, Magic|Version, r.order)
	}
	if v := magic & 0xff; v != 6 && v != 7 {
		return rec, r.fail("unsupported version %d (want 6 or 7)", v)
	}
	pduLen := decodeHeader(r.hdr[:], r.order, &rec)
	if pduLen > 0 {
		rec.PDU = make([]byte, pduLen)
		if n, err := io.ReadFull(r.br, rec.PDU); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return Record{}, r.fail("truncated payload: %d of %d bytes", n, pduLen)
			}
			return Record{}, r.fail("%v", err)
		}
	}
	r.index++
	r.off += int64(RecordSize + pduLen)
	return rec, nil
}

func (r *Reader) fail(format string, args ...any) error {
	r.err = &FormatError{Index: r.index, Offset: r.off, Msg: fmt.Sprintf(format, args...)}
	return r.err
}

// ReadAll reads records until the end of r. On a malformed record it
// returns every record before it and the error.
func ReadAll(r io.Reader) ([]Record, error) {
	return collect.All(NewReader(r).Next)
}

// ReadFile reads every record of the named file; errors name the file.
func ReadFile(name string) ([]Record, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := ReadAll(f)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			return recs, fmt.Errorf("%s: %w", name, err)
		}
		return recs, err
	}
	return recs, nil
}

// Names returns the pid → command name map of the process notes among
// recs; the first note of a pid wins, as in blkparse.
func Names(recs []Record) map[uint32]string {
	names := map[uint32]string{}
	for i := range recs {
		r := &recs[i]
		if r.Action&^(TACgroup) == ActionProcess {
			if _, ok := names[r.PID]; !ok {
				names[r.PID] = r.Name()
			}
		}
	}
	return names
}
