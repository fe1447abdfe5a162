package cpu

// The scheduler: CPUs, the run queue, and a thread's program of work
// items and CPU time. See doc.go for the model.

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// Nice values bound a thread's priority, as Linux's do: NiceMin is the
// highest priority, NiceMax the lowest; 0 is the default.
const (
	NiceMin = -20
	NiceMax = 19
)

// MaxCPUs bounds Config.CPUs: more than any machine of the discussions
// had, and enough for the many-CPU case the 2002 thread worried about.
const MaxCPUs = 1024

// Config is a machine's CPUs.
type Config struct {
	// CPUs is the number of CPUs, 1 to MaxCPUs.
	CPUs int
	// ContextSwitch is the CPU time of putting a thread on a CPU, charged
	// to that thread before its work runs (0: free).
	ContextSwitch time.Duration
	// Timeslice is how long a thread may run without sleeping before it
	// gives its CPU, at its next preemption point, to a waiting thread of
	// its own priority (0: never; it runs until it sleeps or a better one
	// waits).
	Timeslice time.Duration
}

// Check returns an error for a configuration out of range.
func (c Config) Check() error {
	switch {
	case c.CPUs < 1 || c.CPUs > MaxCPUs:
		return fmt.Errorf("cpus=%d: want 1 to %d", c.CPUs, MaxCPUs)
	case c.ContextSwitch < 0:
		return fmt.Errorf("context switch %v: want 0 or more", c.ContextSwitch)
	case c.Timeslice < 0:
		return fmt.Errorf("timeslice %v: want 0 or more", c.Timeslice)
	}
	return nil
}

// Stats are a Sched's totals over its threads.
type Stats struct {
	// Busy is the CPU time used, context switches included, summed over
	// the CPUs.
	Busy time.Duration
	// Switches counts threads put on a CPU (context switches).
	Switches uint64
	// Wakeups counts sleeping threads made runnable.
	Wakeups uint64
	// Preemptions counts running threads that gave up their CPU at a
	// preemption point to a waiting one.
	Preemptions uint64
	// RunDelayMax is the longest wake-up latency: from a thread's wake-up
	// to its work running on a CPU, the context switch included.
	RunDelayMax time.Duration
}

// ThreadStats are one thread's figures; see Stats for their meaning.
type ThreadStats struct {
	CPU         time.Duration // CPU time used, context switches included
	Switches    uint64
	Wakeups     uint64
	Preemptions uint64
	// RunDelayTotal and RunDelayMax are the sum and the longest of its
	// wake-up latencies.
	RunDelayTotal, RunDelayMax time.Duration
}

// A Sched is the CPUs of one simulation and their run queue.
type Sched struct {
	loop    *sim.Loop
	cfg     Config
	cpus    []*Thread                        // the thread on each CPU; nil: idle
	runq    [NiceMax - NiceMin + 1][]*Thread // waiting threads by nice value, first come first
	waiting int                              // threads in runq
	current *Thread                          // whose work item is running now
	stats   Stats
}

