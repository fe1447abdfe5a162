package blkq

// DiskStats is the /sys/block/<dev>/stat view of a queue, computed from
// its event stream (DiskStats is a Tracer). Field meanings and units follow
// Documentation/block/stat.rst; times are kept in ns here and shown in ms.
//
// As in blk-mq, a request is in flight from its allocation (G) to its
// completion (C); the flush request the queue sends for flush bios
// (flush.go) from its issue (D) to its completion, counted as a flush; a
// request in a flush sequence completes once, when its sequence ends (a
// C of no sectors; the C of its data adds its sectors), as Linux counts
// an fsync as one write of no sectors and one flush. Read/write ticks sum
// that time per request, io_ticks is
// the time with at least one request in flight and time_in_queue the
// integral of the in-flight count. Merges count bios merged into an
// existing request (M and F with a bio) and queued requests joined into
// one (M without a bio), as /proc/diskstats does, so they equal the M and
// F count of the trace.
//
// Reading while I/O runs: the queue updates the counters under its lock
// (Trace runs there), so once the DiskStats is added to a queue with
// AddTracer, Snapshot, Stat and Flush take that lock too and may be called
// from any goroutine at any time. The hot path pays nothing for this; a
// reader costs one lock hold. The fields themselves may be read directly
// only when no I/O can run (the queue is idle, or the simulation is
// single-threaded), or on a Snapshot.
type DiskStats struct {
	IOs        [4]uint64 // completed requests by Op (read, write, flush, discard)
	Merges     [4]uint64 // bios merged, by Op
	Sectors    [4]uint64 // sectors completed, by Op
	Ticks      [4]Time   // ns: sum over requests of completion − allocation
	InFlight   int       // requests allocated and not completed
	IOTicks    Time      // ns with InFlight > 0
	TimeInQ    Time      // ns × requests in flight (time_in_queue)
	Dispatched uint64    // D events
	Sleeps     uint64    // S events
	last       Time
	q          *Queue // the queue whose lock guards the counters, if added to one
}

// attach is called by Queue.AddTracer, under the queue's lock.
func (s *DiskStats) attach(q *Queue) { s.q = q }

// locked runs f with the counters stable: under the lock of the queue s
// was added to, if any.
func (s *DiskStats) locked(f func()) {
	if q := s.q; q != nil {
		q.lock()
		defer q.release()
	}
	f()
}

// Snapshot returns a consistent copy of the counters, safe to call while
// I/O runs. The copy belongs to no queue.
func (s *DiskStats) Snapshot() DiskStats {
	var c DiskStats
	s.locked(func() { c = *s })
	c.q = nil
	return c
}

// diskStatsActions are the events DiskStats counts (AddTracer gives it
// only these; see Tracer).
const diskStatsActions = "GMFDSC"

// Trace updates the counters with one event.
func (s *DiskStats) Trace(e *Event) {
	switch e.Action {
	case actGetRq:
		s.advance(e.Time)
		s.InFlight++
	case actBackMerge, actFrontMerge:
		s.advance(e.Time)
		s.Merges[e.Op]++
		if e.Bio == nil {
			// A request merge: the absorbed request is no longer in
			// flight, and Linux counts the join as a merge
			// (blk_account_io_merge_request).
			s.InFlight--
		}
	case actIssue:
		s.Dispatched++
		if e.Op == OpFlush {
			s.advance(e.Time)
			s.InFlight++
		}
	case actSleepRq:
		s.Sleeps++
	case actComplete:
		if e.Rq == nil {
			return // a dropped read-ahead: it never had a request
		}
		s.advance(e.Time)
		if rq := e.Rq; rq.inFlush && rq.flushSeq&fseqPostflush == 0 && e.Err == nil {
			// The data of a request a postflush follows: its sectors
			// count now, the request when it ends, after the flush
			// (Linux skips RQF_FLUSH_SEQ requests in blk_account_io_done).
			s.Sectors[e.Op] += uint64(e.Sectors)
			return
		}
		s.InFlight--
		if e.Err == nil {
			s.IOs[e.Op]++
			s.Sectors[e.Op] += uint64(e.Sectors)
			s.Ticks[e.Op] += e.Time - e.Rq.Alloc
		}
	}
}

// advance accumulates io_ticks and time_in_queue up to now. A time before
// the last event (a Flush with a clock reading taken before an event the
// queue emitted meanwhile) changes nothing: the counters never go back.
func (s *DiskStats) advance(now Time) {
	if now < s.last {
		return
	}
	if s.InFlight > 0 {
		d := now - s.last
		s.IOTicks += d
		s.TimeInQ += d * Time(s.InFlight)
	}
	s.last = now
}

// Flush brings io_ticks and time_in_queue up to now (as reading
// /sys/block/*/stat does). Safe to call while I/O runs.
func (s *DiskStats) Flush(now Time) { s.locked(func() { s.advance(now) }) }

// Stat returns the 17 fields of /sys/block/<dev>/stat, times in ms. Safe
// to call while I/O runs.
func (s *DiskStats) Stat() (st [17]uint64) {
	s.locked(func() { st = s.stat() })
	return st
}

func (s *DiskStats) stat() [17]uint64 {
	ms := func(t Time) uint64 { return uint64(t / 1e6) }
	return [17]uint64{
		s.IOs[OpRead], s.Merges[OpRead], s.Sectors[OpRead], ms(s.Ticks[OpRead]),
		s.IOs[OpWrite], s.Merges[OpWrite], s.Sectors[OpWrite], ms(s.Ticks[OpWrite]),
		uint64(max(s.InFlight, 0)), ms(s.IOTicks), ms(s.TimeInQ),
		s.IOs[OpDiscard], s.Merges[OpDiscard], s.Sectors[OpDiscard], ms(s.Ticks[OpDiscard]),
		s.IOs[OpFlush], ms(s.Ticks[OpFlush]),
	}
}
