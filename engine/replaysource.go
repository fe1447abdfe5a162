package engine

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// Streaming a trace into a replay. A trace may hold tens of millions of
// records, so ReplayStream never holds them all: a first pass checks every
// record and gathers what the replay needs up front (the device size for
// file: devices, the earliest time, the block sizes), and the replay pass
// reads the records again as it goes. Records out of time order are put
// back in order within a window of ReplayWindow records, which covers the
// interleaving of per-CPU streams; a record further out of order than that
// is replayed late, when the replay reaches it, and counted in a warning.

// ReplayWindow is how many records ReplayStream reads ahead of the replay
// to put them in time order.
const ReplayWindow = 1 << 14

// maxSectorEnd is the largest sector end whose byte offset fits an int64,
// as Linux's loff_t: 2^54 - 1 sectors.
const maxSectorEnd = math.MaxInt64 >> blkq.SectorShift

// A ReplayReader yields a trace's records in file order.
type ReplayReader interface {
	// Next returns the next record, or io.EOF after the last. Any other
	// error ends the trace.
	Next() (ReplayRecord, error)
	// Close releases the reader.
	Close() error
}

// A ReplaySource opens a new ReplayReader at the first record of a
// trace. ReplayStream opens it two or three times, and each reader must
// yield the same records.
type ReplaySource func() (ReplayReader, error)

// SliceSource is the ReplaySource of records held in memory.
func SliceSource(recs []ReplayRecord) ReplaySource {
	return func() (ReplayReader, error) { return &sliceReader{recs: recs}, nil }
}

type sliceReader struct {
	recs []ReplayRecord
	i    int
}

func (s *sliceReader) Next() (ReplayRecord, error) {
	if s.i >= len(s.recs) {
		return ReplayRecord{}, io.EOF
	}
	s.i++
	return s.recs[s.i-1], nil
}

func (s *sliceReader) Close() error { return nil }

// traceScan is what the first pass learns of a trace.
type traceScan struct {
	n      int64         // records before the end or the first reader error
	err    error         // the reader error that ended the trace early, or nil
	t0     time.Duration // the earliest record's time
	sorted bool          // every record's time is at least the one before
	maxEnd uint64        // the largest sector end
	bs     [report.NumDirs]report.BSRange
}

// scanTrace reads src once and checks every record: a range that wraps or
// whose byte offset overflows an int64, and (trace timing) an arrival time
// that does not fit a time.Duration at ro.Speed, are errors naming the
// record's line. A closing of stop (nil: never) ends it with
// ErrInterrupted: a trace of millions of records takes a while to read.
func scanTrace(name string, src ReplaySource, ro ReplayOptions, stop <-chan struct{}) (*traceScan, error) {
	rd, err := src()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	sc := &traceScan{sorted: true}
	var prev, tmax time.Duration
	var tmaxLine int
	for {
		if sc.n > 0 && sc.n%setupRecordsCheckEvery == 0 && closed(stop) {
			return nil, ErrInterrupted
		}
		r, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if sc.n == 0 {
				return nil, err
			}
			sc.err = err
			break
		}
		if r.Sector+uint64(r.Sectors) < r.Sector {
			return nil, fmt.Errorf("%s:%d: sectors %d+%d overflow 64 bits, far past byte 2^63-1", name, r.Line, r.Sector, r.Sectors)
		}
		if end := r.Sector + uint64(r.Sectors); end > maxSectorEnd {
			return nil, fmt.Errorf("%s:%d: sectors %d+%d end past byte 2^63-1: the byte offset overflows", name, r.Line, r.Sector, r.Sectors)
		}
		if sc.n == 0 {
			sc.t0, tmax, tmaxLine = r.Time, r.Time, r.Line
		} else if r.Time < prev {
			sc.sorted = false
		}
		sc.t0 = min(sc.t0, r.Time)
		if r.Time > tmax {
			tmax, tmaxLine = r.Time, r.Line
		}
		prev = r.Time
		sc.maxEnd = max(sc.maxEnd, r.Sector+uint64(r.Sectors))
		// The block sizes the trace used, per direction, for the header.
		if n := uint64(r.Sectors) << blkq.SectorShift; n > 0 {
			b := &sc.bs[rwt(r.Op)]
			if b.Min == 0 || n < b.Min {
				b.Min = n
			}
			b.Max = max(b.Max, n)
		}
		sc.n++
	}
	if sc.n == 0 {
		return nil, fmt.Errorf("%s: no records to replay", name)
	}
	if ro.Timing == "trace" {
		if sc.t0 < 0 && tmax > math.MaxInt64+sc.t0 {
			return nil, fmt.Errorf("%s:%d: time %d ns is more than 2^63-1 ns after the earliest record's (%d ns)", name, tmaxLine, int64(tmax), int64(sc.t0))
		}
		if at := float64(tmax-sc.t0) / ro.Speed; !(at < math.MaxInt64) {
			return nil, fmt.Errorf("%s:%d: time %v after the first record is, at --speed=%g, beyond the largest time blkq can replay (2^63-1 ns, about 292 years)", name, tmaxLine, tmax-sc.t0, ro.Speed)
		}
	}
	return sc, nil
}

