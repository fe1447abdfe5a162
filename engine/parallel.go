package engine

// Jobs on executors of their own (a file run's independent readers).
//
// A run's jobs normally share one executor (exec.go): their state, and
// the runner's, are touched from it alone, so nothing needs a lock. On a
// file that makes four psync jobs one goroutine's worth of work, where
// fio's four processes use every core, and forces the file device to
// serve them on its workers (FileOptions.NoInline), two goroutine
// hand-offs per read. So on the real clock a run whose jobs share nothing
// but the queue, the page cache and the run's end gives each job an
// executor of its own (its goroutine, its callbacks, its timers) and the
// device serves each job's synchronous I/O on that goroutine
// (FileOptions.InlineEach). The queue and the page cache are locked
// already (the blocking API's goroutines share them), and the buffer and
// data checks of reads are each job's own.
//
// What the jobs still share stays on the run's executor, r.exec, which
// now runs nothing per I/O: a job's end (jobFinished: the jobs that
// waited for it, stonewall's segments, exitall, the run's end), the
// interruption (stopDue, stopJobs) and the queue's timers. A job's
// executor posts to it (jobFinished, cancel's count), and it posts to a
// job's (onJob: exitall's stop or cancel, an interruption's, a start
// after a dependency). The progress line reads atomics only (eta.go);
// fio's I/O error lines are appended under a lock (ioerror.go); the
// report is made after every executor has returned (execute waits for
// their goroutines). A simulated run never does this: it is one event
// loop, and its results stay byte for byte what they were.
//
// Everything else that jobs share keeps them on one executor, checked by
// parallelOK: writes and trims (the data check's bitmap, the write-back,
// space reservation, fsyncs are the run's), fio's aggregate bandwidth
// logs and status reports (they read every job's counters on the run's
// executor), flows (flow.go counts across jobs), steady state (a group's
// window), verify (state files, the run's pattern), per-job logs,
// ioscheduler= (it switches the shared queue at a job's start), pre_read,
// unlink, replays, and a single job (it has the run's executor to itself
// already).

import "sync"

// parallelChosen, when set (by tests), is called with the choice of each
// file run: whether its jobs have executors of their own.
var parallelChosen func(parallel bool)

// parallelOK reports whether the run's jobs may each have an executor:
// a fio job file of more than one job on a file, none of whose jobs
// shares more than the queue and the page cache (see the top of the
// file). Called by openQueue, before the device is opened.
func (r *runner) parallelOK() bool {
	if len(r.jobs) < 2 || r.opt.StatusInterval > 0 || r.opt.OnStatus != nil || r.opt.BandwidthLog || !r.readsOnly() {
		return false
	}
	for _, j := range r.jobs {
		s := j.spec
		l := s.Logs
		if s.Flow != 0 || s.FlowID != 0 || s.SteadyState.Duration > 0 || s.Verify != "" || s.IOScheduler != "" ||
			s.Files.PreRead || s.Files.Unlink || l.BW || l.IOPS || l.Lat || l.Hist || l.WriteIolog != "" || l.ReadIolog != "" {
			return false
		}
	}
	return true
}

// giveExecutors gives every job its executor: one of its own when the
// run is parallel (sharing the run's clock), else the run's.
func (r *runner) giveExecutors() {
	for _, j := range r.jobs {
		if r.parallel {
			j.exec = newRealExec(r.exec.(*realExec).clk)
		} else {
			j.exec = r.exec
		}
	}
}

// startJobExecs runs each job's executor on a goroutine of its own (a
// parallel run); the returned function stops them, waits for their
// goroutines, and runs what was posted to them since (drain), so that
// after it the jobs' state is the caller's to read.
func (r *runner) startJobExecs() (stop func()) {
	if !r.parallel {
		return func() {}
	}
	var wg sync.WaitGroup
	for _, j := range r.jobs {
		ex := j.exec.(*realExec)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex.Run()
		}()
	}
	return func() {
		for _, j := range r.jobs {
			j.exec.Stop()
		}
		wg.Wait()
		for _, j := range r.jobs {
			j.exec.(*realExec).drain()
		}
	}
}

// onJob runs f, which touches j's state, on j's executor: at once when
// the run's jobs share the caller's executor, posted otherwise.
func (r *runner) onJob(j *job, f func()) {
	if r.parallel {
		j.exec.Do(f)
		return
	}
	f()
}

// onRun runs f, which touches the runner's shared state, on the run's
// executor: at once when the jobs share it, posted from a job's
// executor otherwise.
func (r *runner) onRun(f func()) {
	if r.parallel {
		r.exec.Do(f)
		return
	}
	f()
}

// interruptDue reports whether the run is interrupted, for j on its
// executor: stopDue, on a shared executor (the first to see the stop
// stops every job); on a job's own, the stop request alone (the run's
// executor stops the jobs, stopJobs, and marks the run interrupted).
func (j *job) interruptDue() bool {
	if j.r.parallel {
		return j.r.stopReq.Load()
	}
	return j.r.stopDue()
}
