package engine

// The CPU model of a simulated run (Options.CPU; package sim/cpu, and
// docs/cpus.md for the model and its sources). Without it a task costs no
// CPU: everything a job does between two events takes no time, a woken
// task runs after Options.WakeLatency and WakeJitter, and the run is what
// it always was. With it each fio job's task is a thread that needs one
// of CPUs CPUs:
//
//   - Whatever gives the task work (its start, a wake-up after sleeping
//     for a request, an I/O's completion, the end of a thinktime or of a
//     rate limit's pause) posts it to the thread, which does it once it
//     has a CPU, after a context switch if it was off one.
//   - The job takes one I/O per step of the thread, and each bio it
//     submits costs Submit of CPU time (the system call and the request
//     layer's work), one bio per step: a submit call of n bios holds a
//     CPU for n x Submit, in steps, under its plug if Linux plugs it (a
//     call of more than two, batch.go), as a task in io_submit holds its
//     plug across the call; the call returns (its plug is finished) in
//     the step after its last bio's. Each end of a step is a preemption
//     point (the return to user space).
//   - A woken task finishing a submission that slept for a request costs
//     Submit again (the retry of get_request and the rest of the
//     submission): a wake-up that finds no request free costs a context
//     switch and that.
//   - After every SectionEvery writes the task runs a Section that cannot
//     be preempted (a walk under a spinlock, the 2004 thread's worst
//     cases), with a preemption point every LockBreak if that is set.
//   - A buffered job's page-cache client sleeps and wakes on the job's
//     thread too; the flusher and device completions take no CPU (they
//     are the kernel threads and interrupts the model leaves out), nor do
//     the bios the cache submits on a task's behalf (write-back,
//     read-ahead), and the copy between the user's buffer and the cache
//     stays the cache's own time (CopyNsPerKiB), not a CPU's.
//
// The hooks into the job are pump's first line (a pump off the thread
// becomes a step posted to it), its loop's end (a step takes one I/O),
// submitCalls (a step submits one bio: batch.go) and wake's timer
// (afterWake); a step's CPU time and section are here.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/cpu"
)

// CPUOptions configure the CPU model. CPUs 0 turns it off (the default);
// the other fields are then unused. They have no implicit defaults: a
// zero cost is free. DefaultCPUOptions gives the defaults and their
// sources.
type CPUOptions struct {
	// CPUs is the number of CPUs, 0 (no model) to cpu.MaxCPUs.
	CPUs int
	// ContextSwitch is the CPU time of putting a task on a CPU.
	ContextSwitch time.Duration
	// Submit is the CPU time of submitting one bio: the system call and
	// the request layer's work for it.
	Submit time.Duration
	// Timeslice is how long a task may keep a CPU that a task of its own
	// priority waits for (0: until it sleeps).
	Timeslice time.Duration
	// Section, if set, is a stretch that cannot be preempted which a task
	// runs after every SectionEvery writes it submits (at least 1).
	Section      time.Duration
	SectionEvery int
	// LockBreak, if set, puts a preemption point into a section every
	// LockBreak (lock breaking, cond_resched).
	LockBreak time.Duration
}

// The defaults of the CPU model's costs. The discussions give no figure
// for a context switch and none for the request layer's work alone; see
// docs/cpus.md for how these were chosen.
const (
	// DefaultContextSwitch: 5 µs, a context switch on a machine of 2002
	// with its cache refill (an assumption; no thread measures it).
	DefaultContextSwitch = 5 * time.Microsecond
	// DefaultSubmit: 50 µs, the CPU time per 4 KiB read of the 2002
	// thread's tiobench runs on a K6-2 475 MHz (8 sequential readers,
	// 8.94 MB/s at 13.3% CPU: 58 µs), copy and file system included.
	DefaultSubmit = 50 * time.Microsecond
	// DefaultTimeslice: 100 ms, the timeslice of a nice 0 task in 2.6.
	DefaultTimeslice = 100 * time.Millisecond
)

// DefaultCPUOptions returns n CPUs with the default costs, no section.
func DefaultCPUOptions(n int) CPUOptions {
	return CPUOptions{CPUs: n, ContextSwitch: DefaultContextSwitch, Submit: DefaultSubmit,
		Timeslice: DefaultTimeslice, SectionEvery: 1}
}