// beyondCount is what checkBeyond finds: records the feeder wraps into
// the device, and records larger than the whole device, which no wrap
// can place (they are submitted as they are and fail alone, like any I/O
// beyond the end).
type beyondCount struct {
	wrapped, tooLarge int64
	firstTooLarge     int // line of the first record larger than the device
}

// checkBeyond reads the first n records of src again for those beyond a
// device of devSectors: with strict the first is an error, otherwise they
// are counted. A closing of stop ends it with ErrInterrupted.
func checkBeyond(name string, src ReplaySource, n int64, devSectors uint64, strict bool, stop <-chan struct{}) (beyondCount, error) {
	var bc beyondCount
	rd, err := src()
	if err != nil {
		return bc, err
	}
	defer rd.Close()
	for i := range n {
		if i > 0 && i%setupRecordsCheckEvery == 0 && closed(stop) {
			return bc, ErrInterrupted
		}
		r, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				err = errors.New("trace ended early")
			}
			return bc, fmt.Errorf("%s: reading the trace again: %w", name, err)
		}
		if r.Sector+uint64(r.Sectors) <= devSectors {
			continue
		}
		if strict {
			return bc, fmt.Errorf("%s:%d: sectors %d+%d are beyond the device's %d sectors", name, r.Line, r.Sector, r.Sectors, devSectors)
		}
		if uint64(r.Sectors) > devSectors {
			if bc.tooLarge++; bc.tooLarge == 1 {
				bc.firstTooLarge = r.Line
			}
			continue
		}
		bc.wrapped++
	}
	return bc, nil
}

// feeder reads the replay pass and hands records out in time order within
// its window.
type feeder struct {
	rd     ReplayReader
	left   int64 // records still to read: the first pass's count
	wrap   bool  // some records lie beyond the device: wrap them
	wrapTo uint64
	win    recHeap
	seq    int64         // records read so far: the tie-break of equal times
	index  int           // records handed out so far
	last   time.Duration // time of the last record handed out
	late   int64         // records handed out after a later one
	err    error         // a reader error: the trace ends there
}

// fill reads until the window is full or the trace ends.
func (f *feeder) fill() {
	for f.left > 0 && f.err == nil && len(f.win) < ReplayWindow {
		r, err := f.rd.Next()
		if err != nil {
			if err == io.EOF {
				err = errors.New("trace ended early on the second reading")
			}
			f.err = err
			return
		}
		f.left--
		rec := new(ReplayRecord)
		*rec = r
		heap.Push(&f.win, seqRecord{rec: rec, seq: f.seq})
		f.seq++
	}
}

// peek returns the next record without handing it out; nil at the end.
func (f *feeder) peek() *ReplayRecord {
	f.fill()
	if len(f.win) == 0 {
		return nil
	}
	return f.win[0].rec
}

// pop hands out the next record, wrapped into the device if it lies
// beyond; nil at the end.
func (f *feeder) pop() *ReplayRecord {
	f.fill()
	if len(f.win) == 0 {
		return nil
	}
	r := heap.Pop(&f.win).(seqRecord).rec
	if f.index > 0 && r.Time < f.last {
		f.late++
	}
	f.last = max(f.last, r.Time)
	r.index = f.index
	f.index++
	if f.wrap && r.Sector+uint64(r.Sectors) > f.wrapTo && uint64(r.Sectors) <= f.wrapTo {
		r.Sector %= f.wrapTo - uint64(r.Sectors) + 1
	}
	return r
}

// done reports whether every record has been handed out.
func (f *feeder) done() bool {
	return len(f.win) == 0 && (f.left == 0 || f.err != nil)
}

type seqRecord struct {
	rec *ReplayRecord
	seq int64
}

// recHeap is a min-heap of records on (time, file order).
type recHeap []seqRecord

func (h recHeap) Len() int { return len(h) }
func (h recHeap) Less(i, j int) bool {
	if h[i].rec.Time != h[j].rec.Time {
		return h[i].rec.Time < h[j].rec.Time
	}
	return h[i].seq < h[j].seq
}
func (h recHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *recHeap) Push(x any)   { *h = append(*h, x.(seqRecord)) }
func (h *recHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = seqRecord{}
	*h = old[:len(old)-1]
	return x
}

// CheckTrace reads src once and checks every record as ReplayStream's
// first pass does, replaying nothing (blkq replay --parse-only). It
// returns the number of records before the end or before a malformed
// one; warn is the reader error that ended the trace early (a replay
// would replay the records before it), err a trace no replay would run.
func CheckTrace(name string, src ReplaySource, ro ReplayOptions) (n int64, warn, err error) {
	if ro.Speed <= 0 {
		ro.Speed = 1
	}
	sc, err := scanTrace(name, src, ro, nil)
	if err != nil {
		return 0, nil, err
	}
	return sc.n, sc.err, nil
}
