package engine

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
		switch {
		case j.state.ended():
		case j.state.started():
			j.stop()
		default:
			j.cancel()
		}
	}
}
