package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Replay: a block trace's I/Os through the request layer onto a device.
//
// A replay is one job of the runner that runs fio jobs (run.go), whose
// source is the trace (traceSource, below) in place of fio's offsets.
// With trace timing each record is due at its recorded arrival time
// (divided by Speed): an open loop, as the trace's submitters issued them.
// With afap timing the records are submitted in order as fast as the queue
// takes them, IODepth at a time: a closed loop. Each trace pid is a task
// of its own (a submitter of the job), so request allocation sleeps and
// wakes them separately; a record whose task is asleep waits for it, in
// order.

// ReplayRecord is one I/O of a trace.
type ReplayRecord struct {
	Time    time.Duration // arrival since the trace's start
	PID     int
	Process string
	Op      blkq.Op
	Flags   blkq.Flags
	Sector  uint64 // 512-byte sectors
	Sectors uint32
	Line    int // where it came from, for errors
	// PlugFirst and PlugLast mark, in a trace that shows its plugs (a
	// blkparse or ftrace trace with P and U events), the first record of
	// its task's plug and the last, after which the plug is flushed: the
	// replay plugs the task's bios from the one to the other, as the
	// kernel did (replayplug.go). Neither set: the record is inside its
	// task's plug, or, in a trace that shows none, submitted unplugged.
	PlugFirst, PlugLast bool
	// PlugSlept marks a record after which its task slept, flushing its
	// plug and keeping it (UT): the replay flushes the plug there too,
	// unless the replay's own task slept for a request on it.
	PlugSlept bool
	// Splits are the kernel's splits of the record's bio, where the
	// trace shows them (its X events, iotrace.Record.Splits): the lengths
	// of the pieces cut off its front. A split blkq's limits do not
	// explain tells of the bio's memory, which the replay gives the bio
	// (replaysplit.go).
	Splits []uint32

	index int // position in the replay, set by Replay
}

// ReplayOptions choose how a trace is replayed.
type ReplayOptions struct {
	// Timing is "trace" (default: recorded arrival times) or "afap".
	Timing string
	// Speed divides the recorded times (trace timing; default 1).
	Speed float64
	// IODepth is the number of records in flight (afap; default 32).
	IODepth int
	// Strict makes an address beyond the device an error instead of
	// wrapping it into the device.
	Strict bool
}

// Replay replays recs (named name in reports) and returns the statistics:
// one job for the whole trace, plus the disk's. It is ReplayStream of
// SliceSource(recs).
func Replay(name string, recs []ReplayRecord, opt Options, ro ReplayOptions) (*Result, error) {
	return ReplayStream(name, SliceSource(recs), opt, ro)
}

