package engine

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/report"
)

// Replay: a block trace's I/Os through the request layer onto a device.
//
// With trace timing each record is submitted at its recorded arrival time
// (divided by Speed): an open loop, as the trace's submitters issued them.
// With afap timing the records are submitted in order as fast as the queue
// takes them, IODepth at a time: a closed loop. Each trace pid is a task
// of its own, so request allocation sleeps and wakes them separately; a
// record whose task is asleep waits for it, in order.

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

type replayTask struct {
	task    *blkq.Task
	asleep  bool
	parked  *replayIO   // the record whose submission slept
	waiting []*replayIO // records that arrived while the task slept
}

type replayIO struct {
	ioUnit
	p   *replayer
	rec *ReplayRecord
	idx int // record index
	rt  *replayTask
}

type replayer struct {
	runner
	ro       ReplayOptions
	tasks    map[int]*replayTask
	feed     *feeder
	t0       time.Duration // the earliest record's time: the replay's start
	released int64         // records handed to arrive so far
	pending  int           // trace timing: arrivals scheduled and not yet run
	inflight int
	st       *jobStats
	ended    int64
	firstErr error
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
	if opt.Seed == 0 {
		opt.Seed = 1
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
	sc, err := scanTrace(name, src, ro)
	if err != nil {
		return nil, err
	}
	p := &replayer{ro: ro, tasks: map[int]*replayTask{}, t0: sc.t0}
	p.opt = opt
	capacity := int64(DefaultSimCapacity)
	if kind := opt.Device; len(kind) > 5 && kind[:5] == "file:" {
		capacity = max(int64(sc.maxEnd)<<blkq.SectorShift, 1<<20)
		if opt.SizeCap > 0 {
			capacity = opt.SizeCap
		}
	}
	if err := p.openQueue(capacity, false); err != nil {
		return nil, err
	}
	defer p.dev.Close()
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
	devSectors := p.dev.Capacity()
	wrap := sc.maxEnd > devSectors
	if wrap {
		bc, err := checkBeyond(name, src, sc.n, devSectors, ro.Strict)
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
	p.feed = &feeder{rd: rd, left: sc.n, wrapTo: devSectors, wrap: wrap}
	res.Merged = make([]byte, sc.n)
	js := &report.JobStats{Name: name, PID: 1000, Engine: "replay", IODepth: ro.IODepth, RW: "replay " + ro.Timing}
	js.BS = sc.bs
	p.st = newJobStats(js)
	p.st.cpu = p.newCPUMeter() // nil on simulated devices
	var sleeps allocSleeps
	p.q.AddTracer(blkq.TracerFunc(func(e *blkq.Event) {
		b := js.Blkq
		switch e.Action {
		case 'M':
			if e.Bio == nil {
				return // a request merge: no record merged
			}
			b.BackMerges++
			res.Merged[e.Bio.Private.(*replayIO).idx] = 'M'
		case 'F':
			b.FrontMerges++
			res.Merged[e.Bio.Private.(*replayIO).idx] = 'F'
		case 'D':
			b.RequestsIssued++
			b.RequestBytes += uint64(e.Sectors) << blkq.SectorShift
		case 'S', 'G', 'W', 'C':
			sleeps.trace(e, b)
		}
	}))
	p.st.begin(0, 0)
	if ro.Timing == "trace" {
		p.exec.AfterFunc(0, p.scheduleArrivals)
	} else {
		p.exec.AfterFunc(0, p.pump)
	}
	unwatch := p.watchStop(p.interrupt)
	p.exec.Run()
	unwatch()
	end := p.exec.Now()
	res.Interrupted = p.interrupted
	if p.interrupted && p.inflight != 0 || !p.interrupted && (p.ended != p.released || !p.feed.done()) {
		return nil, fmt.Errorf("internal error: %d of %d records ended", p.ended, p.released)
	}
	if err := p.q.Check(true); err != nil {
		return nil, fmt.Errorf("internal error: %d of %d records ended: %w", p.ended, p.released, err)
	}
	if n := sleeps.stillAsleep(); n != 0 {
		return nil, fmt.Errorf("internal error: %d bios slept for a request and were never woken", n)
	}
	if p.feed.err != nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%v (replayed the %d records before it)", p.feed.err, p.released))
	}
	if n := p.feed.late; n > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d records were more than %d records out of time order; each was replayed when the replay reached it, later than its time", name, n, ReplayWindow))
	}
	if p.firstErr != nil {
		js.Error, js.ErrorText = int(errnoOf(p.firstErr)), p.firstErr.Error()
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v", name, p.firstErr))
	}
	p.st.finish(end)
	p.disk.Flush(end)
	res.Disk = *p.disk
	res.Elapsed = time.Duration(end)
	p.jobs = nil
	run := p.report(end)
	js.Elapsed = elapsedSecs(end)
	run.Jobs = []*report.JobStats{js}
	res.Run = run
	return res, nil
}

