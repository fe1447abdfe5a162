package engine

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// latency_target as fio 3.33 searches for a queue depth (io_u.c
// lat_target_*): the job starts at depth 1 and, each latency_window, asks
// whether latency_percentile of the I/Os it completed in the window had a
// total latency (lat: from the unit's start to its reap) within
// latency_target. A window that passes raises the depth: doubling while
// no depth has failed, else halfway to the lowest one that failed. A
// failure lowers it halfway to the highest one that passed, after
// waiting for the I/O in flight (fio's quiesce); with latency_percentile
// 100 a single I/O over the target is a failure at once, and at depth 1
// it is the job's error (ETIMEDOUT, "max latency exceeded"). When a
// window that passes leaves the depth where it was, the search has found
// it: the job quiesces, its statistics start again, and after one more
// window at that depth that passes it ends (latency_run=1: the search
// goes on for the whole run instead). Depths next to the one that failed
// are retried: three passes in a row one below it move the limit up by
// one. The clock is the run's (virtual on sim: devices). fio restarts the
// search at each of a job's loops= passes; blkq searches once per job.

// latTarget is a job's latency_target search; nil without a target.
type latTarget struct {
	target blkq.Time // latency_target
	window blkq.Time // latency_window
	pct    float64   // latency_percentile
	run    bool      // latency_run
	maxQD  int       // iodepth

	qd, low, high int // the depth now, the highest that passed, the lowest that failed
	stable        int // passes in a row one below high
	endRun        bool

	cycleStart blkq.Time
	ios        int64 // read, write and trim I/Os completed (fio's io_blocks)
	cycleIOs   int64 // ios when the window began
	failed     int64 // I/Os of the window over the target (latency_percentile < 100)
	quiesce    bool  // the depth changed down (or the final run begins): wait for the I/O in flight
	reset      bool  // the final run begins: reset the job's statistics once quiesced
}

// setupLatency starts j's search if it has a target. Called by plan.
func (j *job) setupLatency() {
	q := j.spec.Queue
	if q.LatencyTarget <= 0 {
		return
	}
	j.lat = &latTarget{target: blkq.Time(q.LatencyTarget), window: blkq.Time(q.LatencyWindow),
		pct: q.LatencyPercentile, run: q.LatencyRun, maxQD: j.depth}
}

// begin starts the search at depth 1 (lat_target_init), when the job starts.
func (l *latTarget) begin(now blkq.Time) {
	l.qd, l.low, l.high = 1, 1, l.maxQD
	l.newCycle(now)
}

func (l *latTarget) newCycle(now blkq.Time) {
	l.cycleStart, l.cycleIOs, l.failed = now, l.ios, 0
}

// completedIO accounts a unit reaped without error at now; counted
// reports whether the job is past its ramp_time (fio only then checks
// the latency). It returns an error when the target is missed at depth 1
// with latency_percentile 100 (fio's lat_fatal).
func (j *job) latCompleted(u *ioUnit, now blkq.Time, counted bool) {
	l := j.lat
	l.ios++
	lat := now - u.start
	if !counted || lat <= l.target || j.spec.Stats.DisableLat {
		return // (fio checks the target on the total latency, which disable_lat does not measure)
	}
	if l.pct < 100 {
		l.failed++
		return
	}
	if l.rampDown() {
		j.latFatal(u, lat, l.target)
	}
}

// rampDown lowers the depth after a failure (__lat_target_failed); true:
// the depth is 1 already, nothing can be lowered.
func (l *latTarget) rampDown() bool {
	if l.qd == 1 {
		return true
	}
	l.high = l.qd
	if l.qd == l.low {
		l.low--
	}
	l.qd = (l.qd + l.low) / 2
	l.stable = 0
	l.quiesce = true
	return false
}