// ReplayStream replays the records src yields (named name in reports) and
// returns the statistics: one job for the whole trace, plus the disk's.
// It reads the trace in two passes, three when records lie beyond the
// device: one to check every record and size the device, then the replay
// itself, which holds at most ReplayWindow records ahead of the replay
// plus those in flight, so memory does not grow with the trace.
//
// A reader error other than io.EOF ends the trace: the records before it
// are replayed and the error becomes a warning, unless there were none.
func ReplayStream(name string, src ReplaySource, opt Options, ro ReplayOptions) (*Result, error) {
	if opt.Device == "" {
		opt.Device = "sim:hdd"
	}
	if err := checkReplayCPU(opt.CPU); err != nil {
		return nil, err
	}
	if ro.Timing == "" {
		ro.Timing = "trace"
	}
	if ro.Timing != "trace" && ro.Timing != "afap" {
		return nil, fmt.Errorf("--timing=%s: want trace or afap", ro.Timing)
	}
	if ro.Speed <= 0 {
		ro.Speed = 1
	}
	if math.IsInf(ro.Speed, 0) || math.IsNaN(ro.Speed) {
		return nil, fmt.Errorf("--speed=%v: want a finite number above 0", ro.Speed)
	}
	if ro.IODepth <= 0 {
		ro.IODepth = 32
	}
	sc, err := scanTrace(name, src, ro, opt.Stop)
	if err != nil {
		return nil, err
	}
	r := newRunner(opt)
	capacity := int64(DefaultSimCapacity)
	if kind := opt.Device; len(kind) > 5 && kind[:5] == "file:" {
		capacity = max(int64(sc.maxEnd)<<blkq.SectorShift, 1<<20)
		if opt.SizeCap > 0 {
			capacity = opt.SizeCap
		}
	}
	if err := r.openQueue(capacity, false, false); err != nil {
		return nil, err
	}
	defer r.dev.Close()
	res := &Result{}
	if sc.err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%v (replaying the %d records before it)", sc.err, sc.n))
	}
	if !sc.sorted {
		// Arrival order is time order: a trace whose records are not in
		// it (several CPUs, a merged trace) is replayed sorted, within
		// the window the replay holds.
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: records were not in time order; replaying them sorted by time", name))
	}
	// Addresses beyond the device wrap into it (or fail with Strict).
	devSectors := r.dev.Capacity()
	wrap := sc.maxEnd > devSectors
	if wrap {
		bc, err := checkBeyond(name, src, sc.n, devSectors, ro.Strict, opt.Stop)
		if err != nil {
			return nil, err
		}
		if bc.wrapped > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d of %d records lay beyond the device (%d sectors) and were wrapped into it (--strict refuses)", name, bc.wrapped, sc.n, devSectors))
		}
		if bc.tooLarge > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d of %d records are larger than the device (%d sectors), the first at line %d: they fail, the others replay (--strict refuses the trace)", name, bc.tooLarge, sc.n, devSectors, bc.firstTooLarge))
		}
	}
	rd, err := src()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	res.Merged = make([]byte, sc.n)
	ts := &traceSource{name: name, ro: ro, t0: sc.t0, bs: sc.bs, tasks: map[int]*submitter{},
		feed: &feeder{rd: rd, left: sc.n, wrapTo: devSectors, wrap: wrap}}
	// The replay is one job: its depth bounds afap's records in flight;
	// trace timing is an open loop, bounded by nothing but the trace.
	spec := &fio.Job{Name: name, Direct: true, IODepth: ro.IODepth, Stats: fio.DefaultStatOptions()}
	j := &job{r: r, spec: spec, name: name, pid: replayPID, src: ts, depth: ro.IODepth, low: ro.IODepth, limit: math.MaxInt64}
	if ro.Timing == "trace" {
		j.depth, j.low = math.MaxInt, math.MaxInt
	}
	ts.j = j
	j.exec = r.exec
	j.setPath(directPath{j})
	j.newSubmitter(&j.main, j.pid, "replay")
	r.jobs, r.left = []*job{j}, 1
	r.openStats()
	r.pids.others = j.st.js.Blkq // every task is the replay's
	r.q.AddTracer(blkq.TracerFunc(func(e *blkq.Event) {
		// What blkq did with each record's bio, by record.
		if e.Action != 'M' && e.Action != 'F' || e.Bio == nil {
			return // not a bio's merge (a request merge has no bio)
		}
		if u, ok := e.Bio.Private.(*ioUnit); ok && u.rec != nil {
			res.Merged[u.rec.index] = byte(e.Action)
		}
	}))
	err = r.execute(res)
	if e := r.closeLogs(); err == nil {
		err = e // --bandwidth-log's files
	}
	if err != nil {
		return nil, err
	}
	res.Replayed = int(j.issuedIOs)
	if left := sc.n - j.issuedIOs; left > 0 && ts.feed.err == nil && !res.Interrupted {
		// Only a runtime cap ends a replay before the trace does.
		if j.runtime() == 0 {
			return nil, fmt.Errorf("internal error: the replay ended with %d records of the trace left", left)
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: the replay stopped at its runtime cap (%v) with %d of %d records replayed", name, j.runtime(), j.issuedIOs, sc.n))
	}
	if ts.feed.err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%v (replayed the %d records before it)", ts.feed.err, j.issuedIOs))
	}
	if n := ts.feed.late; n > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d records were more than %d records out of time order; each was replayed when the replay reached it, later than its time", name, n, ReplayWindow))
	}
	if ts.firstErr != nil {
		js := j.st.js
		js.Error, js.ErrorText = int(errnoOf(ts.firstErr)), ts.firstErr.Error()
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v", name, ts.firstErr))
	}
	return res, nil
}

