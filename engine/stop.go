package engine

import "errors"

// Interrupting a run (Options.Stop; fio's SIGINT and SIGTERM).
//
// Stop is closed on another goroutine, at a wall-clock moment, while the
// run's state belongs to its executor. A real run (file, null) posts the
// interruption to its executor at once. A simulated run is one event loop
// in virtual time that must not be touched from outside, so the closing
// only sets a flag, and the loop looks at it where the jobs decide to
// issue (pump, begin, a replay's arrivals): the first such event after the
// flag interrupts the run. Either way the jobs then issue nothing more,
// their I/O in flight ends, each job finishes as if its runtime had ended
// (jobs that had not started end without running, as exitall ends them),
// and what is dirty is written back: the page cache's Close on a file, a
// Sync of the whole cache as the flusher elsewhere (where an uninterrupted
// run leaves dirty pages dirty, as fio leaves them; cache.go). The
// report then covers what ran, up to the stop.

// Before the executor runs, while the run is set up, there is nothing to
// report yet, and a large set-up (a job of hundreds of thousands of
// files, a trace of millions of records read through first) takes long
// enough for a user to give up on it. Planning looks at Stop every
// setupCheckEvery files, a replay's first passes every
// setupRecordsCheckEvery records, and Run (or ReplayStream) returns
// ErrInterrupted: no job exists yet to report. Past the plan, a stop
// while the files are allocated ends that loop, and while a job's files
// are dropped from the page cache ends that one; the run then reports,
// its jobs cancelled, as for a stop before the jobs start. A small plan
// (under setupCheckEvery files) is never cut short: it takes
// microseconds, and the stop then ends the run at its start.

// ErrInterrupted is the error of Run and ReplayStream when Options.Stop
// is closed while the run is planned (Run) or the trace read through
// (ReplayStream): nothing ran, and there is no report.
var ErrInterrupted = errors.New("interrupted while the run was set up, before any job started")

// setupCheckEvery is how many files a set-up loop handles between looks
// at Options.Stop.
const setupCheckEvery = 1024

// setupRecordsCheckEvery is how many trace records a replay's first
// passes read between looks at Options.Stop.
const setupRecordsCheckEvery = 1 << 14

// setupStopped reports whether Options.Stop is closed (never, without
// one). Called by the set-up steps of Run, off the executor.
func (r *runner) setupStopped() bool { return closed(r.opt.Stop) }

// closed reports whether stop is closed; a nil stop never is.
func closed(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// watchStop makes a closing of opt.Stop interrupt the run; the returned
// function ends the watch (call it once the executor is done).
func (r *runner) watchStop(interrupt func()) (unwatch func()) {
	stop := r.opt.Stop
	if stop == nil {
		return func() {}
	}
	r.onInterrupt = interrupt
	select {
	case <-stop: // closed already: the run must not start a job
		r.stopReq.Store(true)
		if r.parallel {
			r.exec.Do(func() { r.stopDue() }) // (the jobs do not call it: parallel.go)
		}
	default:
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-stop:
			r.stopReq.Store(true)
			if !r.simulated {
				r.exec.Do(func() { r.stopDue() })
			}
		case <-done:
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// stopDue, on the executor, interrupts the run the first time it sees the
// stop requested, and reports whether the run is interrupted.
func (r *runner) stopDue() bool {
	if r.interrupted {
		return true
	}
	if !r.stopReq.Load() {
		return false
	}
	r.interrupted = true
	if r.onInterrupt != nil {
		r.onInterrupt()
	}
	return true
}

// stopJobs ends every job: those running stop issuing and finish when
// their I/O has drained, those not started finish without running.
func (r *runner) stopJobs() {
	for _, j := range r.jobs {
		r.onJob(j, j.stopOrCancel)
	}
}

// stopOrCancel ends j: stops it if it has started, cancels it if not, on
// its executor.
func (j *job) stopOrCancel() {
	switch {
	case j.state.ended():
	case j.state.started():
		j.stop()
	default:
		j.cancel()
	}
}
