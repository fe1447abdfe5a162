package engine

import (
	"math"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Steady state detection as fio 3.33's steadystate.c does it: once a
// second a job's IOPS and bandwidth over the past second are sampled;
// once ss_dur seconds of samples are in (from one second after ss_ramp),
// each new sample is judged with the window of the last ss_dur: for iops
// or bw every sample must lie within the limit of the window's mean, for
// iops_slope or bw_slope the least squares slope must be under it; then
// the job stops, before its runtime. Under group_reporting the group is
// judged as one: its running jobs' rates are added up, and all of them
// stop together.
//
// fio samples on its helper thread's one-second tick, shared by all
// jobs; blkq ticks from each job's (or group's first job's) start, on
// the run's clock, so that on simulated devices every sample covers
// exactly one second of virtual time and runs are deterministic. fio
// also resets a job's counters when ramp_time ends while its steady
// state keeps the old ones; blkq counts every completion from the
// start, so a sample never spans that reset.

// ssWindow is the steady state of a job, or of a group under
// group_reporting.
type ssWindow struct {
	o       fio.SteadyState
	dur     int // window, in samples (seconds)
	members []*job
	prev    []ssPrev // per member
	ticking bool
	// iops and bw are the last dur samples, oldest first.
	iops, bw                    []uint64
	attained                    bool
	slope, deviation, criterion float64
}

// ssPrev is a member's counts at its last sample.
type ssPrev struct {
	at         blkq.Time
	bytes, ios int64
	sampled    bool
}

// planSteadyState gives the jobs with ss_dur their windows: one per job,
// or one per reporting group under group_reporting.
func (r *runner) planSteadyState() {
	groups := map[int]*ssWindow{}
	for _, j := range r.jobs {
		o := j.spec.SteadyState
		if o.Duration < time.Second {
			continue
		}
		w := groups[j.spec.GroupID]
		if w == nil || !j.spec.GroupReporting {
			w = &ssWindow{o: o, dur: int(o.Duration / time.Second)}
			if j.spec.GroupReporting {
				groups[j.spec.GroupID] = w
			}
		}
		w.members = append(w.members, j)
		w.prev = append(w.prev, ssPrev{})
		j.ss = w
	}
}

// ssBegin starts j's window ticking when its first member begins.
func (j *job) ssBegin() {
	w := j.ss
	if w == nil || w.ticking {
		return
	}
	w.ticking = true
	j.exec.AfterFunc(time.Second, func() { w.tick(j.r) })
}

// tick takes one sample of the window's running members and judges it.
func (w *ssWindow) tick(r *runner) {
	var iops, bw uint64
	rampOver := 0
	running := 0
	for i, m := range w.members {
		if !m.state.started() || m.state.ended() {
			continue
		}
		running++
		now := m.now()
		m.st.pend.flush(&m.st.eta) // every completion so far, exactly
		bytes, ios := m.st.eta.done.Load(), int64(0)
		for d := range m.st.eta.dirIOs {
			ios += m.st.eta.dirIOs[d].Load()
		}
		p := &w.prev[i]
		if !p.sampled {
			p.at, p.sampled = m.start, true
		}
		ms := uint64(max((now-p.at)/blkq.Time(time.Millisecond), 1))
		if now-m.start >= blkq.Time(w.o.RampTime+time.Second) || w.o.RampTime == 0 {
			bw += 1000 * uint64(bytes-p.bytes) / ms
			iops += 1000 * uint64(ios-p.ios) / ms
			rampOver++
		}
		p.at, p.bytes, p.ios = now, bytes, ios
	}
	if rampOver > 0 && w.judge(iops, bw) {
		w.attained = true
		for _, m := range w.members {
			m.stop()
		}
		return
	}
	if running == 0 && w.allEnded() {
		w.ticking = false
		return
	}
	r.exec.AfterFunc(time.Second, func() { w.tick(r) })
}

func (w *ssWindow) allEnded() bool {
	for _, m := range w.members {
		if !m.state.ended() {
			return false
		}
	}
	return true
}

// judge adds a sample and reports whether the window is steady.
func (w *ssWindow) judge(iops, bw uint64) bool {
	if len(w.iops) == w.dur {
		w.iops, w.bw = w.iops[1:], w.bw[1:]
	}
	w.iops, w.bw = append(w.iops, iops), append(w.bw, bw)
	if len(w.iops) < w.dur {
		return false
	}
	ys := w.bw
	if w.o.Criterion == "iops" || w.o.Criterion == "iops_slope" {
		ys = w.iops
	}
	n := uint64(w.dur)
	var sumY, sumXY uint64
	for i, y := range ys {
		sumY += y
		sumXY += uint64(i) * y
	}
	if w.o.Criterion == "iops_slope" || w.o.Criterion == "bw_slope" {
		sumX, sumX2 := n*(n-1)/2, (n-1)*n*(2*n-1)/6
		w.slope = (float64(sumXY) - float64(sumX)*float64(sumY)/float64(n)) /
			(float64(sumX2) - float64(sumX)*float64(sumX)/float64(n))
		w.criterion = w.slope
		if w.o.Percent {
			w.criterion = 100 * w.slope / float64(sumY/n) // fio divides the mean in integers
		}
		return math.Abs(w.criterion) < w.o.Limit
	}
	mean := float64(sumY) / float64(n)
	w.deviation = 0
	for _, y := range ys {
		w.deviation = max(w.deviation, math.Abs(float64(y)-mean))
	}
	w.criterion = w.deviation
	if w.o.Percent {
		w.criterion = 100 * w.deviation / mean
	}
	return w.criterion < w.o.Limit
}

// report is the window as fio reports it, for each of its members.
func (w *ssWindow) report() *report.SteadyState {
	s := &report.SteadyState{Criterion: w.o.Criterion, Limit: w.o.Limit, Percent: w.o.Percent, Duration: w.dur,
		Attained: w.attained, Value: w.criterion, Slope: w.slope, MaxDeviation: w.deviation,
		IOPS: make([]uint64, w.dur), BW: make([]uint64, w.dur)}
	copy(s.IOPS, w.iops)
	copy(s.BW, w.bw)
	return s
}