// replayPID is the replay job's pid in reports (its records keep theirs).
const replayPID = 1000

// traceSource is a replay's source: the trace's records, in time order
// within the feeder's window. With trace timing a record is due at its
// recorded time, divided by Speed; with afap at once, but in order: a
// record whose task sleeps holds back the ones after it. Each trace pid is
// a task of its own.
type traceSource struct {
	j        *job
	name     string
	ro       ReplayOptions
	t0       time.Duration // the earliest record's time: the replay's start
	bs       [report.NumDirs]report.BSRange
	feed     *feeder
	tasks    map[int]*submitter
	due      []*ReplayRecord // trace timing: records whose time has come, in trace order
	pending  int             // trace timing: arrivals scheduled and not yet run
	nextDue  int             // trace timing: the index of the next record to issue
	firstErr error
}

func (t *traceSource) begin() {
	if t.ro.Timing != "trace" {
		return
	}
	if ex, ok := t.j.r.exec.(*realExec); ok && t.j.r.opt.Device == "null" {
		t.arriveInTurn(ex)
		return
	}
	t.scheduleArrivals()
}

// arriveInTurn schedules the next record at its trace time once
// everything the records before it caused has run (trace timing on the
// null device, on the wall clock). The null device completes on the
// executor, and a wake-up with no latency is queued there too, so when
// the executor has nothing left to do the queue has done all it will for
// the records so far: each record then meets the queue in the state the
// ones before it left, whatever the machine's speed, and the replay
// submits in the same order and merges the same on every run. One timer
// per record, each armed only then, would otherwise race the completions
// (and each other) when the replay falls behind the trace.
func (t *traceSource) arriveInTurn(ex *realExec) {
	if t.j.r.interrupted || t.j.state.stopping() || t.j.state.ended() {
		return // a runtime cap or an interruption: no more arrivals
	}
	r := t.feed.pop()
	if r == nil {
		return
	}
	t.pending++
	ex.whenIdle(func() {
		at := time.Duration(float64(r.Time-t.t0) / t.ro.Speed)
		ex.AfterFunc(max(at-time.Duration(ex.Now()), 0), func() {
			t.pending--
			t.due = append(t.due, r)
			t.j.pump()
			t.arriveInTurn(ex)
		})
	})
}

// scheduleArrivals keeps up to arrivalsAhead records scheduled at their
// trace times (trace timing). Scheduling them ahead keeps an arrival
// before the device events of the same nanosecond, as when every record
// was scheduled at the start.
func (t *traceSource) scheduleArrivals() {
	ex := t.j.r.exec
	for t.pending < arrivalsAhead && !t.j.r.interrupted {
		r := t.feed.pop()
		if r == nil {
			return
		}
		at := time.Duration(float64(r.Time-t.t0) / t.ro.Speed) // scanTrace checked the range
		t.pending++
		ex.AfterFunc(max(at-time.Duration(ex.Now()), 0), func() {
			t.pending--
			// On a real device timers a few ns apart may fire out of
			// order: keep due in trace order.
			i := len(t.due)
			for i > 0 && t.due[i-1].index > r.index {
				i--
			}
			t.due = slices.Insert(t.due, i, r)
			t.j.pump()
			t.scheduleArrivals()
		})
	}
}

// arrivalsAhead is how many arrivals trace timing keeps scheduled.
const arrivalsAhead = 1024

