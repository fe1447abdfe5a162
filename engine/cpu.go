package engine

// CPU use on real devices (file:, null), measured as fio measures it: the
// difference of getrusage before and after, user and system time as
// percentages of the job's runtime, ctx the voluntary plus involuntary
// context switches, majf/minf the page faults.
//
// fio runs each job in a process (or thread) of its own and asks for that
// one's usage. blkq's jobs share one process: the request layer, the
// device's workers and the Go runtime serve them all at once, and no
// counter tells which job a CPU second was for. So the process's usage
// (RUSAGE_SELF) is sampled whenever a job starts or ends, and each
// interval's usage is shared equally among the jobs running in it: a job
// that runs alone gets exactly its getrusage difference, and the jobs'
// shares add up to what the process used while jobs ran. On simulated
// devices nothing is measured: the run's clock is virtual, and the CPU the
// simulator burns says nothing about the modelled machine; the report says
// so (JobStats.CPUMeasured is false).

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
)

// cpuUse is a getrusage sample, or a job's share of the differences.
type cpuUse struct {
	usr, sys   float64 // ns
	ctx        float64 // voluntary + involuntary context switches
	majf, minf float64 // page faults
}

func (c *cpuUse) add(o cpuUse, share float64) {
	c.usr += o.usr * share
	c.sys += o.sys * share
	c.ctx += o.ctx * share
	c.majf += o.majf * share
	c.minf += o.minf * share
}

// cpuMeter shares the process's CPU use among the jobs running. Its
// state, and the jobs' shares and cpuState, are under mu: jobs on
// executors of their own (parallel.go) start and finish at once. It is
// touched only as a job starts and ends, never per I/O.
type cpuMeter struct {
	exec    executor
	mu      sync.Mutex
	last    cpuUse
	ok      bool // getrusage works
	running []*jobStats
}

// newCPUMeter returns a meter for a run on a real device, nil on a
// simulated one.
func (r *runner) newCPUMeter() *cpuMeter {
	if r.simulated {
		return nil
	}
	m := &cpuMeter{exec: r.exec}
	m.last, m.ok = rusage()
	return m
}

// rusage reads the process's usage.
func rusage() (cpuUse, bool) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return cpuUse{}, false
	}
	ns := func(tv unix.Timeval) float64 { return float64(tv.Sec)*1e9 + float64(tv.Usec)*1e3 }
	return cpuUse{usr: ns(ru.Utime), sys: ns(ru.Stime), ctx: float64(ru.Nvcsw + ru.Nivcsw),
		majf: float64(ru.Majflt), minf: float64(ru.Minflt)}, true
}

// sample shares the usage since the last sample among the running jobs.
// m.mu held.
func (m *cpuMeter) sample() {
	now, ok := rusage()
	if !ok {
		m.ok = false
		return
	}
	d := cpuUse{usr: now.usr - m.last.usr, sys: now.sys - m.last.sys, ctx: now.ctx - m.last.ctx,
		majf: now.majf - m.last.majf, minf: now.minf - m.last.minf}
	m.last = now
	if n := len(m.running); n > 0 {
		for _, s := range m.running {
			s.cpuUse.add(d, 1/float64(n))
		}
	}
}

// begin starts measuring s at rampEnd (fio's figures start after
// ramp_time, as its runtime does).
func (m *cpuMeter) begin(s *jobStats, start, rampEnd blkq.Time) {
	join := func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if s.cpuState != cpuWaiting {
			return // finished during ramp_time
		}
		m.sample()
		m.running = append(m.running, s)
		s.cpuState = cpuRunning
	}
	m.mu.Lock()
	s.cpuState = cpuWaiting
	m.mu.Unlock()
	if rampEnd > start {
		m.exec.AfterFunc(time.Duration(rampEnd-start), join)
		return
	}
	join()
}

// finish stops measuring s.
func (m *cpuMeter) finish(s *jobStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.cpuState == cpuRunning {
		m.sample()
		for i, o := range m.running {
			if o == s {
				m.running = append(m.running[:i], m.running[i+1:]...)
				break
			}
		}
	}
	s.cpuState = cpuDone
	js := s.js
	js.CPUMeasured = m.ok
	if !m.ok {
		return
	}
	if rt := float64(js.Runtime); rt > 0 {
		js.UsrCPU = s.cpuUse.usr * 100 / rt
		js.SysCPU = s.cpuUse.sys * 100 / rt
	}
	r := func(v float64) uint64 { return uint64(max(v+0.5, 0)) }
	js.Ctx, js.MajFlt, js.MinFlt = r(s.cpuUse.ctx), r(s.cpuUse.majf), r(s.cpuUse.minf)
}

// The states of a job's CPU measurement.
const (
	cpuWaiting = iota + 1 // started, in ramp_time
	cpuRunning
	cpuDone
)
