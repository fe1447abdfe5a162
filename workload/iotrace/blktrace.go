package iotrace

// A blktrace binary file (package trace reads its records) logs every step
// of a bio's life; for a replay only its Q (queued) events are I/Os, as for
// blkparse text. This file turns them into Records.

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/trace"
)

// FormatBlktrace is blktrace's binary format (package trace; blkq run
// --trace writes it). It is not among Formats: Detect reads text, and a
// blktrace reader needs the process names from a first pass over the file
// (BlktraceNames); Open handles both.
const FormatBlktrace Format = "blktrace"

// IsBlktrace reports whether data starts with a blktrace record (the magic
// 0x65617400|version in either byte order).
func IsBlktrace(data []byte) bool {
	return len(data) >= 4 && (string(data[1:4]) == "tae" || string(data[0:3]) == "eat")
}

// BlktraceNames reads the process notes of the blktrace binary trace r and
// returns pid → command name; a pid's first note wins, as in blkparse. It
// stops at the first malformed record: the reader reports it.
func BlktraceNames(r io.Reader) map[uint32]string {
	names := map[uint32]string{}
	rd := trace.NewReader(r)
	for {
		rec, err := rd.Next()
		if err != nil {
			return names
		}
		if rec.Action&^trace.TACgroup == trace.ActionProcess {
			if _, ok := names[rec.PID]; !ok {
				names[rec.PID] = rec.Name()
			}
		}
	}
}

// NewBlktraceReader returns a reader of the Q events of the blktrace binary
// trace r as records: time (from the first Q event), sector, size,
// direction, sync/meta/read-ahead/FUA flags, pid and the process name from
// names (BlktraceNames). name identifies the source in errors. Each
// record's Line is its index in the file, counted from 1, notes included.
// A trace without Q events is an error at its end.
func NewBlktraceReader(r io.Reader, name string, names map[uint32]string) Reader {
	return &blktraceReader{name: name, rd: trace.NewReader(r), names: names}
}

// blktraceReader is NewBlktraceReader's Reader.
type blktraceReader struct {
	name  string
	rd    *trace.Reader
	names map[uint32]string
	i     int    // records read, notes included
	n     int    // Q events returned
	t0    uint64 // the first Q event's time
}

func (b *blktraceReader) Next() (Record, error) {
	for {
		r, err := b.rd.Next()
		if err == io.EOF {
			if b.n == 0 {
				return Record{}, fmt.Errorf("%s: no Q events in the trace", b.name)
			}
			return Record{}, io.EOF
		}
		if err != nil {
			return Record{}, fmt.Errorf("%s: %w", b.name, err)
		}
		b.i++
		if r.IsNotify() || r.What() != trace.TAQueue {
			continue
		}
		if b.n == 0 {
			b.t0 = r.Time
		}
		b.n++
		op, fl := blktraceOp(r.Categories(), r.Bytes)
		if r.Sectors() == 0 && op != blkq.OpFlush {
			return Record{}, fmt.Errorf("%s: record %d: a %v of %d bytes (less than a sector)", b.name, b.i, op, r.Bytes)
		}
		if r.Sector+uint64(r.Sectors()) < r.Sector {
			return Record{}, fmt.Errorf("%s: record %d: sector %d + %d sectors overflows", b.name, b.i, r.Sector, r.Sectors())
		}
		rel, err := b.relTime(r.Time)
		if err != nil {
			return Record{}, err
		}
		return Record{Time: rel, PID: int(r.PID), Process: b.names[r.PID],
			Op: op, Flags: fl, Sector: r.Sector, Sectors: r.Sectors(), Line: b.i}, nil
	}
}

// blktraceOp decodes a Q event's category bits (and its size, which tells
// a flush from a write with a preflush) into an op and REQ_* flags.
func blktraceOp(c uint16, bytes uint32) (blkq.Op, blkq.Flags) {
	op := blkq.OpRead
	var fl blkq.Flags
	switch {
	case c&trace.TCDiscard != 0:
		op = blkq.OpDiscard
	case c&trace.TCFlush != 0 && bytes == 0:
		op = blkq.OpFlush
	case c&trace.TCWrite != 0:
		op = blkq.OpWrite
		if c&trace.TCFlush != 0 {
			fl |= blkq.FlagPreflush
		}
	}
	for _, m := range []struct {
		c uint16
		f blkq.Flags
	}{{trace.TCSync, blkq.FlagSync}, {trace.TCMeta, blkq.FlagMeta}, {trace.TCAhead, blkq.FlagReadAhead}, {trace.TCFUA, blkq.FlagFUA}} {
		if c&m.c != 0 {
			fl |= m.f
		}
	}
	return op, fl
}

// relTime turns a record's time (unsigned ns) into time since the first Q
// event: signed, and it may go back (per-CPU streams interleave).
func (b *blktraceReader) relTime(t uint64) (time.Duration, error) {
	if t >= b.t0 {
		if t-b.t0 > math.MaxInt64 {
			return 0, fmt.Errorf("%s: record %d: time %d ns is more than 2^63-1 ns after the first Q event's (%d ns)", b.name, b.i, t, b.t0)
		}
		return time.Duration(t - b.t0), nil
	}
	if b.t0-t > math.MaxInt64 {
		return 0, fmt.Errorf("%s: record %d: time %d ns is more than 2^63-1 ns before the first Q event's (%d ns)", b.name, b.i, t, b.t0)
	}
	return -time.Duration(b.t0 - t), nil
}
