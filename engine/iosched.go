package engine

import (
	"fmt"
	"slices"
)

// ioscheduler=: fio switches the elevator of the job's device when the
// job starts (backend.c's switch_ioscheduler, read for behaviour: it
// writes the name to /sys/block/<dev>/queue/scheduler and checks that the
// name is then the one in brackets). blkq's jobs share one queue, so a
// job's ioscheduler= switches the run's queue when the job starts, and
// the I/O queued meanwhile moves to the new elevator, as Linux moves it.
// A later job may switch it again; the last switch stays for the rest of
// the run, as it stays on fio's device.
//
// The names are blkq's elevators (none, mq-deadline, mq-deadline-noprio,
// linus). A name the
// queue has not fails in Linux's write with EINVAL and fio's job with it
// ("unable to set io scheduler"); blkq refuses the job file before it
// runs, naming the job and the names it has. fio's check is that exact
// name in brackets, so an alias such as "deadline", which Linux takes and
// shows as [mq-deadline], fails fio's job too. fio's null engine switches
// nothing (it has no device); blkq's null engine still queues its I/O,
// so blkq switches for it as for any job.

// checkIOSchedulers refuses a job whose ioscheduler= the queue cannot
// take.
func (r *runner) checkIOSchedulers() error {
	var ok []string
	for _, spec := range r.jf.Jobs {
		name := spec.IOScheduler
		if name == "" || slices.Contains(ok, name) {
			continue
		}
		if err := CheckQueueOptions(Options{Scheduler: name}); err != nil {
			return fmt.Errorf("%s: job %q: ioscheduler=%s: %v (fio: unable to set io scheduler, the job fails with EINVAL)", jobPlace(r.jf, spec), spec.Name, name, err)
		}
		ok = append(ok, name)
	}
	return nil
}

// switchScheduler switches the queue to j's ioscheduler=, once, when j
// starts.
func (j *job) switchScheduler() {
	if j.schedSwitched || j.spec.IOScheduler == "" {
		return
	}
	j.schedSwitched = true
	if err := j.r.q.SetAttr("scheduler", j.spec.IOScheduler); err != nil && j.err == nil {
		j.err, j.errFunc = err, "iosched_switch" // checked before the run: cannot be
	}
}
