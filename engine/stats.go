package engine

import (
	"errors"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// jobStats gathers one job's figures in fio's terms: per direction the
// submission, completion and total latency (slat, clat, lat), bytes and
// I/Os, bandwidth and IOPS sampled every 500 ms (fio's default averaging
// window), and the I/O depth histograms. Figures before ramp_time ends are
// not kept.
type jobStats struct {
	js       *report.JobStats
	start    blkq.Time
	rampEnd  blkq.Time
	window   blkq.Time // start of the current 500 ms sample window
	winBytes [3]int64  // bytes completed in the window
	winIOs   [3]int64  // I/Os completed in the window
	waitLat  *report.Latency
	wroteAny bool

	eta  etaState      // for the progress line, read off the executor
	pend progressBatch // completions not yet added to eta

	cpu      *cpuMeter // nil: CPU not measured (simulated devices)
	cpuUse   cpuUse    // this job's share of the process's usage
	cpuState int

	// The job's phases, for each direction's runtime as fio counts it
	// (backend.c's thread loop): the time of an I/O phase counts for
	// each direction the job's rw= does that has moved bytes by its
	// end, the time of a verify phase for reads. So a write job that
	// verifies reports the writes' time for writes and the verify's for
	// reads, and its job_runtime is their sum.
	mode      [3]bool   // the directions rw= does (all three for a replay)
	phaseAt   blkq.Time // the current phase's start
	verifying bool      // the current phase is a verify phase
	dirRun    [3]int64  // each direction's runtime so far, ns

	logs *jobLogs // write_*_log and write_iolog (fiolog.go); nil: none
	off  statsOff // what the job keeps none of
	// flushIsSync counts completed flushes as fsyncs, not writes: a
	// read_iolog job's (iologreplay.go).
	flushIsSync bool
}

// untwin gives each direction's Lat a Latency of its own where it still
// shares its Clat's (record's twinning), called where the report is read:
// whatever merges or prints the report sees two figures, as it always
// did.
func (s *jobStats) untwin() {
	for d := report.DirRead; d < report.NumDirs; d++ {
		if ds := s.js.Dir(d); ds.Lat == ds.Clat && ds.Lat != nil {
			ds.Lat = ds.Clat.Clone()
		}
	}
}

const sampleWindow = blkq.Time(500 * time.Millisecond)

// statsOff are the figures a job does not keep, as fio's disable_lat,
// disable_clat, disable_slat and disable_bw (gtod_reduce: all four) leave
// them out: no total, completion or submission latencies, in the report
// and the logs (without clat, no clat percentiles, latency buckets,
// histogram log or fsync latencies either), and no per-I/O entries in the
// bandwidth log. The report's bandwidth and IOPS samples stay: fio's
// helper thread takes them whatever the options say.
type statsOff struct{ lat, clat, slat, bw bool }

func newJobStats(js *report.JobStats) *jobStats {
	for d := report.DirRead; d < report.NumDirs; d++ {
		ds := js.Dir(d)
		ds.Slat, ds.Clat = report.NewLatency(), report.NewLatency()
		ds.Lat = ds.Clat // twinned until a lat differs from its clat: see record
	}
	s := &jobStats{js: js, waitLat: report.NewLatency(), mode: [3]bool{true, true, true}}
	js.Blkq = &report.BlkqJobStats{WaitLat: s.waitLat}
	return s
}

func (s *jobStats) begin(start, rampEnd blkq.Time) {
	s.start, s.rampEnd, s.window = start, rampEnd, rampEnd
	s.phaseAt = start
	s.eta.start.Store(int64(start))
	s.eta.started.Store(true)
	if s.cpu != nil {
		s.cpu.begin(s, start, rampEnd)
	}
	if s.logs != nil {
		s.logs.begin(start)
	}
}

func (s *jobStats) dirStats(d report.Dir) *report.DirStats { return s.js.Dir(d) }

// record adds a completed I/O. As fio measures them: for an async engine
// slat is submission start to the submission's return (u.start to
// u.queued: a sleep for a request is in it, as in io_submit) and clat from
// there to the completion; a sync engine (psync, sync, pvsync...; fio's
// null engine at iodepth=1 is one) has no slat, and its clat spans the whole system call, sleeps in request
// allocation and the device's time included (from u.start), so clat and
// lat agree.
func (s *jobStats) record(u *ioUnit, now blkq.Time) {
	if s.flushIsSync && u.bio.Op == blkq.OpFlush {
		s.recordSync(u, now)
		return
	}
	d := rwt(u.bio.Op)
	if d == report.DirWrite {
		s.wroteAny = true
	}
	s.pend.add(&s.eta, d, int64(u.bio.Sectors)<<blkq.SectorShift, now)
	if u.start < s.rampEnd {
		return
	}
	s.sample(now)
	ds := s.dirStats(d)
	ds.IOs++
	n := int64(u.bio.Sectors) << blkq.SectorShift
	ds.Bytes += uint64(n)
	slat, clat, lat := int64(-1), int64(now-u.start), int64(now-u.start)
	if u.j == nil || !u.j.syncIO {
		slat, clat = int64(u.queued-u.start), int64(now-u.queued)
		if s.off.slat {
			slat = -1
		} else {
			ds.Slat.Record(slat)
		}
	}
	bwClat := clat
	if s.off.clat {
		clat = -1
	}
	if s.off.lat {
		lat = -1
	}
	// A sync engine's clat is its lat (both run from the I/O's start), so
	// one Latency stands for both (ds.Lat == ds.Clat, as newJobStats
	// makes them) while every lat recorded equalled its clat: one record
	// into one pair of histograms per I/O instead of two. The first that
	// differs (an async engine's first I/O, or a job that keeps one and
	// not the other) gives Lat a copy of its own.
	switch {
	case ds.Lat == ds.Clat && clat == lat:
		if clat >= 0 {
			ds.Clat.Record(clat)
		}
	default:
		if ds.Lat == ds.Clat {
			ds.Lat = ds.Clat.Clone()
		}
		if clat >= 0 {
			ds.Clat.Record(clat)
		}
		if lat >= 0 {
			ds.Lat.Record(lat)
		}
	}
	if ds.Prios != nil {
		v := clat
		if u.j != nil && u.j.spec.Stats.LatPercentiles {
			v = lat // fio: the per-priority figures follow lat_percentiles
		}
		for i := range ds.Prios {
			if v < 0 {
				break // that latency is not kept
			}
			if ds.Prios[i].Prio == u.bio.Prio {
				ds.Prios[i].Lat.Record(v)
				break
			}
		}
	}
	if s.logs != nil {
		s.logs.completed(u, now, slat, clat, lat, bwClat, s.off.bw)
	}
	s.winBytes[d] += n
	s.winIOs[d]++
}

// progressBatch gathers a job's completions on the executor and adds
// them to its etaState (atomics the progress line reads from its own
// goroutine) every progressBatchSize completions, when the job finishes,
// and where the executor itself reads them (a steady-state sample, an
// interval report): an atomic add per counter per I/O is a locked
// instruction each, a cost the line, which looks once a second, does not
// need. The line's counts lag by fewer than progressBatchSize I/Os.
type progressBatch struct {
	bytes, ios [report.NumDirs]int64
	last       blkq.Time
	n          int
}

// progressBatchSize is the completions a progressBatch holds back.
const progressBatchSize = 64

// add counts a completion of n bytes in direction d at now.
func (p *progressBatch) add(e *etaState, d report.Dir, n int64, now blkq.Time) {
	p.bytes[d] += n
	p.ios[d]++
	p.last = now
	if p.n++; p.n >= progressBatchSize {
		p.flush(e)
	}
}

// flush adds what p holds to e.
func (p *progressBatch) flush(e *etaState) {
	if p.n == 0 {
		return
	}
	var done int64
	for d := range p.bytes {
		if p.ios[d] > 0 {
			done += p.bytes[d]
			e.dirBytes[d].Add(p.bytes[d])
			e.dirIOs[d].Add(p.ios[d])
		}
	}
	e.done.Add(done)
	e.last.Store(int64(p.last))
	*p = progressBatch{}
}

// lost takes n bytes of direction d that the job had counted out of its
// figures: a page whose write-back failed (writeback.go). Bytes done
// before ramp_time ended were never counted; the figure stops at 0.
func (s *jobStats) lost(d report.Dir, n int64) {
	ds := s.dirStats(d)
	ds.Bytes -= min(uint64(n), ds.Bytes)
}

// failed counts a failed I/O as issued, as fio's total_ios does; it
// moved no bytes and has no latency.
func (s *jobStats) failed(u *ioUnit) {
	if u.start >= s.rampEnd {
		s.dirStats(rwt(u.bio.Op)).IOs++
	}
}

// recordSync adds a completed fsync/fdatasync.
func (s *jobStats) recordSync(u *ioUnit, now blkq.Time) {
	if s.js.SyncOps == nil {
		s.js.SyncOps = &report.SyncStats{Lat: report.NewLatency()}
	}
	s.js.SyncOps.IOs++
	if !s.off.clat { // fio counts an fsync's latency with the clat figures
		s.js.SyncOps.Lat.Record(int64(now - u.start))
	}
}

func (s *jobStats) dropped(op blkq.Op) { s.dirStats(rwt(op)).Dropped++ }

func (s *jobStats) wrote() bool { return s.wroteAny }

// sample closes every 500 ms window that ended before now.
func (s *jobStats) sample(now blkq.Time) {
	if now >= s.window+2*sampleWindow {
		// Close the current window, then add every idle window after
		// it at once: a long thinktime must not cost a loop per window.
		s.closeWindow()
		idle := int64((now - s.window) / sampleWindow)
		for d := range 3 {
			if ds := s.dirStats(report.Dir(d)); ds.IOs > 0 {
				ds.BW.AddN(0, idle)
				ds.IOPS.AddN(0, idle)
			}
		}
		s.window += blkq.Time(idle) * sampleWindow
		return
	}
	for now >= s.window+sampleWindow {
		s.closeWindow()
	}
}

// closeWindow adds the current window's bandwidth and IOPS samples.
func (s *jobStats) closeWindow() {
	for d := range 3 {
		ds := s.dirStats(report.Dir(d))
		if ds.IOs == 0 && s.winIOs[d] == 0 {
			continue
		}
		secs := float64(sampleWindow) / 1e9
		ds.BW.Add(float64(s.winBytes[d]) / 1024 / secs)
		ds.IOPS.Add(float64(s.winIOs[d]) / secs)
		s.winBytes[d], s.winIOs[d] = 0, 0
	}
	s.window += sampleWindow
}

// The I/O depth histograms, as fio keeps them: n units committed at a
// depth (io_u_mark_depth), a submit call of n (io_u_mark_submit), a reap
// of n (io_u_mark_complete). What the job does before ramp_time ends is
// not kept: over says it has ended (job.rampOver).
func (s *jobStats) submitDepth(over bool, depth, n int) {
	if over {
		s.js.IODepthHist[report.DepthBucket(depth)] += uint64(n)
	}
}

func (s *jobStats) submitBatch(over bool, n int) {
	if over {
		s.js.SubmitHist[report.BatchBucket(n)]++
	}
}

func (s *jobStats) completeBatch(over bool, n int) {
	if over {
		s.js.CompleteHist[report.BatchBucket(n)]++
	}
}

// reset starts the job's figures again at now, as fio's reset_all_stats
// and reset_io_stats do when latency_target's search has found its depth
// (latency_target.go): latencies, counts, samples, histograms and the
// runtime's start. Its logs and its blkq lines go on.
func (s *jobStats) reset(now blkq.Time) {
	for d := report.DirRead; d < report.NumDirs; d++ {
		clat := report.NewLatency()
		*s.js.Dir(d) = report.DirStats{Slat: report.NewLatency(), Clat: clat, Lat: clat} // twinned, as in newJobStats
	}
	s.js.SyncOps = nil
	s.js.IODepthHist, s.js.SubmitHist, s.js.CompleteHist = [report.NumDepthBuckets]uint64{}, [report.NumDepthBuckets]uint64{}, [report.NumDepthBuckets]uint64{}
	s.start = now
	s.window, s.winBytes, s.winIOs = now, [3]int64{}, [3]int64{}
	s.phaseAt, s.dirRun = now, [3]int64{}
}

// phase ends the job's current phase at now and begins the next: a
// verify phase (verifying) or an I/O phase. Called by the verify source
// (verify.go) when, with the job's I/O in flight reaped, it turns to
// reading back or back to writing, and by finish.
func (s *jobStats) phase(now blkq.Time, verifying bool) {
	from := max(s.phaseAt, s.start, s.rampEnd)
	if now > from {
		for d := range 3 {
			if s.verifying && d == int(report.DirRead) ||
				!s.verifying && s.mode[d] && s.js.Dir(report.Dir(d)).Bytes > 0 {
				s.dirRun[d] += int64(now - from)
			}
		}
	}
	s.phaseAt, s.verifying = now, verifying
}

// finish sets the runtimes.
func (s *jobStats) finish(end blkq.Time) {
	s.pend.flush(&s.eta)
	s.eta.finished.Store(true)
	s.sample(end)
	run := int64(end - max(s.start, s.rampEnd))
	s.js.Runtime = max(run, 0)
	s.phase(end, false)
	for d := report.DirRead; d < report.NumDirs; d++ {
		if ds := s.js.Dir(d); ds.IOs > 0 {
			ds.Runtime = max(s.dirRun[d], 1) // fio rounds its µs up: an empty verify phase is 1 ms
		}
	}
	if s.cpu != nil {
		s.cpu.finish(s)
	}
	if s.logs != nil {
		s.logs.finish(end)
	}
}

// pidStats is the per-task part of the event stream: merges, requests and
// allocation sleeps, wake-ups and waits of each job, keyed by pid. Events
// of other pids count for others if set (a replay: its trace's pids, which
// it learns as it goes, while events come in from device goroutines), or
// for no job (the page cache's flusher).
type pidStats struct {
	base   int                    // pid of byPID[0]
	byPID  []*report.BlkqJobStats // fio's jobs have consecutive pids
	others *report.BlkqJobStats
	sleeps allocSleeps
}

// Actions returns the events pidStats counts (the queue gives it only
// these: blkq.Tracer).
func (p *pidStats) Actions() string { return "MFDGSWC" }

func (p *pidStats) Trace(e *blkq.Event) {
	var b *report.BlkqJobStats
	if i := e.PID - p.base; i >= 0 && i < len(p.byPID) {
		b = p.byPID[i]
	} else if b = p.others; b == nil {
		return
	}
	switch e.Action {
	case 'M':
		if e.Bio != nil { // a bio's merge, not a request merge
			b.BackMerges++
		}
	case 'F':
		b.FrontMerges++
	case 'D':
		b.RequestsIssued++
		b.RequestBytes += uint64(e.Sectors) << blkq.SectorShift
	case 'G', 'S', 'W', 'C':
		p.sleeps.trace(e, b)
	}
}

// allocSleeps derives request-allocation sleeps, wake-ups, waits and
// dropped read-aheads from the S, W, G and C events, so that run and
// replay count them the same way and from the stream alone. A bio's S
// puts its task to sleep and W wakes it; the woken task retries its
// allocation, so the bio's next event is either a G (it got the request:
// the end of one wait, however short) or another S. A C with no request
// is a read-ahead bio dropped under pressure. Only the bios asleep are
// remembered, so memory is bounded by the sleepers.
type allocSleeps struct {
	asleep map[*blkq.Bio]struct{}
}

// trace counts an S, W, G or C event e into b.
func (a *allocSleeps) trace(e *blkq.Event, b *report.BlkqJobStats) {
	slept := false
	if len(a.asleep) > 0 { // (no lookup per G and C while nobody sleeps)
		_, slept = a.asleep[e.Bio]
	}
	switch e.Action {
	case 'W':
		b.Wakeups++
	case 'C':
		if e.Rq == nil && errors.Is(e.Err, blkq.ErrReadAheadDropped) {
			b.DroppedReadAhead++
		}
	case 'S':
		b.Sleeps++
		if slept {
			return
		}
		if a.asleep == nil {
			a.asleep = map[*blkq.Bio]struct{}{}
		}
		a.asleep[e.Bio] = struct{}{}
	case 'G':
		if !slept {
			return
		}
		delete(a.asleep, e.Bio)
		b.WaitLat.Record(int64(e.Wait))
	}
}

// stillAsleep returns how many bios slept and were never woken.
func (a *allocSleeps) stillAsleep() int { return len(a.asleep) }
