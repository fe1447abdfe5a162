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
// names (BlktraceNames), and, as for blkparse and ftrace text, the plug
// each was submitted under and the kernel's splits of it (plugs.go), from
// the trace's P, U, UT and X records. name identifies the source in
// errors. Each record's Line is its index in the file, counted from 1,
// notes included. A trace without Q events is an error at its end.
func NewBlktraceReader(r io.Reader, name string, names map[uint32]string) Reader {
	return &blktraceRecords{plugs: newPlugReader(NewBlktraceEventReader(r, name, names).Next)}
}

// blktraceRecords is NewBlktraceReader's Reader: the plug reader's
// records, their times counted from the first Q event's.
type blktraceRecords struct {
	plugs *plugReader
	t0    time.Duration // the first record's time since the first event's
	n     int
}

func (b *blktraceRecords) Next() (Record, error) {
	r, err := b.plugs.Next()
	if err != nil {
		return r, err
	}
	if b.n == 0 {
		b.t0 = r.Time
	}
	b.n++
	r.Time -= b.t0
	return r, nil
}

// NewBlktraceEventReader returns a reader of every event of the
// blktrace binary trace r, as the EventReader of blkparse text gives
// them: action (T for a timer unplug, UT), RWBS, CPU, time since the
// first event, pid and process name (from names), device, op and flags,
// the sector range (for X the piece split off, for U and UT the depth),
// and as Line its index in the file, counted from 1, notes included.
// Notes and messages are skipped. A trace without Q events is an error
// at its end.
func NewBlktraceEventReader(r io.Reader, name string, names map[uint32]string) interface{ Next() (Event, error) } {
	return &blktraceReader{name: name, rd: trace.NewReader(r), names: names}
}

// blktraceReader is NewBlktraceEventReader's reader.
type blktraceReader struct {
	name  string
	rd    *trace.Reader
	names map[uint32]string
	i     int  // records read, notes included
	n     int  // Q events returned
	based bool // t0 is set
	t0    uint64
	err   error // returned again after the first
}

func (b *blktraceReader) Next() (Event, error) {
	if b.err != nil {
		return Event{}, b.err
	}
	ev, err := b.next()
	if err != nil {
		b.err = err
	}
	return ev, err
}

func (b *blktraceReader) next() (Event, error) {
	for {
		r, err := b.rd.Next()
		if err == io.EOF {
			if b.n == 0 {
				return Event{}, fmt.Errorf("%s: no Q events in the trace", b.name)
			}
			return Event{}, io.EOF
		}
		if err != nil {
			return Event{}, fmt.Errorf("%s: %w", b.name, err)
		}
		b.i++
		letter := r.Letter()
		if r.IsNotify() || letter == "" {
			continue
		}
		action, _ := parseAction(letter)
		if !b.based {
			b.t0, b.based = r.Time, true
		}
		rel, err := b.relTime(r.Time)
		if err != nil {
			return Event{}, err
		}
		op, fl := blktraceOp(r.Categories(), r.Bytes)
		ev := Event{Record: Record{Time: rel, PID: int(r.PID), Process: b.names[r.PID], Device: r.Device.String(),
			Op: op, Flags: fl, Sector: r.Sector, Sectors: r.Sectors(), Line: b.i}, Action: action, RWBS: r.RWBS(), CPU: int(r.CPU)}
		switch action {
		case 'Q':
			b.n++
			if r.Sectors() == 0 && op != blkq.OpFlush {
				return Event{}, fmt.Errorf("%s: record %d: a %v of %d bytes (less than a sector)", b.name, b.i, op, r.Bytes)
			}
			if r.Sector+uint64(r.Sectors()) < r.Sector {
				return Event{}, fmt.Errorf("%s: record %d: sector %d + %d sectors overflows", b.name, b.i, r.Sector, r.Sectors())
			}
		case 'U', 'T':
			n, ok := r.PDUInt()
			if !ok || n > math.MaxInt32 {
				return Event{}, fmt.Errorf("%s: record %d: an unplug without its number of requests", b.name, b.i)
			}
			ev.Depth, ev.Op, ev.Flags, ev.Sector, ev.Sectors = int(n), 0, 0, 0, 0
		case 'P':
			ev.Op, ev.Flags, ev.Sector, ev.Sectors = 0, 0, 0, 0
		case 'X':
			at, ok := r.PDUInt()
			if !ok || at <= r.Sector || at-r.Sector > uint64(^uint32(0)) {
				return Event{}, fmt.Errorf("%s: record %d: a split of the bio at sector %d without a sector after it to split at", b.name, b.i, r.Sector)
			}
			ev.Sectors = uint32(at - r.Sector)
		}
		return ev, nil
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

// relTime turns a record's time (unsigned ns) into time since the first
// event's: signed, and it may go back (per-CPU streams interleave).
func (b *blktraceReader) relTime(t uint64) (time.Duration, error) {
	if t >= b.t0 {
		if t-b.t0 > math.MaxInt64 {
			return 0, fmt.Errorf("%s: record %d: time %d ns is more than 2^63-1 ns after the first event's (%d ns)", b.name, b.i, t, b.t0)
		}
		return time.Duration(t - b.t0), nil
	}
	if b.t0-t > math.MaxInt64 {
		return 0, fmt.Errorf("%s: record %d: time %d ns is more than 2^63-1 ns before the first event's (%d ns)", b.name, b.i, t, b.t0)
	}
	return -time.Duration(b.t0 - t), nil
}
