package cpu_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/cpu"
)

const us = time.Microsecond

func newSched(t *testing.T, cfg cpu.Config) (*sim.Loop, *cpu.Sched) {
	t.Helper()
	l := sim.NewLoop()
	s, err := cpu.New(l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l, s
}

// burst posts to th a work item that logs its start and spends d.
func burst(l *sim.Loop, th *cpu.Thread, d time.Duration, log *[]string) {
	th.Post(func() {
		*log = append(*log, fmt.Sprintf("%s@%d", th.Name(), l.Now()/1000))
		th.Spend(d)
	})
}

// TestWokenWhileAllBusyRunsWhenTheFirstFrees: on two CPUs, busy for 100
// and 300 µs, a thread woken at 10 µs runs exactly when the first frees
// (100 µs) plus its context switch (5 µs): its wake-up latency is 95 µs.
func TestWokenWhileAllBusyRunsWhenTheFirstFrees(t *testing.T) {
	l, s := newSched(t, cpu.Config{CPUs: 2, ContextSwitch: 5 * us})
	a, b, c := s.NewThread("a", 0), s.NewThread("b", 0), s.NewThread("c", 0)
	var log []string
	l.ScheduleAt(0, func() { burst(l, a, 95*us, &log); burst(l, b, 295*us, &log) })
	l.ScheduleAt(blkq.Time(10*us), func() { burst(l, c, 50*us, &log) })
	l.Run()
	if got, want := strings.Join(log, " "), "a@5 b@5 c@105"; got != want {
		t.Fatalf("work started %s, want %s", got, want)
	}
	if st := c.Stats(); st.RunDelayMax != 95*us || st.Wakeups != 1 || st.Switches != 1 || st.CPU != 55*us {
		t.Fatalf("c: %+v; want a 95 µs wake-up latency, one wake-up and switch, 55 µs of CPU", st)
	}
	if st := s.Stats(); st.Busy != (100+300+55)*us || st.Switches != 3 || st.Wakeups != 3 || st.RunDelayMax != 95*us {
		t.Fatalf("sched: %+v", st)
	}
	if l.Now() != blkq.Time(300*us) {
		t.Fatalf("ended at %d ns, want 300 µs (b's burst)", l.Now())
	}
}

// TestContextSwitchCounts: one CPU, two threads each woken three times
// while the other runs: every wake-up is one switch, and posting to a
// thread that is already runnable or running is none.
func TestContextSwitchCounts(t *testing.T) {
	l, s := newSched(t, cpu.Config{CPUs: 1, ContextSwitch: 2 * us})
	a, b := s.NewThread("a", 0), s.NewThread("b", 0)
	var log []string
	for i := range 3 {
		at := blkq.Time(i) * blkq.Time(100*us)
		l.ScheduleAt(at, func() {
			burst(l, a, 20*us, &log)
			burst(l, b, 20*us, &log)
			burst(l, b, 10*us, &log) // b is runnable: no extra switch
		})
	}
	l.Run()
	if got, want := strings.Join(log, " "), "a@2 b@24 b@44 a@102 b@124 b@144 a@202 b@224 b@244"; got != want {
		t.Fatalf("work started %s, want %s", got, want)
	}
	for _, th := range []*cpu.Thread{a, b} {
		if st := th.Stats(); st.Switches != 3 || st.Wakeups != 3 {
			t.Errorf("%s: %+v; want 3 switches and wake-ups", th.Name(), st)
		}
	}
	if st := s.Stats(); st.Switches != 6 || st.Busy != 3*(22+22+10)*us {
		t.Errorf("sched: %+v; want 6 switches, %v busy", st, 3*(22+22+10)*us)
	}
	if b.Stats().RunDelayMax != 24*us {
		t.Errorf("b's longest wake-up latency %v, want 24 µs (a's switch and burst, then its own switch)", b.Stats().RunDelayMax)
	}
}

// TestSpendComesBeforeEarlierPosts: CPU time a work item asks for is
// spent right after it, before the items posted to the thread earlier,
// which then run in the order they were posted.
func TestSpendComesBeforeEarlierPosts(t *testing.T) {
	l, s := newSched(t, cpu.Config{CPUs: 1})
	a := s.NewThread("a", 0)
	var log []string
	note := func(what string) func() {
		return func() { log = append(log, fmt.Sprintf("%s@%d", what, l.Now()/1000)) }
	}
	l.Post(func() {
		a.Post(func() {
			note("first")()
			a.Post(note("third"))
			a.Spend(10 * us)
			a.Spend(5 * us)
		})
		a.Post(note("second"))
	})
	l.Run()
	if got, want := strings.Join(log, " "), "first@0 second@15 third@15"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// TestSectionHoldsItsCPU: on one CPU a nice -20 thread woken 1 µs into a
// 500 µs section waits for the section's end; with a break point every
// 50 µs it runs at the next one, 49 µs later, and the section resumes
// where it left off (it still ends 500 µs of CPU time after it began, plus
// the probe's work and the two switches back and forth).
func TestSectionHoldsItsCPU(t *testing.T) {
	for _, tc := range []struct {
		brk            time.Duration
		probeAt, endAt blkq.Time // µs
		latency        time.Duration
	}{
		{0, 500, 510, 499 * us},
		{50 * us, 50, 510, 49 * us},
	} {
		t.Run(fmt.Sprint("break=", tc.brk), func(t *testing.T) {
			l, s := newSched(t, cpu.Config{CPUs: 1})
			w, p := s.NewThread("writer", 0), s.NewThread("probe", cpu.NiceMin)
			var log []string
			l.Post(func() {
				w.Post(func() { w.Section(500*us, tc.brk) })
				w.Post(func() { log = append(log, fmt.Sprint("end@", l.Now()/1000)) })
			})
			l.ScheduleAt(blkq.Time(us), func() { burst(l, p, 10*us, &log) })
			l.Run()
			want := fmt.Sprintf("probe@%d end@%d", tc.probeAt, tc.endAt)
			if got := strings.Join(log, " "); got != want {
				t.Fatalf("%s, want %s", got, want)
			}
			if got := p.Stats().RunDelayMax; got != tc.latency {
				t.Fatalf("probe's wake-up latency %v, want %v", got, tc.latency)
			}
			// Preempted once either way: at a break point, or at the
			// section's end with its last work item still to do.
			if got := w.Stats().Preemptions; got != 1 {
				t.Fatalf("writer preempted %d times, want 1", got)
			}
		})
	}
}

// TestEqualPriorityWaitsForTheSleep: a waiting thread of the same
// priority does not preempt at a preemption point until the running one
// has used its timeslice, and then goes first.
func TestEqualPriorityWaitsForTheSleep(t *testing.T) {
	l, s := newSched(t, cpu.Config{CPUs: 1, Timeslice: 100 * us})
	a, b := s.NewThread("a", 0), s.NewThread("b", 0)
	var log []string
	l.Post(func() {
		for range 5 {
			burst(l, a, 40*us, &log) // preemption points at 40, 80, 120, ...
		}
	})
	l.ScheduleAt(blkq.Time(10*us), func() { burst(l, b, 10*us, &log) })
	l.Run()
	if got, want := strings.Join(log, " "), "a@0 a@40 a@80 b@120 a@130 a@170"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	if a.Stats().Preemptions != 1 || a.Stats().Switches != 2 {
		t.Fatalf("a: %+v", a.Stats())
	}
}

// TestConfigCheck: out-of-range configurations are errors naming the
// setting.
func TestConfigCheck(t *testing.T) {
	for _, c := range []cpu.Config{{CPUs: 0}, {CPUs: cpu.MaxCPUs + 1}, {CPUs: 1, ContextSwitch: -1}, {CPUs: 1, Timeslice: -1}} {
		if _, err := cpu.New(sim.NewLoop(), c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