// rampUp raises the depth after a window that passed
// (lat_target_success); the search ends when it would stay.
func (j *job) rampUp(now blkq.Time) {
	l := j.lat
	was := l.qd
	l.low = l.qd
	if l.qd+1 == l.high {
		l.stable++
		if l.stable >= 3 {
			l.high++
			l.stable = 0
		}
	}
	if l.high != l.maxQD {
		l.qd = (l.qd + l.high) / 2
	} else {
		l.qd *= 2
	}
	l.qd = min(l.qd, l.maxQD)
	if !l.run && l.qd == was {
		if l.endRun {
			j.state.stop() // found, and its final window passed
		} else {
			l.endRun, l.quiesce, l.reset = true, true, true
			return // the final run's window begins once quiesced
		}
	}
	l.newCycle(now)
}

// latCheck ends the window once latency_window has passed since it
// began (lat_target_check), as fio does after each pass of its loop,
// past ramp_time and once something has completed.
func (j *job) latCheck() {
	l := j.lat
	now := j.now()
	if l.quiesce || now < j.rampEnd || l.ios == 0 || now-l.cycleStart < l.window {
		return // (a change of depth under way is fio's quiesce inside this check)
	}
	ios := l.ios - l.cycleIOs
	// No I/O in the window is a failure, as fio's 0/0 compares.
	if ios > 0 && float64(ios-l.failed)/float64(ios)*100 >= l.pct {
		j.rampUp(now)
		return
	}
	l.rampDown() // at depth 1 fio goes on as it was
}

// latQuiesced finishes a change of depth once the I/O in flight is done:
// the final run's statistics begin now, and a new window.
func (j *job) latQuiesced() {
	l := j.lat
	l.quiesce = false
	now := j.now()
	if l.reset {
		l.reset = false
		l.ios = 0
		j.st.reset(now)
	}
	l.newCycle(now)
}

// maxLatencyCheck fails the job if u, completed without error at now
// past the ramp, took longer than max_latency= allows its direction
// (fio checks the total latency, unless disable_lat).
func (j *job) maxLatencyCheck(u *ioUnit, now blkq.Time) {
	if j.spec == nil || now < j.rampEnd || j.spec.Stats.DisableLat {
		return
	}
	d := rwt(u.bio.Op)
	if u.bio.Op == blkq.OpFlush {
		return // fio checks reads, writes and trims
	}
	if limit := blkq.Time(j.spec.Queue.MaxLatency[d]); limit > 0 && now-u.start > limit {
		j.latFatal(u, now-u.start, limit)
	}
}

// latFatal is the job's error for an I/O over max_latency, or over the
// latency target at depth 1: fio's line on stderr, and ETIMEDOUT.
func (j *job) latFatal(u *ioUnit, lat, limit blkq.Time) {
	if j.err != nil {
		return
	}
	j.err, j.errFunc = unix.ETIMEDOUT, "max latency exceeded"
	dir := "write"
	switch u.bio.Op {
	case blkq.OpRead:
		dir = "read"
	case blkq.OpDiscard:
		dir = "trim"
	}
	r := j.r
	if len(r.ioErrors) < maxIOErrorLines {
		r.ioErrors = append(r.ioErrors, fmt.Sprintf("fio: latency of %d nsec exceeds specified max (%d nsec): %s %s %d %d",
			lat, limit, r.dev.Name(), dir, int64(u.bio.Sector)<<blkq.SectorShift, u.bio.Bytes()))
	}
	j.state.stop()
}

// latReport is the search as fio reports it: without a target, depth
// is the job's iodepth.
func (j *job) latReport() *report.LatencyTarget {
	q := j.spec.Queue
	lt := &report.LatencyTarget{TargetNs: q.LatencyTarget.Nanoseconds(), WindowUs: q.LatencyWindow.Microseconds(),
		Percentile: q.LatencyPercentile, Depth: max(j.spec.IODepth, 1)} // fio: the configured iodepth until a search moves it
	if j.lat != nil {
		lt.Depth = j.lat.qd
	}
	return lt
}
