package engine

// The runner: one orchestrator for fio runs (Run) and replays (replay.go).
// See doc.go for the whole shape.

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/traced"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Options configure a run. Zero values mean the defaults named.
type Options struct {
	// Device is "sim:hdd", "sim:ssd", "sim:trace" (a replay's, with
	// ServiceTimes), "null" or "file:PATH". Default: null when every
	// job uses fio's null engine, else sim:hdd.
	Device string
	// Scheduler, NrRequests, NoMerges and Alloc configure the queue
	// (defaults: mq-deadline, 128, 0, fair).
	Scheduler  string
	NrRequests int
	NoMerges   int
	Alloc      string
	// BatchRequests is the queue's batch_requests (default 0:
	// NrRequests/4); see blkq.Config.BatchRequests.
	BatchRequests int
	// Seed seeds every random choice of a simulated run (default 1).
	Seed uint64
	// SizeCap caps every job's size, filesize and io_size, in bytes (0: none).
	SizeCap int64
	// RuntimeCap caps every job's runtime (0: none); jobs that are not
	// time_based stop at the cap too.
	RuntimeCap time.Duration
	// WakeLatency is the delay between waking a task asleep in request
	// allocation and the task running (default 0: the next event).
	WakeLatency time.Duration
	// WakeJitter adds a random delay in [0, WakeJitter) to each wake-up
	// (seeded; simulated runs only): the scheduler's say in which woken
	// task runs first.
	WakeJitter time.Duration
	// Tracers receive the queue's event stream (e.g. a blktrace writer).
	Tracers []blkq.Tracer
	// Progress, if set, gets a progress line every few seconds of wall time.
	Progress io.Writer
	// StatusInterval, with OnStatus, asks for the report of the run so
	// far every StatusInterval of the run's clock (virtual on simulated
	// devices), as fio --status-interval prints it (status.go's
	// reportSoFar): OnStatus gets it on the executor and must be done with
	// it when it returns (the run goes on changing it). 0: none.
	StatusInterval time.Duration
	OnStatus       func(*report.Run)
	// VerifyStateDir is where verify state files are written
	// (verify_state_save, fio's default for a write job with verify=) and
	// read (verify_state_load): fio's working directory, or its
	// --aux-path. "": none are written, and verify_state_load is an error
	// (verifystate.go).
	VerifyStateDir string
	// BandwidthLog writes fio's aggregate bandwidth logs (fio
	// --bandwidth-log: agg-read_bw.log, agg-write_bw.log,
	// agg-trim_bw.log; agglog.go) into LogDir ("": the working
	// directory, as fio).
	BandwidthLog bool
	LogDir       string
	// Attrs are queue tunables to set before the run, by Linux name.
	Attrs [][2]string
	// CachePages is the page cache's capacity for buffered jobs, in 4 KiB
	// pages (default bcache.DefaultPages, 64 MiB). DirtyBackgroundRatio
	// and DirtyRatio are the fractions of it at which the flusher starts
	// and writers are throttled (defaults 0.10 and 0.20, as Linux's
	// vm.dirty_background_ratio and vm.dirty_ratio).
	CachePages           int
	DirtyBackgroundRatio float64
	DirtyRatio           float64
	// CPU turns on the model of the machine's CPUs (cpus.go) for a
	// simulated run of fio jobs: CPUs 0, the default, leaves it off and
	// the run as it always was.
	CPU CPUOptions
	// Stop, when closed, interrupts the run, as SIGINT interrupts fio:
	// the jobs issue nothing more, the I/O in flight ends, dirty pages are
	// written back, and Run returns the report of what ran, with
	// Result.Interrupted set (see stop.go); closed while a large run is
	// planned, Run returns ErrInterrupted. Nil: the run is not
	// interruptible.
	Stop <-chan struct{}
	// FailRequest, if set, is asked about each request the device
	// completes without error; a non-nil error (with an errno inside it,
	// else EIO) fails the request: fault injection for tests
	// (faults.go).
	FailRequest func(rq *blkq.Request) error
	// ServiceTimes are the recorded service times the device sim:trace
	// serves its requests in (package sim/traced): a replay's of a
	// blkparse or ftrace trace, from its D and C events. sim:trace
	// without them is an error.
	ServiceTimes *traced.Times
}

