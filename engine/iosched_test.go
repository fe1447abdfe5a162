package engine

import (
	"slices"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/workload/fio"
)

// fifoDispatch runs src on sim:hdd under scheduler and reports, per job
// (by pid), whether its requests were dispatched in the order they were
// inserted: none's FIFO does, mq-deadline's sorted dispatch of 16 random
// reads in flight does not.
func fifoDispatch(t *testing.T, src, scheduler string) map[int]bool {
	t.Helper()
	inserted, dispatched := map[int][]uint64{}, map[int][]uint64{}
	tr := blkq.TracerFunc(func(e *blkq.Event) {
		switch e.Action {
		case 'I':
			inserted[e.PID] = append(inserted[e.PID], e.Sector)
		case 'D':
			dispatched[e.PID] = append(dispatched[e.PID], e.Sector)
		}
	})
	run(t, src, Options{Device: "sim:hdd", Scheduler: scheduler, Tracers: []blkq.Tracer{tr}})
	fifo := map[int]bool{}
	for pid, ins := range inserted {
		fifo[pid] = slices.Equal(ins, dispatched[pid])
		if testing.Verbose() {
			t.Logf("pid %d: inserted %v dispatched %v", pid, ins[:min(8, len(ins))], dispatched[pid][:min(8, len(dispatched[pid]))])
		}
	}
	return fifo
}

// TestIOScheduler: a job's ioscheduler= switches the run's queue when the
// job starts, whatever --scheduler said: under mq-deadline a job with
// ioscheduler=none dispatches first in, first out, and under none a job
// with ioscheduler=mq-deadline sorts; in a file of two stonewalled jobs
// each runs under its own. A name the queue has not is an error before
// the run, naming the job file, the job and the name, as is fio's alias
// "deadline" (fio's switch fails on it too).
func TestIOScheduler(t *testing.T) {
	const body = "ioengine=libaio\ndirect=1\niodepth=16\nrw=randread\nbs=4k\nsize=64m\nnumber_ios=400\n"
	for _, tc := range []struct {
		sched, opt string
		fifo       bool
	}{
		{"mq-deadline", "", false},
		{"mq-deadline", "ioscheduler=none", true},
		{"none", "", true},
		{"none", "ioscheduler=mq-deadline", false},
		{"none", "ioscheduler=linus", false},
	} {
		got := fifoDispatch(t, "[j]\n"+body+tc.opt+"\n", tc.sched)
		if len(got) != 1 || got[1000] != tc.fifo {
			t.Errorf("--scheduler=%s %s: FIFO dispatch %v, want %v", tc.sched, tc.opt, got, tc.fifo)
		}
	}
	two := "[a]\n" + body + "ioscheduler=none\n[b]\nstonewall\n" + body + "ioscheduler=mq-deadline\n"
	if got := fifoDispatch(t, two, "linus"); !got[1000] || got[1001] {
		t.Errorf("two jobs: FIFO dispatch by pid %v, want a (1000) FIFO and b (1001) sorted", got)
	}
	for _, name := range []string{"bfq", "deadline"} {
		jf, err := fio.Parse("s.fio", []byte("[j]\nsize=1m\nioscheduler="+name+"\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(jf, Options{Device: "null"})
		if err == nil || !strings.Contains(err.Error(), "s.fio:1") || !strings.Contains(err.Error(), "ioscheduler="+name) {
			t.Errorf("ioscheduler=%s: %v; want an error naming s.fio:1 and the name", name, err)
		}
	}
}
