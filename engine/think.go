package engine

import (
	"time"

	"github.com/blkq-dev/blkq"
)

// thinktime as fio 3.33 applies it: the job stalls once it has done
// thinktime_blocks I/Os since its last stall, counted as they complete
// (thinktime_blocks_type=complete, fio's default) or as they are issued
// (issue); with thinktime_iotime it stalls once that long has passed
// since the last stall (and only then, unless thinktime_blocks is set as
// well). A stall first waits for the job's I/O in flight to complete
// (fio's quiesce), then spins for thinktime_spin and sleeps for the rest
// of thinktime. blkq's clock cannot tell spinning from sleeping: both
// take time and issue nothing, so a stall lasts max(thinktime,
// thinktime_spin); the spin is not counted as CPU time.

// thinker is a job's thinktime bookkeeping.
type thinker struct {
	blocks    int64     // the counted I/Os
	lastStall int64     // blocks at the last stall
	lastTime  blkq.Time // when the last stall ended (the job's start at first)
	waiting   bool      // a stall waits for the job's I/O in flight
}

// thinks reports whether the job has a thinktime at all.
func (j *job) thinks() bool {
	return j.spec.ThinkTime > 0 || j.spec.ThinkTimeSpin > 0
}

// thinkIssued counts an issued I/O; true: the job stalls now (pump
// calls thinkStall).
func (j *job) thinkIssued() bool {
	if !j.thinks() || j.spec.ThinkTimeBlocksType != "issue" {
		return false
	}
	j.think.blocks++
	return j.thinkCheck()
}

// thinkCompleted counts a reaped I/O; a stall it makes due is pump's.
// The I/Os a stall waits for are not counted.
func (j *job) thinkCompleted() {
	if !j.thinks() || j.state.stopping() || j.think.waiting || j.spec.ThinkTimeBlocksType == "issue" {
		return
	}
	j.think.blocks++
	j.thinkCheck()
}

// thinkCheck decides whether the counted I/Os or the time since the last
// stall call for one, and makes it due.
func (j *job) thinkCheck() bool {
	t := &j.think
	stall := false
	if it := j.spec.ThinkTimeIOTime; it > 0 {
		if j.now()-max(t.lastTime, j.start) >= blkq.Time(it) {
			stall = true
		} else if !j.optionSet("thinktime_blocks") {
			return false
		}
	}
	if t.blocks >= t.lastStall+int64(max(j.spec.ThinkTimeBlocks, 1)) {
		stall = true
	}
	if !stall {
		return false
	}
	t.lastStall = t.blocks
	t.waiting = true
	j.state.pauseFor(pauseTimer)
	return true
}

// thinkStall is a due stall, called by pump: it sleeps once nothing is
// in flight (fio's quiesce: the last reap pumps the job again).
func (j *job) thinkStall() {
	if j.quiesce() {
		return
	}
	j.think.waiting = false
	d := max(j.spec.ThinkTime, j.spec.ThinkTimeSpin)
	cut := false // the runtime ends within the stall
	if rt := j.runtime(); rt > 0 {
		left := time.Duration(j.start + blkq.Time(j.spec.RampTime+rt) - j.now())
		if left <= d {
			d, cut = max(left, 0), true
		}
	}
	j.exec.AfterFunc(d, func() {
		if fs, ok := j.src.(*fioSource); ok {
			fs.rate.thought(j, j.lastDir, d)
		}
		j.think.lastTime = j.now()
		j.state.resume()
		if cut {
			// fio's sleep ends at the runtime's end, and so does the
			// job: on the wall clock this timer may fire before the
			// runtime's own, and the job must not issue meanwhile (it
			// used to, hundreds of I/Os in the last milliseconds, each
			// stall cut to nothing).
			j.stop()
			return
		}
		j.pump()
	})
}

// optionSet reports whether the job file sets the option (not a default).
func (j *job) optionSet(name string) bool {
	for _, o := range j.spec.Options {
		if o[0] == name {
			return true
		}
	}
	return false
}