// New returns the CPUs cfg describes, idle, on loop.
func New(loop *sim.Loop, cfg Config) (*Sched, error) {
	if loop == nil {
		return nil, errors.New("cpu: nil loop")
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	return &Sched{loop: loop, cfg: cfg, cpus: make([]*Thread, cfg.CPUs)}, nil
}

// Config returns the configuration the Sched was made with.
func (s *Sched) Config() Config { return s.cfg }

// Stats returns the totals so far.
func (s *Sched) Stats() Stats { return s.stats }

// On returns the thread on CPU c, nil if it is idle.
func (s *Sched) On(c int) *Thread { return s.cpus[c] }

// Waiting returns the number of threads in the run queue.
func (s *Sched) Waiting() int { return s.waiting }

// State is where a thread is.
type State uint8

// A thread's states.
const (
	Asleep   State = iota // nothing to do
	Runnable              // waiting in the run queue for a CPU
	Running               // on a CPU
)

func (st State) String() string {
	switch st {
	case Asleep:
		return "asleep"
	case Runnable:
		return "runnable"
	case Running:
		return "running"
	}
	return fmt.Sprintf("State(%d)", uint8(st))
}

// A Thread is a task that needs a CPU for its work: a submitter.
type Thread struct {
	s     *Sched
	name  string
	nice  int
	state State
	cpu   int    // the CPU it runs on; -1 when it does not
	prog  []step // what it has left to do, in order
	// insert is where Spend and Section put CPU time while a work item
	// runs: after the item, before what was posted earlier.
	insert   int
	queuedAt blkq.Time // when it last became runnable
	woken    bool      // it became runnable from sleep (a wake-up)
	since    blkq.Time // when it last got a CPU: its timeslice's start
	runFn    func()    // t.run and t.pieceEnd as values, made once
	endFn    func()
	stats    ThreadStats
	// OnRun, if set, is called with the wake-up latency of each wake-up
	// as the thread's work starts.
	OnRun func(delay time.Duration)
}

// A step is a work item (f) or CPU time left to spend (d), with a
// preemption point every brk inside it (0: only at its end).
type step struct {
	f      func()
	d, brk time.Duration
}

// NewThread returns a sleeping thread named name with priority nice
// (NiceMin to NiceMax; out of range is a programming error).
func (s *Sched) NewThread(name string, nice int) *Thread {
	if nice < NiceMin || nice > NiceMax {
		panic(fmt.Sprintf("cpu: thread %s: nice %d out of range", name, nice))
	}
	t := &Thread{s: s, name: name, nice: nice, cpu: -1}
	t.runFn, t.endFn = t.run, t.pieceEnd
	return t
}

// Name returns the thread's name.
func (t *Thread) Name() string { return t.name }

// Nice returns the thread's priority.
func (t *Thread) Nice() int { return t.nice }

// State returns where the thread is.
func (t *Thread) State() State { return t.state }

// Stats returns the thread's figures so far.
func (t *Thread) Stats() ThreadStats { return t.stats }

// Working reports whether one of t's work items is running now, so that
// it may call Spend and Section.
func (t *Thread) Working() bool { return t.s.current == t }

func (t *Thread) String() string { return fmt.Sprintf("%s(%s, cpu %d)", t.name, t.state, t.cpu) }

// Post gives t the work item f: t runs it on a CPU after what was posted
// before. A sleeping t is woken: it goes to an idle CPU at once, or waits
// in the run queue. f never runs inside Post.
func (t *Thread) Post(f func()) {
	if f == nil {
		panic("cpu: nil work item")
	}
	t.prog = append(t.prog, step{f: f})
	if t.state != Asleep {
		return
	}
	s := t.s
	t.state, t.woken, t.queuedAt = Runnable, true, s.loop.Now()
	t.stats.Wakeups++
	s.stats.Wakeups++
	for c, o := range s.cpus {
		if o == nil {
			s.dispatch(c, t)
			return
		}
	}
	s.push(t)
}

// Spend keeps t on its CPU for d of CPU time once the running work item
// returns, before its next one; the end of that time is a preemption
// point. Called from t's own work item (Working).
func (t *Thread) Spend(d time.Duration) { t.Section(d, 0) }

// Section is Spend for a stretch that cannot be preempted: a walk under a
// spinlock. With brk > 0 it has a preemption point every brk (lock
// breaking, cond_resched); a thread preempted there resumes the section
// where it left off. Called from t's own work item (Working).
func (t *Thread) Section(d, brk time.Duration) {
	if !t.Working() {
		panic(fmt.Sprintf("cpu: %s spends CPU time outside its own work", t.name))
	}
	if d <= 0 {
		return
	}
	t.prog = slices.Insert(t.prog, t.insert, step{d: d, brk: max(brk, 0)})
	t.insert++
}

// run does t's program on its CPU: work items at once, CPU time by a
// timer; when nothing is left, t sleeps.
func (t *Thread) run() {
	s := t.s
	for len(t.prog) > 0 {
		st := t.prog[0]
		if st.f != nil {
			t.prog[0] = step{}
			t.prog = t.prog[1:]
			t.insert = 0
			s.current = t
			st.f()
			s.current = nil
			continue
		}
		piece := st.d
		if st.brk > 0 && st.brk < piece {
			piece = st.brk
		}
		t.prog[0].d -= piece
		t.charge(piece)
		s.loop.Schedule(piece, t.endFn)
		return
	}
	t.sleep()
}

// pieceEnd is a preemption point: a stretch of CPU time, or a piece of a
// section, has been spent.
func (t *Thread) pieceEnd() {
	if t.prog[0].d == 0 {
		t.prog[0] = step{}
		t.prog = t.prog[1:]
	}
	if len(t.prog) > 0 && t.s.preempt(t) {
		return
	}
	t.run()
}

func (t *Thread) charge(d time.Duration) {
	t.stats.CPU += d
	t.s.stats.Busy += d
}

// sleep takes t off its CPU, which takes the next waiting thread.
func (t *Thread) sleep() {
	s := t.s
	c := t.cpu
	t.state, t.cpu = Asleep, -1
	s.cpus[c] = nil
	if next := s.pop(); next != nil {
		s.dispatch(c, next)
	}
}

// dispatch puts t on idle CPU c: a context switch, then t's program.
func (s *Sched) dispatch(c int, t *Thread) {
	now := s.loop.Now()
	s.cpus[c] = t
	t.state, t.cpu, t.since = Running, c, now
	cs := s.cfg.ContextSwitch
	if t.woken {
		t.woken = false
		d := time.Duration(now-t.queuedAt) + cs
		t.stats.RunDelayTotal += d
		t.stats.RunDelayMax = max(t.stats.RunDelayMax, d)
		s.stats.RunDelayMax = max(s.stats.RunDelayMax, d)
		if t.OnRun != nil {
			t.OnRun(d)
		}
	}
	t.stats.Switches++
	s.stats.Switches++
	t.charge(cs)
	s.loop.Schedule(cs, t.runFn)
}

// preempt gives t's CPU to the first waiting thread if that one has a
// better priority, or the same once t's timeslice is over; false: t goes
// on. Called at t's preemption points.
func (s *Sched) preempt(t *Thread) bool {
	w := s.peek()
	if w == nil {
		return false
	}
	better := w.nice < t.nice
	expired := w.nice == t.nice && s.cfg.Timeslice > 0 && s.loop.Now()-t.since >= blkq.Time(s.cfg.Timeslice)
	if !better && !expired {
		return false
	}
	c := t.cpu
	s.cpus[c] = nil
	t.state, t.cpu, t.queuedAt = Runnable, -1, s.loop.Now()
	t.stats.Preemptions++
	s.stats.Preemptions++
	next := s.pop()
	if better {
		s.pushFront(t) // it keeps its place among its equals
	} else {
		s.push(t)
	}
	s.dispatch(c, next)
	return true
}

// The run queue: one first-come-first-served list per nice value.

func (s *Sched) push(t *Thread) {
	i := t.nice - NiceMin
	s.runq[i] = append(s.runq[i], t)
	s.waiting++
}

func (s *Sched) pushFront(t *Thread) {
	i := t.nice - NiceMin
	s.runq[i] = slices.Insert(s.runq[i], 0, t)
	s.waiting++
}

// peek returns the thread pop would take, nil if none waits.
func (s *Sched) peek() *Thread {
	if s.waiting == 0 {
		return nil
	}
	for _, q := range s.runq {
		if len(q) > 0 {
			return q[0]
		}
	}
	return nil
}

func (s *Sched) pop() *Thread {
	if s.waiting == 0 {
		return nil
	}
	for i, q := range s.runq {
		if len(q) > 0 {
			t := q[0]
			q[0] = nil
			s.runq[i] = q[1:]
			s.waiting--
			return t
		}
	}
	return nil
}
