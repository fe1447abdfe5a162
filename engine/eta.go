package engine

// The eta of the progress line, estimated as fio estimates a job's: a job
// limited by size is done at the rate it has moved its bytes so far
// (elapsed / fraction done), capped by its runtime; a time_based job ends
// with its runtime. The run's eta is the longest of the running jobs',
// plus, for each stonewall segment still to come, its longest runtime.
// A simulated run's estimate is on its virtual clock and is turned into
// wall time at the rate the run has gone so far.
//
// The progress goroutine reads only what the executor publishes through
// atomics (etaState), and the jobs' settings, which do not change.

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// etaState is what the progress line may read of a job while it runs.
type etaState struct {
	started  atomic.Bool
	finished atomic.Bool
	start    atomic.Int64 // blkq.Time the job began
	done     atomic.Int64 // bytes completed
	last     atomic.Int64 // blkq.Time of the last completion
	// dirBytes and dirIOs are the bytes and I/Os completed per direction
	// (the status line's rates).
	dirBytes [report.NumDirs]atomic.Int64
	dirIOs   [report.NumDirs]atomic.Int64
}

// clock returns the latest time on the run's clock the progress line can
// know: the queue's last event (at) or a job's last completion, whichever
// is later (a buffered job's writes reach the queue only at write-back).
func (r *runner) clock(at blkq.Time) blkq.Time {
	for _, j := range r.jobs {
		at = max(at, blkq.Time(j.st.eta.last.Load()))
	}
	return at
}

// etaRemaining returns the estimated time left of the run on its clock at
// now, and false when no job gives an estimate.
func (r *runner) etaRemaining(now blkq.Time) (time.Duration, bool) {
	var longest time.Duration
	known := false
	segment := -1 // the latest stonewall segment with a running job
	for _, j := range r.jobs {
		e := &j.st.eta
		if !e.started.Load() || e.finished.Load() {
			continue
		}
		segment = max(segment, j.segment)
		rem, ok := j.etaRemaining(now)
		if ok {
			longest, known = max(longest, rem), true
		}
	}
	if segment < 0 {
		return 0, false
	}
	// Later segments wait for this one; each lasts its longest runtime.
	later := map[int]time.Duration{}
	for _, j := range r.jobs {
		if j.segment > segment && !j.st.eta.started.Load() {
			if rt := j.runtime(); rt > 0 {
				later[j.segment] = max(later[j.segment], j.spec.RampTime+rt)
			}
		}
	}
	for _, d := range later {
		longest += d
	}
	return longest, known
}

// etaRemaining returns the estimated time left of a running job.
func (j *job) etaRemaining(now blkq.Time) (time.Duration, bool) {
	e := &j.st.eta
	elapsed := time.Duration(now - blkq.Time(e.start.Load()))
	rt := j.runtime()
	if rt > 0 {
		rt += j.spec.RampTime
	}
	left := time.Duration(-1)
	if rt > 0 {
		left = max(rt-elapsed, 0)
	}
	if j.timeBased() || j.limit <= 0 {
		return left, left >= 0
	}
	frac := float64(e.done.Load()) / float64(j.limit)
	if frac <= 0 || elapsed <= 0 {
		return left, left >= 0
	}
	est := time.Duration(float64(elapsed)/min(frac, 1)) - elapsed
	if left >= 0 {
		est = min(est, left)
	}
	return est, true
}

// etaWall turns the run's remaining time on its clock into wall time: a
// simulated clock runs at the rate wall/now it has run so far.
func etaWall(rem time.Duration, now blkq.Time, wall time.Duration, simulated bool) time.Duration {
	if !simulated {
		return rem
	}
	if now <= 0 {
		return 0
	}
	return time.Duration(float64(rem) * float64(wall) / float64(now))
}

// fioETA formats seconds as fio's status line writes its eta: "03m:07s",
// with hours ("01h:02m:03s") when there are any, and days before them.
func fioETA(d time.Duration) string {
	secs := int64(max(d, 0) / time.Second)
	s, m, h, days := secs%60, secs/60%60, secs/3600%24, secs/86400
	out := ""
	if days > 0 {
		out = fmt.Sprintf("%02dd:", days)
	}
	if h > 0 || days > 0 {
		out += fmt.Sprintf("%02dh:", h)
	}
	return out + fmt.Sprintf("%02dm:%02ds", m, s)
}