func (t *traceSource) next() (nextIO, srcStatus) {
	var r *ReplayRecord
	if t.ro.Timing == "trace" {
		if len(t.due) == 0 {
			if t.pending == 0 && t.feed.done() {
				return nextIO{}, srcEnd
			}
			return nextIO{}, srcWait
		}
		if t.due[0].index != t.nextDue {
			return nextIO{}, srcWait // an earlier record's timer has yet to fire
		}
		r = t.due[0]
		t.due[0] = nil
		t.due = t.due[1:]
		t.nextDue++
	} else {
		r = t.feed.peek()
		if r == nil {
			return nextIO{}, srcEnd
		}
		if s := t.tasks[r.PID]; s != nil && s.asleep {
			return nextIO{}, srcWait // in order: wait for the record's task
		}
		t.feed.pop()
	}
	return nextIO{op: r.Op, offset: int64(r.Sector) << blkq.SectorShift, length: int64(r.Sectors) << blkq.SectorShift,
		rec: r, sub: t.taskFor(r)}, srcReady
}

// taskFor returns the task of r's pid; a fio job's iolog is replayed by
// the job's own task, as fio's one thread replays it (and its engine's
// batches are that task's, batch.go).
func (t *traceSource) taskFor(r *ReplayRecord) *submitter {
	if !t.j.aio.immediate() {
		return &t.j.main
	}
	s := t.tasks[r.PID]
	if s == nil {
		name := r.Process
		if name == "" {
			name = "replay"
		}
		s = &submitter{}
		t.j.newSubmitter(s, r.PID, name)
		t.tasks[r.PID] = s
		t.j.others = append(t.j.others, s)
	}
	return s
}

// failed keeps a record's error: the replay goes on (each record is the
// trace's), and its first error is reported.
func (t *traceSource) failed(u *ioUnit, err error) bool {
	if t.firstErr == nil {
		t.firstErr = fmt.Errorf("record at line %d: %w", u.rec.Line, err)
	}
	return true
}

func (t *traceSource) describe(js *report.JobStats) {
	js.Name, js.PID, js.Engine, js.IODepth, js.RW = t.name, replayPID, "replay", t.ro.IODepth, "replay "+t.ro.Timing
	js.BS = t.bs
}

// prepareRecord fills u's bio from trace record r.
func (j *job) prepareRecord(u *ioUnit, r *ReplayRecord) {
	u.bio.Op, u.bio.Flags, u.bio.Sector, u.bio.Sectors, u.bio.Buf = r.Op, r.Flags, r.Sector, r.Sectors, nil
	u.bio.Runs = nil
	if r.Splits != nil {
		u.bio.Runs = kernelRuns(j.r.q, r)
	}
	if strings.HasPrefix(j.r.opt.Device, "file:") && (r.Op == blkq.OpRead || r.Op == blkq.OpWrite) && r.Sector+uint64(r.Sectors) <= j.r.dev.Capacity() {
		// A file moves data: reads need room, writes need bytes. The null
		// device moves none, so its bios carry none. A fio job's
		// read_iolog writes the checked pattern into its buffer (job.go):
		// a buffer of its own, then.
		n := int(r.Sectors) << blkq.SectorShift
		if j.r.data != nil {
			u.bio.Buf = device.AlignedBuffer(n)
		} else {
			u.bio.Buf = j.r.replayBufs.get(r.Op, n)
		}
	}
}

// replayBufs are a blkq replay's data buffers on a file. A trace records
// addresses, not contents, so every write sends the same zeros, from one
// buffer as large as the largest write so far: memory for writes is
// bounded by the largest record, not by it times the records in flight (a
// trace of 2 GB writes arriving at one instant held one 2 GB buffer for
// each). Reads still get a buffer each: the device writes into it, and
// two reads must not share the memory they fill.
type replayBufs struct {
	mu    sync.Mutex
	zeros []byte
}

// get returns n bytes for a bio of op, aligned for O_DIRECT.
func (p *replayBufs) get(op blkq.Op, n int) []byte {
	if op != blkq.OpWrite {
		return device.AlignedBuffer(n)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.zeros) < n {
		p.zeros = device.AlignedBuffer(n) // bios in flight keep the old one
	}
	return p.zeros[:n]
}