// Result is what a run produced.
type Result struct {
	Run      *report.Run
	Disk     blkq.DiskStats
	Warnings []string
	// Notes say how blkq modelled something the way Linux does it, where
	// a user might expect otherwise (buffered libaio acts as iodepth=1).
	// Unlike Warnings, nothing is wrong: blkq run prints them only with
	// --warnings, as fio prints nothing.
	Notes []string
	// Verified is the number of sectors read back and checked after a run
	// on a real file (0 on other devices).
	Verified int64
	// Elapsed is the run's length on the run's clock.
	Elapsed time.Duration
	// PageCache is the page cache's work for buffered jobs (nil if there
	// were none).
	PageCache *CacheStats
	// IOErrors are fio's lines for the I/Os that failed ("fio: io_u error
	// on file ..."), for stderr, in the order they failed.
	IOErrors []string
	// Merged is, for a replay, what blkq did with each record's bio, in
	// record order: 'M' back-merged, 'F' front-merged, 0 not merged.
	Merged []byte
	// Replayed is, for a replay, the number of records it issued: all of
	// the trace's unless a runtime cap, an interruption or a bad record
	// ended it early.
	Replayed int
	// Interrupted reports that Options.Stop ended the run before its
	// jobs (or the trace's records) were done.
	Interrupted bool
	// CPU are the run's totals under the CPU model (Options.CPU); nil
	// without it.
	CPU *CPUStats
}

type runner struct {
	opt        Options
	jf         *fio.JobFile
	cloneNames map[string]bool // generated file names of jobs with clones so far (filenames.go)
	exec       executor
	q          *blkq.Queue
	dev        blkq.Device
	jobs       []*job
	running    int
	left       int
	data       *dataCheck
	replayBufs replayBufs // a replay's data buffers on a file (replay.go)
	disk       *blkq.DiskStats
	pids       *pidStats

	simulated  bool                    // the executor is the event loop itself
	parallel   bool                    // each job has an executor of its own (parallel.go)
	nullDevice bool                    // the device is the null device: its completions are posted to the executor
	cache      *bcache.Cache           // the page cache of buffered jobs (cache.go)
	cacheJobs  map[*bcache.Client]*job // each buffered job by its cache client (writeback.go)
	reserve    *reserver               // space for buffered writes on a file device (reserve.go); nil elsewhere
	files      map[int64]*bcache.File  // the cache's files, by device offset
	closeCache bool                    // a file's cache: closed after the run, all written back
	syncs      []SyncStats             // the buffered jobs' fsyncs
	cacheErr   error                   // the write-back error of an interrupted run's final Sync
	rng        *sim.RNG                // the run's random stream: each job's and the wake-ups' are split from it
	wakeRNG    *sim.RNG

	doneJobs atomic.Int64 // for the progress line, read off the executor

	ioMu         sync.Mutex   // ioErrors and ioErrorsLost: jobs on executors of their own append to them
	ioErrors     []string     // fio's io_u error lines (ioerror.go)
	ioErrorsLost int          // lines beyond maxIOErrorLines
	wbErr        error        // the buffer cache's final write-back error
	wbErrTaken   bool         // a job reports it
	clockNow     atomic.Int64 // the run's clock at a recent queue event, for the progress line

	stopReq     atomic.Bool // Options.Stop was closed (set off the executor)
	interrupted bool        // the executor has seen stopReq and stopped the jobs
	onInterrupt func()      // what the interruption does (stop.go)
	logs        *runLogs    // the jobs' open log files (fiolog.go)
	cpus        *cpuModel   // the CPU model (cpus.go); nil without
	stateErrs   []string    // verify state files that could not be written

	flows        map[int32]*flow // by flow_id (flow.go)
	flowParked   int             // jobs held back until their flow moves
	flowCheckDue bool            // flowStuck's check is scheduled
}