// scheduleArrivals keeps up to arrivalsAhead records scheduled at their
// trace times (trace timing). Scheduling them ahead keeps an arrival
// before the device events of the same nanosecond, as when every record
// was scheduled at the start.
func (p *replayer) scheduleArrivals() {
	for p.pending < arrivalsAhead && !p.interrupted {
		r := p.feed.pop()
		if r == nil {
			p.checkEnd()
			return
		}
		at := time.Duration(float64(r.Time-p.t0) / p.ro.Speed) // scanTrace checked the range
		p.pending++
		p.exec.AfterFunc(max(at-time.Duration(p.exec.Now()), 0), func() {
			p.pending--
			p.arrive(r)
			p.scheduleArrivals()
		})
	}
}

// arrivalsAhead is how many arrivals trace timing keeps scheduled.
const arrivalsAhead = 1024

func (p *replayer) taskFor(r *ReplayRecord) *replayTask {
	rt := p.tasks[r.PID]
	if rt == nil {
		name := r.Process
		if name == "" {
			name = "replay"
		}
		rt = &replayTask{task: blkq.NewTask(r.PID, name)}
		t := rt
		rt.task.Wake = func(resume func() bool) {
			p.exec.AfterFunc(p.opt.WakeLatency, func() {
				if !resume() {
					return
				}
				t.asleep = false
				if io := t.parked; io != nil {
					t.parked = nil
					io.queued = p.exec.Now()
				}
				for len(t.waiting) > 0 && !t.asleep {
					io := t.waiting[0]
					t.waiting = t.waiting[1:]
					p.submit(io)
				}
				if p.ro.Timing == "afap" {
					p.pump()
				}
			})
		}
		p.tasks[r.PID] = rt
	}
	return rt
}

// arrive submits a record at its trace time (or queues it behind its
// sleeping task).
func (p *replayer) arrive(r *ReplayRecord) {
	if p.stopDue() {
		return // interrupted: the records not yet arrived are not replayed
	}
	rt := p.taskFor(r)
	io := &replayIO{p: p, rec: r, idx: r.index, rt: rt}
	p.released++
	io.bio = blkq.Bio{Op: r.Op, Flags: r.Flags, Sector: r.Sector, Sectors: r.Sectors, Private: io, EndIO: replayEndIO}
	io.dir = dirOf(r.Op)
	if !p.simulated && r.Op != blkq.OpFlush && r.Sector+uint64(r.Sectors) <= p.dev.Capacity() {
		// A real device moves data: reads need room, writes need bytes
		// (zeros: a trace records addresses, not contents).
		io.bio.Buf = device.AlignedBuffer(int(r.Sectors) << blkq.SectorShift)
	}
	io.start = p.exec.Now()
	p.inflight++
	p.st.submitDepth(p.inflight)
	if rt.asleep {
		rt.waiting = append(rt.waiting, io)
		return
	}
	p.submit(io)
}

// submit hands io's bio to the queue.
func (p *replayer) submit(io *replayIO) {
	if !p.q.Enqueue(io.rt.task, &io.bio) {
		io.rt.asleep = true
		io.rt.parked = io
		return
	}
	io.queued = p.exec.Now()
}

// pump keeps IODepth records in flight (afap).
func (p *replayer) pump() {
	if p.stopDue() {
		return
	}
	for p.inflight < p.ro.IODepth {
		r := p.feed.peek()
		if r == nil {
			p.checkEnd()
			return
		}
		if rt := p.tasks[r.PID]; rt != nil && rt.asleep {
			return // in order: wait for the record's task
		}
		p.feed.pop()
		p.arrive(r)
	}
}

// checkEnd stops the run once the trace is read and every record ended.
func (p *replayer) checkEnd() {
	if p.ended == p.released && p.pending == 0 && p.feed.done() {
		p.exec.Stop()
	}
}

func replayEndIO(b *blkq.Bio, err error) {
	io := b.Private.(*replayIO)
	if io.p.simulated {
		io.p.done(io, err)
		return
	}
	io.p.exec.Do(func() { io.p.done(io, err) })
}

// done accounts a completed record. A read-ahead record dropped because
// the request pool was short is what Linux does under pressure: it is
// counted (ra dropped, and fio's dropped I/Os), not an error.
func (p *replayer) done(io *replayIO, err error) {
	p.inflight--
	p.ended++
	switch {
	case err == nil:
		p.st.record(&io.ioUnit, p.exec.Now())
	case errors.Is(err, blkq.ErrReadAheadDropped):
		p.st.dropped(io.dir) // Blkq.DroppedReadAhead counts its C event
	case p.firstErr == nil:
		p.firstErr = fmt.Errorf("record at line %d: %w", io.rec.Line, err)
	}
	if p.interrupted && p.inflight == 0 {
		p.exec.Stop()
		return
	}
	if p.ro.Timing == "afap" {
		p.pump()
	} else {
		p.checkEnd()
	}
}

// interrupt ends an interrupted replay once its records in flight have
// ended (done stops it when the last of them ends).
func (p *replayer) interrupt() {
	if p.inflight == 0 {
		p.exec.Stop()
	}
}

func dirOf(op blkq.Op) ioDir {
	switch op {
	case blkq.OpRead:
		return dirRead
	case blkq.OpDiscard:
		return dirTrim
	}
	return dirWrite
}
