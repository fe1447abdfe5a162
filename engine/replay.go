package engine

import (
	"fmt"
	"sort"
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
	recs     []ReplayRecord
	tasks    map[int]*replayTask
	next     int // afap: next record to issue
	inflight int
	st       *jobStats
	ended    int64
	firstErr error
}

// Replay replays recs (named name in reports) and returns the statistics:
// one job for the whole trace, plus the disk's.
func Replay(name string, recs []ReplayRecord, opt Options, ro ReplayOptions) (*Result, error) {
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
	if ro.IODepth <= 0 {
		ro.IODepth = 32
	}
	p := &replayer{ro: ro, recs: append([]ReplayRecord(nil), recs...), tasks: map[int]*replayTask{}} // wrapping edits the copy
	p.opt = opt
	var need int64
	for _, r := range recs {
		need = max(need, int64(r.Sector+uint64(r.Sectors))<<blkq.SectorShift)
	}
	capacity := int64(DefaultSimCapacity)
	if kind := opt.Device; len(kind) > 5 && kind[:5] == "file:" {
		capacity = max(need, 1<<20)
		if opt.SizeCap > 0 {
			capacity = opt.SizeCap
		}
	}
	if err := p.openQueue(capacity, false); err != nil {
		return nil, err
	}
	defer p.dev.Close()
	res := &Result{}
	if !sort.SliceIsSorted(p.recs, func(i, j int) bool { return p.recs[i].Time < p.recs[j].Time }) {
		// Arrival order is time order: a trace whose records are not in
		// it (several CPUs, a merged trace) is replayed sorted.
		sort.SliceStable(p.recs, func(i, j int) bool { return p.recs[i].Time < p.recs[j].Time })
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: records were not in time order; replaying them sorted by time", name))
	}
	for i := range p.recs {
		p.recs[i].index = i
		if r := &p.recs[i]; r.Sector+uint64(r.Sectors) < r.Sector {
			return nil, fmt.Errorf("%s:%d: sectors %d+%d overflow", name, r.Line, r.Sector, r.Sectors)
		}
	}
	res.Merged = make([]byte, len(p.recs))
	// Addresses beyond the device wrap into it (or fail with Strict).
	devSectors := p.dev.Capacity()
	wrapped := 0
	for i := range p.recs {
		r := &p.recs[i]
		if r.Sector+uint64(r.Sectors) <= devSectors {
			continue
		}
		if ro.Strict || uint64(r.Sectors) > devSectors {
			return nil, fmt.Errorf("%s:%d: sectors %d+%d are beyond the device's %d sectors", name, r.Line, r.Sector, r.Sectors, devSectors)
		}
		r.Sector %= devSectors - uint64(r.Sectors) + 1
		wrapped++
	}
	if wrapped > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d of %d records lay beyond the device (%d sectors) and were wrapped into it (--strict refuses)", name, wrapped, len(recs), devSectors))
	}
	js := &report.JobStats{Name: name, PID: 1000, Engine: "replay", IODepth: ro.IODepth, RW: "replay " + ro.Timing}
	for _, r := range p.recs {
		// The block sizes the trace used, per direction, for the header.
		d, n := dirOf(r.Op), uint64(r.Sectors)<<blkq.SectorShift
		if n == 0 {
			continue
		}
		if b := &js.BS[d]; b.Min == 0 || n < b.Min {
			b.Min = n
		}
		js.BS[d].Max = max(js.BS[d].Max, n)
	}
	p.st = newJobStats(js)
	p.q.AddTracer(blkq.TracerFunc(func(e *blkq.Event) {
		b := js.Blkq
		switch e.Action {
		case blkq.ActBackMerge:
			b.BackMerges++
			res.Merged[e.Bio.Private.(*replayIO).idx] = 'M'
		case blkq.ActFrontMerge:
			b.FrontMerges++
			res.Merged[e.Bio.Private.(*replayIO).idx] = 'F'
		case blkq.ActIssue:
			b.RequestsIssued++
			b.RequestBytes += uint64(e.Sectors) << blkq.SectorShift
		case blkq.ActSleepRq:
			b.Sleeps++
		case blkq.ActGetRq:
			if e.Wait > 0 {
				b.WaitLat.Record(int64(e.Wait))
			}
		}
	}))
	p.st.begin(0, 0)
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no records to replay", name)
	}
	if ro.Timing == "trace" {
		t0 := p.recs[0].Time
		for i := range p.recs {
			r := &p.recs[i]
			at := time.Duration(float64(r.Time-t0) / ro.Speed)
			p.exec.AfterFunc(max(at, 0), func() { p.arrive(r) })
		}
	} else {
		p.exec.AfterFunc(0, p.pump)
	}
	unwatch := p.watchStop(p.interrupt)
	p.exec.Run()
	unwatch()
	end := p.exec.Now()
	res.Interrupted = p.interrupted
	if p.ended != int64(len(recs)) && !(p.interrupted && p.inflight == 0) || !p.q.Idle() {
		return nil, fmt.Errorf("internal error: %d of %d records ended; pool %+v", p.ended, len(recs), p.q.Pool())
	}
	if err := p.q.CheckInvariants(); err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	if p.firstErr != nil {
		js.Error, js.ErrorText = 5, p.firstErr.Error()
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v", name, p.firstErr))
	}
	p.st.finish(end)
	p.disk.Flush(end)
	res.Disk = *p.disk
	res.Elapsed = time.Duration(end)
	p.jobs = nil
	run := p.report(end)
	run.Jobs = []*report.JobStats{js}
	res.Run = run
	return res, nil
}

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
	io.bio = blkq.Bio{Op: r.Op, Flags: r.Flags, Sector: r.Sector, Sectors: r.Sectors, Private: io, EndIO: replayEndIO}
	io.dir = dirOf(r.Op)
	if !p.simulated && r.Op != blkq.OpFlush {
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
	for p.next < len(p.recs) && p.inflight < p.ro.IODepth {
		r := &p.recs[p.next]
		if rt := p.tasks[r.PID]; rt != nil && rt.asleep {
			return // in order: wait for the record's task
		}
		p.next++
		p.arrive(r)
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

// done accounts a completed record.
func (p *replayer) done(io *replayIO, err error) {
	p.inflight--
	p.ended++
	if err == nil {
		p.st.record(&io.ioUnit, p.exec.Now())
	} else if p.firstErr == nil {
		p.firstErr = fmt.Errorf("record at line %d: %w", io.rec.Line, err)
	}
	if p.ended == int64(len(p.recs)) || p.interrupted && p.inflight == 0 {
		p.exec.Stop()
		return
	}
	if p.ro.Timing == "afap" {
		p.pump()
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
