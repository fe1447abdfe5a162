package trace

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync"

	"github.com/blkq-dev/blkq"
)

// WriterOptions configure a Writer. The zero value writes device 8,0 in
// the machine's byte order, as blktrace does.
type WriterOptions struct {
	// Dev is the device every record names (default DefaultDev, 8,0).
	Dev Dev
	// ByteOrder is the order of the records' fields (default the native
	// order; blkparse and the Reader accept either).
	ByteOrder binary.ByteOrder
}

// A Writer is a blkq.Tracer that writes the event stream as a blktrace
// binary trace (version 7) of one device on CPU 0: one record per event
// that has a blktrace action (Q M F G S R I D C P U; blkq's request-to-
// request merge has none and is skipped), with sequence numbers from 1,
// times in ns of the queue's clock (since the run's start), and a process
// note (BLK_TN_PROCESS) the first time each pid appears, so that blkparse
// prints task names. The pid is the event's task (for I, D and C the
// request's owner), where the kernel records whichever task was running. Records are buffered: call Close (or Flush) after
// the run.
//
// For blkparse -i NAME, name the file NAME.blktrace.0 (blkparse reads
// NAME.blktrace.CPU). A simulated run starts at time 0, which blkparse
// 1.2.0 reading standard input (-i -) takes for "no start time yet": it
// then prints the times of every batch of 512 records relative to that
// batch. Reading the file by name is not affected.
//
// Trace may be called from any goroutine; the first write error stops
// the writer, and Flush, Close and Err report it.
type Writer struct {
	mu     sync.Mutex
	bw     *bufio.Writer
	file   io.Closer // the file Create opened, closed by Close
	order  binary.ByteOrder
	dev    Dev
	seq    uint32
	noted  map[int]bool
	buf    []byte
	err    error
	closed bool
	events int64
	notes  int64
}

// ErrClosed is reported when events reach a Writer after Close.
var ErrClosed = errors.New("trace: event after the writer was closed")

// NewWriter returns a Writer writing to w. Close flushes it but does not
// close w.
func NewWriter(w io.Writer, opt WriterOptions) *Writer {
	if opt.Dev == 0 {
		opt.Dev = DefaultDev
	}
	if opt.ByteOrder == nil {
		opt.ByteOrder = binary.NativeEndian
	}
	return &Writer{
		bw:    bufio.NewWriterSize(w, 64<<10),
		order: opt.ByteOrder,
		dev:   opt.Dev,
		noted: map[int]bool{},
		buf:   make([]byte, 0, 2*RecordSize+commLen),
	}
}

// Create creates (or truncates) the file name and returns a Writer to it;
// Close closes the file.
func Create(name string, opt WriterOptions) (*Writer, error) {
	f, err := os.Create(name)
	if err != nil {
		return nil, err
	}
	w := NewWriter(f, opt)
	w.file = f
	return w, nil
}

// Trace writes the record of e (and a process note before the first
// record of a pid).
func (w *Writer) Trace(e *blkq.Event) {
	action, sector, bytes, ok := eventAction(e)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return
	}
	if w.closed {
		w.err = ErrClosed
		return
	}
	w.buf = w.buf[:0]
	if !w.noted[e.PID] {
		w.noted[e.PID] = true
		name := taskName(e)
		if name == "" {
			name = "blkq"
		}
		comm := make([]byte, commLen)
		copy(comm[:commLen-1], name)
		w.buf = AppendRecord(w.buf, &Record{Time: uint64(e.Time), Action: ActionProcess,
			PID: uint32(e.PID), Device: w.dev, PDU: comm}, w.order)
		w.notes++
	}
	w.seq++
	r := Record{Sequence: w.seq, Time: uint64(e.Time), Sector: sector, Bytes: bytes,
		Action: action, PID: uint32(e.PID), Device: w.dev}
	switch e.Action {
	case 'C':
		r.Error = errorCode(e.Err)
	case 'U':
		var pdu [8]byte
		binary.BigEndian.PutUint64(pdu[:], uint64(max(e.Depth, 0)))
		r.PDU = pdu[:]
	case 'X':
		var pdu [8]byte
		binary.BigEndian.PutUint64(pdu[:], e.Sector+uint64(e.Sectors))
		r.PDU = pdu[:]
	}
	w.buf = AppendRecord(w.buf, &r, w.order)
	if _, err := w.bw.Write(w.buf); err != nil {
		w.err = err
		return
	}
	w.events++
}

// Flush writes the buffered records out.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushLocked() error {
	if w.err == nil && !w.closed {
		w.err = w.bw.Flush()
	}
	return w.err
}

// Close flushes the records and closes the file Create opened. Events
// that arrive later are an error (ErrClosed).
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.closeErr()
	}
	err := w.flushLocked()
	w.closed = true
	if w.file != nil {
		if cerr := w.file.Close(); err == nil {
			err = cerr
			w.err = cerr
		}
	}
	return err
}

func (w *Writer) closeErr() error {
	if w.err == ErrClosed {
		return nil
	}
	return w.err
}

// Err returns the first error the writer met, if any.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Counts returns the number of event records and of process notes
// written so far.
func (w *Writer) Counts() (events, notes int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events, w.notes
}