// cpuParams are the settings CPUOptions.Set takes, by name, in String's
// order.
var cpuParams = []struct {
	name string
	dur  func(o *CPUOptions) *time.Duration // nil: an int setting
}{
	{"context_switch", func(o *CPUOptions) *time.Duration { return &o.ContextSwitch }},
	{"submit", func(o *CPUOptions) *time.Duration { return &o.Submit }},
	{"timeslice", func(o *CPUOptions) *time.Duration { return &o.Timeslice }},
	{"section", func(o *CPUOptions) *time.Duration { return &o.Section }},
	{"section_every", nil},
	{"lock_break", func(o *CPUOptions) *time.Duration { return &o.LockBreak }},
}

// CPUParamNames lists the names Set takes.
func CPUParamNames() []string {
	var out []string
	for _, p := range cpuParams {
		out = append(out, p.name)
	}
	return out
}

// Set sets the named cost (context_switch, submit, timeslice, section,
// lock_break: a duration such as 5us; section_every: a count), and
// returns an error naming the setting for a bad name or value.
func (o *CPUOptions) Set(name, value string) error {
	for _, p := range cpuParams {
		if p.name != name {
			continue
		}
		if p.dur == nil {
			n, err := strconv.Atoi(value)
			if err != nil || n < 1 {
				return fmt.Errorf("%s=%s: want a whole number of at least 1", name, value)
			}
			o.SectionEvery = n
			return nil
		}
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return fmt.Errorf("%s=%s: want a duration of 0 or more, such as 5us or 2ms", name, value)
		}
		*p.dur(o) = d
		return nil
	}
	return fmt.Errorf("unknown CPU setting %q: want one of %s", name, strings.Join(CPUParamNames(), ", "))
}

// String gives the settings as NAME=VALUE words, "cpus=N" first; "" when
// the model is off.
func (o CPUOptions) String() string {
	if o.CPUs == 0 {
		return ""
	}
	parts := []string{fmt.Sprint("cpus=", o.CPUs)}
	for _, p := range cpuParams {
		if p.dur == nil {
			if o.Section > 0 {
				parts = append(parts, fmt.Sprint(p.name, "=", o.SectionEvery))
			}
			continue
		}
		if d := *p.dur(&o); d > 0 || p.name == "context_switch" || p.name == "submit" {
			parts = append(parts, fmt.Sprint(p.name, "=", d))
		}
	}
	return strings.Join(parts, " ")
}

// check returns an error for settings out of range, or a model asked for
// where it cannot run (a device not simulated).
func (o CPUOptions) check(device string) error {
	if o.CPUs == 0 {
		return nil
	}
	if !strings.HasPrefix(device, "sim:") {
		return fmt.Errorf("--cpus=%d: the CPU model runs on simulated devices (sim:hdd, sim:ssd) only; on %s the CPUs are the machine's own", o.CPUs, device)
	}
	if err := o.config().Check(); err != nil {
		return fmt.Errorf("--cpus: %w", err)
	}
	switch {
	case o.Submit < 0 || o.Section < 0 || o.LockBreak < 0:
		return fmt.Errorf("--cpus: negative CPU time (submit %v, section %v, lock_break %v)", o.Submit, o.Section, o.LockBreak)
	case o.Section > 0 && o.SectionEvery < 1:
		return fmt.Errorf("--cpus: section_every=%d: want at least 1", o.SectionEvery)
	}
	return nil
}

func (o CPUOptions) config() cpu.Config {
	return cpu.Config{CPUs: o.CPUs, ContextSwitch: o.ContextSwitch, Timeslice: o.Timeslice}
}

// CPUStats are a run's figures under the CPU model.
type CPUStats struct {
	cpu.Stats
	CPUs int
}

// cpuModel is a run's CPUs.
type cpuModel struct {
	sched *cpu.Sched
	opt   CPUOptions
}

// jobCPU is a job's part of the model: its task's thread and the state of
// its steps.
type jobCPU struct {
	th     *cpu.Thread
	step   int  // cpuStep's progress: stepNone, stepOpen, stepPumping
	posted bool // a step is posted to the thread and has not run
	writes int  // writes since the last section
	delays *report.Latency
	stepFn func() // j.cpuStep, made once
}

const (
	stepNone    = iota
	stepOpen    // a step runs and may pump once
	stepPumping // the step's pump runs
)

// openCPUs makes the run's CPUs and a thread for each job, if the model
// is on. Called by open once the executor exists.
func (r *runner) openCPUs() error {
	o := r.opt.CPU
	if o.CPUs == 0 {
		return nil
	}
	loop := r.exec.(simExec).loop.(*sim.Loop) // check: the device is simulated
	s, err := cpu.New(loop, o.config())
	if err != nil {
		return err
	}
	r.cpus = &cpuModel{sched: s, opt: o}
	for _, j := range r.jobs {
		c := &jobCPU{th: s.NewThread(j.name, j.spec.Nice), delays: report.NewLatency()}
		c.th.OnRun = func(d time.Duration) { c.delays.Record(int64(d)) }
		c.stepFn = j.cpuStep
		j.cpu = c
	}
	return nil
}

