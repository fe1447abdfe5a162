package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/blkq-dev/blkq"
	"golang.org/x/sys/unix"
)

// Rate limits as fio 3.33 applies them, per direction (a limit on writes
// does not slow reads):
//
//   - rate_process=linear (fio's default): the n-th byte is due at
//     n/rate, the n-th I/O at n/rate_iops;
//   - rate_process=poisson: the gap to the next I/O is exponential with
//     mean 1/iops, where iops is rate_iops or rate over the smallest
//     block size, truncated to whole microseconds as fio truncates it, so
//     the arrivals are a Poisson process (coefficient of variation 1);
//   - rate_min (or, without it, rate_iops_min): every rate_cycle (fio's
//     1000 ms) the job must have done at least rate_min bytes (rate_iops_min
//     I/Os) per second in each limited direction since the last check, or
//     it fails as fio fails it (after 2 s of settling);
//   - rate_ignore_thinktime: after a thinktime stall the job is credited
//     with what it would have issued at its rate meanwhile, less one
//     block so that it issues at once, instead of catching up.

// rateState paces one job's fio source.
type rateState struct {
	rng        *rand.Rand
	nextDue    [3]blkq.Time // poisson: when the next I/O of each direction is due, from the job's start
	checked    [3]int64     // rate_min: bytes done at the last check
	checkedIOs [3]int64     // rate_iops_min: I/Os done at the last check
	checkedAt  [3]blkq.Time // and when it was
	// credit is rate_ignore_thinktime's bytes and I/Os per direction
	// counted as issued though they were not.
	credit, creditIOs [3]int64
}

// poissonMean is the mean gap between I/Os of direction d, in whole
// microseconds; 0 when the direction is not limited.
func poissonMean(j *job, d int) blkq.Time {
	var iops int64
	switch {
	case j.spec.Rate[d] > 0:
		iops = j.spec.Rate[d] / minBlockSize(j.spec, d)
	case j.spec.RateIOPS[d] > 0:
		iops = j.spec.RateIOPS[d]
	default:
		return 0
	}
	return blkq.Time(1_000_000/max(iops, 1)) * blkq.Time(time.Microsecond)
}

// wait returns how long an I/O in direction op must wait.
func (r *rateState) wait(j *job, op blkq.Op) time.Duration {
	d := rwt(op)
	if j.spec.Rate[d] <= 0 && j.spec.RateIOPS[d] <= 0 {
		return 0 // not limited (linear or poisson): no clock read
	}
	elapsed := j.now() - j.start
	if j.spec.RateProcess == "poisson" {
		if poissonMean(j, int(d)) == 0 {
			return 0
		}
		return time.Duration(max(r.nextDue[d]-elapsed, 0))
	}
	var wait blkq.Time
	if rt := j.spec.Rate[d]; rt > 0 {
		due := blkq.Time(float64(j.rateBytes[d]+r.credit[d]) / float64(rt) * 1e9)
		wait = max(wait, due-elapsed)
	}
	if rt := j.spec.RateIOPS[d]; rt > 0 {
		due := blkq.Time(float64(j.rateIOs[d]+r.creditIOs[d]) / float64(rt) * 1e9)
		wait = max(wait, due-elapsed)
	}
	return time.Duration(wait)
}

// thought credits direction d, the last I/O's, after a thinktime stall of
// total, as fio's rate_ignore_thinktime does: the bytes its rate would
// have issued (rate_iops counts as rate_iops × the smallest block, as fio
// turns it into a byte rate), less one block when the stall outlasted
// one block's time; a poisson direction's next arrival moves on by the
// stall.
func (r *rateState) thought(j *job, d int, total time.Duration) {
	if !j.spec.RateIgnoreThinktime || total <= 0 {
		return
	}
	bs := minBlockSize(j.spec, d)
	bps := j.spec.Rate[d]
	if bps == 0 {
		bps = j.spec.RateIOPS[d] * bs
	}
	if bps == 0 {
		return
	}
	us := total.Microseconds()
	missed := bps * us / 1_000_000
	if bs*1_000_000/bps <= us {
		missed -= bs // fio: issue at once after the stall
	}
	if j.spec.Rate[d] > 0 {
		r.credit[d] += missed
	} else {
		r.creditIOs[d] += missed / bs
	}
	r.nextDue[d] += blkq.Time(total)
}

// issued moves a poisson direction's next arrival on by an exponential gap.
func (r *rateState) issued(j *job, io nextIO) {
	if j.spec.RateProcess != "poisson" {
		return
	}
	d := rwt(io.op)
	if mean := poissonMean(j, int(d)); mean > 0 {
		u := 1 - r.rng.Float64() // (0, 1]
		r.nextDue[d] += blkq.Time(float64(mean) * -math.Log(u))
	}
}

// checkMin fails the job, as fio's check_min_rate does, if a direction
// fell below rate_min (or rate_iops_min): checked whenever the job looks
// for its next I/O, after a 2 s settling time, over at least a
// rate_cycle since the last check.
func (r *rateState) checkMin(j *job) bool {
	if !hasRateMin(j) {
		return false // nothing to check: no clock read
	}
	now := j.now()
	if now-j.start < blkq.Time(2*time.Second) {
		return false
	}
	for d := range 3 {
		floor, floorIOPS := j.spec.RateMin[d], j.spec.RateIOPSMin[d]
		if floor == 0 && floorIOPS == 0 || j.rateBytes[d] == 0 {
			continue
		}
		if r.checked[d] > 0 || r.checkedIOs[d] > 0 {
			spent := now - r.checkedAt[d]
			if spent < blkq.Time(j.spec.RateCycle) || spent < blkq.Time(time.Millisecond) {
				continue
			}
			var msg string
			if floor > 0 {
				if got := (j.rateBytes[d] - r.checked[d]) * int64(time.Second) / int64(spent); got < floor {
					msg = fmt.Sprintf("%s: rate_min=%dB/s not met, got %dB/s", j.name, floor, got)
				}
			} else if got := (j.rateIOs[d] - r.checkedIOs[d]) * int64(time.Second) / int64(spent); got < floorIOPS {
				msg = fmt.Sprintf("%s: rate_iops_min=%d not met, got %d IOPS", j.name, floorIOPS, got)
			}
			if msg != "" {
				if j.err == nil {
					// fio: td_verror(EIO, "check_min_rate").
					j.err = fmt.Errorf("%s: %w", msg, unix.EIO)
					j.errFunc = "check_min_rate"
				}
				return true
			}
		}
		r.checked[d], r.checkedIOs[d], r.checkedAt[d] = j.rateBytes[d], j.rateIOs[d], now
	}
	return false
}

// hasRateMin reports whether a direction of j has a rate_min or
// rate_iops_min.
func hasRateMin(j *job) bool {
	for d := range 3 {
		if j.spec.RateMin[d] != 0 || j.spec.RateIOPSMin[d] != 0 {
			return true
		}
	}
	return false
}
