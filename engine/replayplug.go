package engine

// A replay's plugs: a trace that shows its plugs (iotrace's Record.Plug,
// from a blkparse or ftrace trace's P and U events) marks the first and
// the last record of each task's plug, and the replay plugs that task's
// bios between the two, as the kernel did: bios merge on the plug, and its
// requests go to the elevator together when the plug is flushed after the
// last one. In between, the records still arrive at their own times (the
// kernel's io_submit of four 1 MiB reads took 2 ms), and a task that sleeps
// for a request flushes its plug and keeps it, as Linux does on schedule().
//
// Two things end a plug early, so that no request is held back for ever:
// the replay's end (its runtime cap, an interruption: drain), and, with
// afap timing, the job's depth filling up while records wait, when the
// plugs are flushed and kept, as a task's are when it blocks. A trace that
// shows no plugs marks nothing, and its records are submitted unplugged,
// as before.

// plugBefore opens s's plug before the record r that starts one.
func (j *job) plugBefore(s *submitter, r *ReplayRecord) {
	if r != nil && r.PlugFirst && !s.plugged {
		j.r.q.Plug(s.task)
		s.plugged = true
	}
}

// plugAfter flushes and closes s's plug after the record r that ends
// one has been queued, and flushes it, keeping it, after one its task
// slept after in the trace.
func (j *job) plugAfter(s *submitter, r *ReplayRecord) {
	switch {
	case r == nil:
	case r.PlugLast:
		j.unplug(s)
	case r.PlugSlept && s.plugged:
		j.r.q.Finish(s.task)
		j.r.q.Plug(s.task)
	}
}

// unplug closes s's plug, flushing it.
func (j *job) unplug(s *submitter) {
	if s.plugged {
		s.plugged = false
		j.r.q.Finish(s.task)
	}
}

// unplugAll closes the plugs of the job's tasks that are awake (a
// sleeping one's plug was flushed when it slept; it closes when it wakes,
// job.wake).
func (j *job) unplugAll() {
	for _, s := range j.submitters() {
		if !s.asleep {
			j.unplug(s)
		}
	}
}

// flushPlugs flushes the plugs of the job's tasks and keeps them open, as
// a task blocking on its I/O has its plug flushed: an afap replay whose
// depth is full waits for completions, which plugged requests would never
// give.
func (j *job) flushPlugs() {
	for _, s := range j.submitters() {
		if s.plugged && !s.asleep {
			j.r.q.Finish(s.task)
			j.r.q.Plug(s.task)
		}
	}
}
