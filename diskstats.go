package blkq

// DiskStats is the /sys/block/<dev>/stat view of a queue, computed from
// its event stream (DiskStats is a Tracer). Field meanings and units follow
// Documentation/block/stat.rst; times are kept in ns here and shown in ms.
//
// As in blk-mq, a request is in flight from its allocation (G) to its
// completion (C): read/write ticks sum that time per request, io_ticks is
// the time with at least one request in flight and time_in_queue the
// integral of the in-flight count. Merges count bios merged into an
// existing request (M and F) and queued requests joined into one.
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
}

// Trace updates the counters with one event.
func (s *DiskStats) Trace(e *Event) {
	switch e.Action {
	case ActGetRq:
		s.advance(e.Time)
		s.InFlight++
	case ActBackMerge, ActFrontMerge:
		s.advance(e.Time)
		s.Merges[e.Op]++
	case ActMergeRequests:
		// The absorbed request is no longer in flight; Linux counts
		// the join as a merge.
		s.advance(e.Time)
		s.InFlight--
		s.Merges[e.Op]++
	case ActIssue:
		s.Dispatched++
	case ActSleepRq:
		s.Sleeps++
	case ActComplete:
		s.advance(e.Time)
		s.InFlight--
		if e.Err == nil {
			s.IOs[e.Op]++
			s.Sectors[e.Op] += uint64(e.Sectors)
			s.Ticks[e.Op] += e.Time - e.Rq.Alloc
		}
	}
}

// advance accumulates io_ticks and time_in_queue up to now.
func (s *DiskStats) advance(now Time) {
	if s.InFlight > 0 {
		d := now - s.last
		s.IOTicks += d
		s.TimeInQ += d * Time(s.InFlight)
	}
	s.last = now
}

// Flush brings io_ticks and time_in_queue up to now (as reading
// /sys/block/*/stat does).
func (s *DiskStats) Flush(now Time) { s.advance(now) }

// Stat returns the 17 fields of /sys/block/<dev>/stat, times in ms.
func (s *DiskStats) Stat() [17]uint64 {
	ms := func(t Time) uint64 { return uint64(t / 1e6) }
	return [17]uint64{
		s.IOs[OpRead], s.Merges[OpRead], s.Sectors[OpRead], ms(s.Ticks[OpRead]),
		s.IOs[OpWrite], s.Merges[OpWrite], s.Sectors[OpWrite], ms(s.Ticks[OpWrite]),
		uint64(max(s.InFlight, 0)), ms(s.IOTicks), ms(s.TimeInQ),
		s.IOs[OpDiscard], s.Merges[OpDiscard], s.Sectors[OpDiscard], ms(s.Ticks[OpDiscard]),
		s.IOs[OpFlush], ms(s.Ticks[OpFlush]),
	}
}