// cpuPump is pump's hook: false lets pump go on (no model, or the
// thread's step is pumping); true: a step is posted to the thread
// instead, which pumps once it runs.
func (j *job) cpuPump() bool {
	c := j.cpu
	if c == nil {
		return false
	}
	if c.step == stepOpen {
		c.step = stepPumping
		return false
	}
	c.post()
	return true
}

func (c *jobCPU) post() {
	if !c.posted {
		c.posted = true
		c.th.Post(c.stepFn)
	}
}

// cpuStepDone is pump's check after each I/O under the model: a step
// takes one I/O and then gives the CPU time it cost.
func (j *job) cpuStepDone() bool {
	return j.cpu != nil && j.cpu.step == stepPumping
}

// cpuStepping reports whether a step of the model runs: submitCalls then
// submits one bio per step.
func (j *job) cpuStepping() bool { return j.cpu != nil && j.cpu.step == stepPumping }

// cpuStep is one step of the job's thread: a pump that takes at most one
// I/O and submits at most one bio, the bio's CPU time, a section when one
// is due, and the next step if the job can go on.
func (j *job) cpuStep() {
	c, o := j.cpu, j.r.cpus.opt
	c.posted = false
	before, bios, writes := j.submitted, j.aio.bios, j.rateIOs[rwt(blkq.OpWrite)]
	c.step = stepOpen
	j.pump()
	c.step = stepNone
	n, nb := j.submitted-before, j.aio.bios-bios
	if n > 0 || nb > 0 || j.aio.committing() && !j.main.asleep {
		c.th.Spend(time.Duration(nb) * o.Submit)
		c.writes += int(j.rateIOs[rwt(blkq.OpWrite)] - writes)
		if o.Section > 0 && c.writes >= o.SectionEvery {
			c.writes = 0
			c.th.Section(o.Section, o.LockBreak)
		}
		if !j.main.asleep && !j.state.ended() {
			c.post() // the next step, once this one's CPU time is spent
		}
	}
}

// afterWake runs f, the woken task's continuation (job.wake): after the
// wake latency without the model; on the task's thread with it, once it
// has a CPU, at the CPU cost of finishing its submission.
func (j *job) afterWake(f func()) {
	c := j.cpu
	if c == nil {
		j.exec.AfterFunc(j.r.wakeDelay(), f)
		return
	}
	c.th.Post(func() {
		c.th.Spend(j.r.cpus.opt.Submit)
		f()
	})
}

// cpuClient makes the wake-ups of t, the job's page-cache client's task,
// run on the job's thread (the cache then runs them at once: openCache).
func (j *job) cpuClient(t *blkq.Task) {
	c := j.cpu
	if c == nil {
		return
	}
	wake := t.Wake
	t.Wake = func(resume func() bool) {
		c.th.Post(func() { wake(resume) })
	}
}

// cpuReport puts the job's modelled CPU figures into js: its task's CPU
// time as sys_cpu (of the job's runtime), its context switches as ctx.
func (j *job) cpuReport(js *report.JobStats) {
	c := j.cpu
	if c == nil || js.Blkq == nil {
		return
	}
	st := c.th.Stats()
	if js.Runtime > 0 {
		js.SysCPU = float64(st.CPU) * 100 / float64(js.Runtime)
	}
	js.UsrCPU, js.Ctx = 0, st.Switches
	js.Blkq.CPU = &report.CPUJobStats{CPUs: j.r.cpus.opt.CPUs, Wakeups: st.Wakeups, RunDelay: c.delays}
}

// cpuStats returns the run's totals, nil without the model.
func (r *runner) cpuStats() *CPUStats {
	if r.cpus == nil {
		return nil
	}
	return &CPUStats{Stats: r.cpus.sched.Stats(), CPUs: r.cpus.opt.CPUs}
}

// checkReplayCPU refuses the CPU model for a replay: its records' tasks
// are not threads of the model.
func checkReplayCPU(o CPUOptions) error {
	if o.CPUs != 0 {
		return fmt.Errorf("--cpus=%d: the CPU model runs fio jobs (blkq run), not replays", o.CPUs)
	}
	return nil
}