// Run runs every job of jf and returns the statistics.
func Run(jf *fio.JobFile, opt Options) (*Result, error) {
	r, lay, err := planRun(jf, opt)
	if err != nil {
		return nil, err
	}
	opt = r.opt
	before := r.fileSizeBefore()
	if err := r.open(lay); err != nil {
		return nil, err
	}
	defer r.dev.Close()
	res := &Result{Warnings: r.allocate(before)}
	if strings.HasPrefix(opt.Device, "file:") {
		for _, j := range jf.Jobs[1:] {
			if j.Direct != jf.Jobs[0].Direct {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: job %q: direct=%v differs from the first job's; the file was opened once, with direct=%v", jobPlace(jf, j), j.Name, b2i(j.Direct), b2i(jf.Jobs[0].Direct)))
				break
			}
		}
	}
	for _, j := range jf.Jobs {
		if bufferedLibaio(j) && j.IODepth > 1 {
			res.Notes = append(res.Notes, fmt.Sprintf("%s: job %q: buffered I/O (direct=0) through libaio is synchronous in Linux (io_submit does the copy or the read before it returns): iodepth=%d acts as 1", jobPlace(jf, j), j.Name, j.IODepth))
		}
	}
	for _, j := range jf.Jobs {
		// resolve rounds a region's start down to a sector: say so, as
		// fio would start at the byte asked for.
		if j.Offset%blkq.SectorSize != 0 || j.OffsetIncrement%blkq.SectorSize != 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: job %q: offset=%d, offset_increment=%d: not whole 512-byte sectors (blkq's bios are); each region starts at the sector before", jobPlace(jf, j), j.Name, j.Offset, j.OffsetIncrement))
		}
	}
	for _, j := range r.jobs {
		j.setPath(r.pathFor(j))
	}
	if err := r.attachIologReplays(); err != nil {
		r.closeLogs()
		return nil, err
	}
	if err := r.openLogs(); err != nil {
		r.closeLogs()
		return nil, err
	}
	err = r.execute(res)
	if e := r.closeLogs(); err == nil {
		err = e
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Check plans jf under opt as Run would (engines, block sizes, regions,
// the device's size) and returns the first error Run would give before it
// opens the device, running and opening nothing: blkq run --parse-only.
func Check(jf *fio.JobFile, opt Options) error {
	_, _, err := planRun(jf, opt)
	return err
}

// planRun makes the runner of jf under opt and plans its jobs.
func planRun(jf *fio.JobFile, opt Options) (*runner, *layout, error) {
	if opt.Device == "" {
		opt.Device = defaultDevice(jf)
	}
	if err := opt.CPU.check(opt.Device); err != nil {
		return nil, nil, err
	}
	r := newRunner(opt)
	r.jf = jf
	if err := CheckEngines(jf); err != nil {
		return nil, nil, err
	}
	if err := r.checkIOSchedulers(); err != nil {
		return nil, nil, err
	}
	if err := r.checkTrimVerify(); err != nil {
		return nil, nil, err
	}
	lay, err := r.plan()
	if err != nil {
		return nil, nil, err
	}
	return r, lay, nil
}

// newRunner returns the runner of a run or a replay with options opt.
func newRunner(opt Options) *runner {
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	rng := sim.NewRNG(opt.Seed)
	return &runner{opt: opt, rng: rng, wakeRNG: rng.Split("wake")}
}

// execute runs the jobs, once the queue is open, and fills res: the one
// orchestrator of fio runs and replays. It starts the jobs that wait for
// none, runs the executor until the last job has finished, writes back
// what a page cache holds, checks the run's invariants and reports.
func (r *runner) execute(res *Result) error {
	stopAggLogs, err := r.openAggLogs()
	if err != nil {
		return err
	}
	for _, j := range r.jobs {
		if j.deps == 0 {
			r.schedule(j)
		}
	}
	unwatch := r.watchStop(r.stopJobs)
	stopProgress := r.progress()
	stopStatus := r.statusReports()
	stopJobExecs := r.startJobExecs()
	r.exec.Run()
	stopJobExecs()
	stopStatus()
	stopAggLogs()
	stopProgress()
	unwatch()
	if r.cache != nil && r.closeCache {
		// A file: write back everything (the run's end includes it);
		// then the check below reads the file through the queue, past
		// the cache.
		if err := r.cache.Close(); err != nil {
			r.writebackFailed(err) // the jobs' error, as a failed close(2) would be
		}
	}
	if ex, ok := r.exec.(*realExec); ok {
		ex.drain() // completions of the final write-back
	}
	end := r.exec.Now()
	if err := r.checkInvariants(); err != nil {
		return err
	}
	r.disk.Flush(end)
	res.Elapsed = time.Duration(end)
	res.Interrupted = r.interrupted
	res.CPU = r.cpuStats()
	res.Disk = *r.disk // before the read-back check below adds its reads
	res.Run = r.report(end)
	if c := r.cache; c != nil {
		st := c.Stats()
		res.PageCache = &CacheStats{Stats: st, DirtyAtEnd: st.Dirty, Syncs: r.syncs}
		res.Run.PageCache = &report.PageCacheStats{WrittenFlusher: st.WrittenFlusher, WrittenThrottle: st.WrittenThrottle,
			WrittenSync: st.WrittenSync, Throttled: st.Throttled, ReadHits: st.ReadHits, MaxDirty: st.MaxDirty,
			Background: st.Background, Hard: st.Hard, ReadAheadDropped: r.droppedReadAhead()}
		if !r.closeCache {
			err := c.TakeWriteError()
			if err == nil {
				err = r.cacheErr
			}
			if err != nil {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: page cache write-back failed (no fsync reported it): %v", r.jf.Path, err))
			}
		}
	}
	if r.data != nil {
		n, err := r.data.verify(r.q)
		res.Verified = n
		if err != nil {
			return err
		}
	}
	res.IOErrors = r.ioErrors
	if r.ioErrorsLost > 0 {
		res.IOErrors = append(res.IOErrors, fmt.Sprintf("fio: %d more io_u errors not shown", r.ioErrorsLost))
	}
	for _, j := range r.jobs {
		if j.err != nil {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: job %q: %v", jobPlace(r.jf, j.spec), j.name, j.err))
		}
	}
	res.Warnings = append(res.Warnings, r.stateErrs...)
	if r.wbErr != nil && !r.wbErrTaken {
		res.Warnings = append(res.Warnings, fmt.Sprintf("buffer cache write-back at the end of the run failed (no fsync reported it): %v", r.wbErr))
	}
	return nil
}

// checkInvariants verifies, at the end of every run, that every bio the
// jobs submitted ended exactly once and that the request pool is whole.
func (r *runner) checkInvariants() error {
	for _, j := range r.jobs {
		if j.submitted != j.ended || j.inflight != 0 {
			return fmt.Errorf("internal error: job %s submitted %d bios, %d ended, %d in flight", j.name, j.submitted, j.ended, j.inflight)
		}
	}
	if c := r.cache; c != nil && !c.Idle() {
		return fmt.Errorf("internal error: page cache not idle after the run: %+v", c.Stats())
	}
	if err := r.q.Check(true); err != nil {
		return fmt.Errorf("internal error after the run: %w", err)
	}
	if n := r.pids.sleeps.stillAsleep(); n != 0 {
		return fmt.Errorf("internal error: %d bios slept for a request and were never woken", n)
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// defaultDevice is the null device when every job uses fio's null engine,
// else the simulated disk.
func defaultDevice(jf *fio.JobFile) string {
	for _, j := range jf.Jobs {
		if kind, _ := fio.EngineKind(j.IOEngine); kind != "null" {
			return "sim:hdd"
		}
	}
	return "null"
}

// CheckEngines rejects a job file naming an engine blkq does not emulate,
// with one line naming the option.
func CheckEngines(jf *fio.JobFile) error {
	for _, j := range jf.Jobs {
		kind, ok := fio.EngineKind(j.IOEngine)
		if !ok || kind == "nbd" {
			return fmt.Errorf("%s:%d: job %q: ioengine=%s is not emulated by blkq (it runs psync/sync/pvsync/vsync, libaio/io_uring/posixaio and null)", jf.Path, j.Line, j.Name, j.IOEngine)
		}
	}
	return nil
}

// schedule starts j after its startdelay.
func (r *runner) schedule(j *job) {
	d := j.spec.StartDelay[0]
	if hi := j.spec.StartDelay[1]; hi > d {
		d += time.Duration(j.gen.rng.Int64N(int64(hi - d)))
	}
	r.running++
	j.exec.AfterFunc(d, j.begin)
}

// jobFinished starts the jobs that waited for j, applies exitall (and
// exitall_on_error, when j ended in error), and stops the run when every
// job is done: on the run's executor (from a job's own, posted there).
func (r *runner) jobFinished(j *job) {
	if r.parallel {
		r.exec.Do(func() { r.jobEnded(j) })
		return
	}
	r.jobEnded(j)
}

// jobEnded is jobFinished on the run's executor.
func (r *runner) jobEnded(j *job) {
	r.running--
	r.left--
	r.doneJobs.Add(1)
	if j.spec.ExitAll && j.state.ran() || j.spec.ExitAllOnError && j.err != nil { // exitall_on_error: fio's too, at a job's error
		for _, o := range r.jobs {
			if o == j {
				continue
			}
			switch strings.ToLower(j.spec.ExitWhat) {
			case "all":
			case "stonewall": // the jobs up to the next stonewall
				if o.segment != j.segment {
					continue
				}
			default: // "group": the jobs of j's reporting group
				if o.spec.GroupID != j.spec.GroupID {
					continue
				}
			}
			r.onJob(o, o.stopOrCancel)
		}
	}
	for _, w := range j.waiters {
		r.depDone(w)
	}
	for g := j.after; g != nil; g = g.next {
		if g.pending--; g.pending > 0 {
			break
		}
		for _, w := range g.jobs {
			r.depDone(w)
		}
	}
	r.leaveFlow(j)
	if r.left == 0 {
		if r.cache != nil {
			r.endCache(r.exec.Stop)
			return
		}
		r.exec.Stop()
	}
}

// depDone counts one finished dependency of w and starts it after the last.
func (r *runner) depDone(w *job) {
	w.deps--
	// (A job on its own executor may be ending there, cancelled: its
	// begin sees that.)
	if w.deps == 0 && (r.parallel || !w.state.ended()) {
		r.schedule(w)
	}
}

// bufferedLibaio reports whether j does buffered I/O through Linux native
// AIO, which serves it synchronously inside io_submit.
func bufferedLibaio(j *fio.Job) bool {
	return !j.Direct && strings.EqualFold(j.IOEngine, "libaio")
}
