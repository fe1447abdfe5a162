package blkq

import (
	"errors"
	"testing"
)

// pressure sets up a queue whose device holds every request until told,
// with nr_requests 8 (batch 2), and fills the read pool from task a.
func pressure(t *testing.T, p string) (*harness, *Task) {
	h := newHarness(t, 8, Config{Scheduler: "none", NrRequests: 8, Alloc: p})
	h.dev.manual = true
	a := NewTask(1, "a")
	for i := range 8 {
		if _, ok := h.submit(a, OpRead, uint64(i)*100, 8); !ok {
			t.Fatalf("task a slept on request %d with the pool not empty", i)
		}
	}
	if got := h.q.Pool().Free[dirRead]; got != 0 {
		t.Fatalf("free reads = %d after 8 allocations, want 0", got)
	}
	return h, a
}

// sleeper is a task that records its wake-ups and resumes on demand.
type sleeper struct {
	*Task
	resumes []func() bool
}

func newSleeper(pid int) *sleeper {
	s := &sleeper{Task: NewTask(pid, "s")}
	s.Wake = func(r func() bool) { s.resumes = append(s.resumes, r) }
	return s
}

func (s *sleeper) resume() {
	r := s.resumes[0]
	s.resumes = s.resumes[1:]
	r()
}

// drain completes everything and lets every woken task run.
func drain(h *harness, tasks ...*sleeper) {
	for {
		progressed := false
		for _, s := range tasks {
			for len(s.resumes) > 0 {
				s.resume()
				progressed = true
			}
		}
		if len(h.dev.held) > 0 {
			h.dev.completeOne()
			progressed = true
		}
		if !progressed {
			return
		}
	}
}

func TestFairSleepsOnlyWhenPoolEmpty(t *testing.T) {
	h, a := pressure(t, "fair")
	b := newSleeper(2)
	if _, ok := h.submit(b.Task, OpRead, 5000, 8); ok {
		t.Fatal("task b did not sleep with no free request")
	}
	if h.rec.count[actSleepRq] != 1 {
		t.Fatalf("S events = %d, want 1", h.rec.count[actSleepRq])
	}
	// Writes have their own pool: a writer is not held up by readers.
	if _, ok := h.submit(a, OpWrite, 9000, 8); !ok {
		t.Fatal("a write slept although the write pool is free")
	}
	drain(h, b)
	h.finish()
}

func TestFairWakesOneWaiterAtBatchInFIFOOrder(t *testing.T) {
	h, _ := pressure(t, "fair")
	s := []*sleeper{newSleeper(2), newSleeper(3), newSleeper(4)}
	for i, x := range s {
		if _, ok := h.submit(x.Task, OpRead, uint64(10000+i*100), 8); ok {
			t.Fatalf("sleeper %d did not sleep", i)
		}
	}
	// One release: free 1 < batch 2, nobody is woken.
	h.dev.completeOne()
	for i, x := range s {
		if len(x.resumes) != 0 {
			t.Fatalf("sleeper %d woken at free=1 < batch=2", i)
		}
	}
	// Second release: free 2 = batch: exactly one waiter, the first, wakes.
	h.dev.completeOne()
	if len(s[0].resumes) != 1 || len(s[1].resumes) != 0 || len(s[2].resumes) != 0 {
		t.Fatalf("wake-ups after free reached batch: %d %d %d, want 1 0 0",
			len(s[0].resumes), len(s[1].resumes), len(s[2].resumes))
	}
	// A third release while the first is woken but has not run yet wakes
	// the next in line, not the first again.
	h.dev.completeOne()
	if len(s[0].resumes) != 1 || len(s[1].resumes) != 1 || len(s[2].resumes) != 0 {
		t.Fatalf("wake-ups after third release: %d %d %d, want 1 1 0",
			len(s[0].resumes), len(s[1].resumes), len(s[2].resumes))
	}
	s[0].resume()
	if s[0].asleep() {
		t.Fatal("woken sleeper 0 did not get a request")
	}
	st := h.rec.counts(s[0].Task.PID)
	if st.sleeps != 1 || st.wakeups != 1 || st.waits != 1 || st.waitMax != 0 {
		t.Fatalf("sleeper 0 stats %+v, want 1 sleep, 1 wake-up, 1 wait", st)
	}
	drain(h, s...)
	h.finish()
}

func TestFairWokenTaskTakesRequestsUntilPoolEmpty(t *testing.T) {
	h, _ := pressure(t, "fair")
	b := newSleeper(2)
	if _, ok := h.submit(b.Task, OpRead, 20000, 8); ok {
		t.Fatal("b did not sleep")
	}
	h.dev.completeOne()
	h.dev.completeOne() // free = 2: b wakes
	h.dev.completeOne() // free = 3
	b.resume()          // b takes one (free 2) for its parked bio
	// b now submits without sleeping while any request is free: two more.
	for i := range 2 {
		if _, ok := h.submit(b.Task, OpRead, uint64(30000+i*100), 8); !ok {
			t.Fatalf("woken task slept on request %d with requests free", i)
		}
	}
	if _, ok := h.submit(b.Task, OpRead, 40000, 8); ok {
		t.Fatal("task did not sleep once the pool was empty")
	}
	drain(h, b)
	h.finish()
}

func TestFairReadAheadFailsBelowBatch(t *testing.T) {
	h, a := pressure(t, "fair")
	h.dev.completeOne() // free 1 < batch 2
	ra := h.bio(OpRead, 7777, 8)
	ra.Flags = FlagReadAhead
	if !h.q.Enqueue(a, ra) {
		t.Fatal("a read-ahead allocation slept")
	}
	h.clk.run()
	if !errors.Is(h.errs[ra], ErrReadAheadDropped) {
		t.Fatalf("read-ahead at free 1 < batch: err %v, want ErrReadAheadDropped", h.errs[ra])
	}
	if got := h.rec.counts(a.PID).dropped; got != 1 {
		t.Fatalf("dropped = %d, want 1", got)
	}
	h.dev.completeOne() // free 2 = batch: read-ahead allowed
	ra2 := h.bio(OpRead, 8888, 8)
	ra2.Flags = FlagReadAhead
	h.q.Enqueue(a, ra2)
	drain(h)
	h.finish()
	if h.errs[ra2] != nil {
		t.Fatalf("read-ahead at free = batch failed: %v", h.errs[ra2])
	}
}

func TestLegacyReadAheadFailsOnlyWhenEmpty(t *testing.T) {
	h, a := pressure(t, "legacy")
	h.dev.completeOne() // free 1 < batch, but not empty
	ra := h.bio(OpRead, 7777, 8)
	ra.Flags = FlagReadAhead
	h.q.Enqueue(a, ra)
	drain(h)
	h.finish()
	if h.errs[ra] != nil {
		t.Fatalf("legacy read-ahead with one request free: %v, want success", h.errs[ra])
	}
}

func TestLegacyWakesAllAndWokenTasksResleepBelowBatch(t *testing.T) {
	h, a := pressure(t, "legacy")
	s := []*sleeper{newSleeper(2), newSleeper(3), newSleeper(4)}
	// One wait queue for both directions: a writer sleeps on it too once
	// the write pool is empty.
	for i, x := range s {
		if _, ok := h.submit(x.Task, OpRead, uint64(10000+i*100), 8); ok {
			t.Fatalf("sleeper %d did not sleep", i)
		}
	}
	h.dev.completeOne()
	h.dev.completeOne() // free 2 = batch: all three wake
	for i, x := range s {
		if len(x.resumes) != 1 {
			t.Fatalf("legacy: sleeper %d woken %d times, want 1 (wake-all)", i, len(x.resumes))
		}
	}
	// A running task steals one of the two free requests before the
	// woken tasks run.
	if _, ok := h.submit(a, OpRead, 50000, 8); !ok {
		t.Fatal("legacy: running task slept although a request was free")
	}
	// Free is now 1 < batch: the first woken task goes back to sleep
	// without taking the last request.
	s[0].resume()
	if !s[0].asleep() {
		t.Fatal("legacy: woken task took a request with free < batch")
	}
	if got := h.rec.counts(s[0].Task.PID).sleeps; got != 2 {
		t.Fatalf("legacy: sleeps = %d, want 2", got)
	}
	drain(h, s...)
	h.finish()
}

func TestWakeAllVariantWakesEveryone(t *testing.T) {
	h, _ := pressure(t, "fair-wakeall")
	s := []*sleeper{newSleeper(2), newSleeper(3)}
	for i, x := range s {
		h.submit(x.Task, OpRead, uint64(10000+i*100), 8)
	}
	h.dev.completeOne()
	h.dev.completeOne()
	if len(s[0].resumes) != 1 || len(s[1].resumes) != 1 {
		t.Fatalf("fair-wakeall woke %d and %d, want 1 and 1", len(s[0].resumes), len(s[1].resumes))
	}
	drain(h, s...)
	h.finish()
}

func TestNoBatchVariantWakesOnEveryRelease(t *testing.T) {
	h, _ := pressure(t, "fair-nobatch")
	s := []*sleeper{newSleeper(2), newSleeper(3)}
	for i, x := range s {
		h.submit(x.Task, OpRead, uint64(10000+i*100), 8)
	}
	h.dev.completeOne() // free 1: with batch 1 the first sleeper wakes at once
	if len(s[0].resumes) != 1 || len(s[1].resumes) != 0 {
		t.Fatalf("fair-nobatch after one release woke %d and %d, want 1 and 0", len(s[0].resumes), len(s[1].resumes))
	}
	drain(h, s...)
	h.finish()
}

func TestNrRequestsChangeUnderLoadConservesRequests(t *testing.T) {
	h, _ := pressure(t, "fair")
	b := newSleeper(2)
	h.submit(b.Task, OpRead, 20000, 8)
	if err := h.q.SetAttr("nr_requests", "4"); err != nil {
		t.Fatal(err)
	}
	if err := h.q.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if err := h.q.SetAttr("nr_requests", "64"); err != nil {
		t.Fatal(err)
	}
	if len(b.resumes) != 1 {
		t.Fatal("raising nr_requests did not wake the sleeper")
	}
	drain(h, b)
	h.finish()
}

// TestAllocPolicySwitchKeepsSleepers: switching the allocation policy while
// tasks sleep moves them to the new policy's wait queues: they are woken
// and every bio ends.
func TestAllocPolicySwitchKeepsSleepers(t *testing.T) {
	for _, sw := range [][2]string{{"fair", "legacy"}, {"legacy", "fair"}, {"fair", "fair-wakeall"}} {
		t.Run(sw[0]+"->"+sw[1], func(t *testing.T) {
			h, _ := pressure(t, sw[0])
			s := []*sleeper{newSleeper(2), newSleeper(3)}
			h.submit(s[0].Task, OpRead, 10000, 8)
			h.submit(s[1].Task, OpWrite, 20000, 8) // write pool is free: no sleep
			h.submit(s[1].Task, OpRead, 30000, 8)
			if err := h.q.SetAttr("alloc", sw[1]); err != nil {
				t.Fatal(err)
			}
			drain(h, s...)
			h.finish()
		})
	}
}

// TestBatchRequestsConfigured: Config.BatchRequests replaces nr/4 (2.4's
// split pool: 64 per direction, batch 32), survives an nr_requests change
// (clamped to it), and a negative value is refused.
func TestBatchRequestsConfigured(t *testing.T) {
	h := newHarness(t, 8, Config{Scheduler: "none", NrRequests: 64, BatchRequests: 32})
	if v, _ := h.q.Attr("batch_requests"); v != "32" {
		t.Fatalf("batch_requests = %s, want 32", v)
	}
	if err := h.q.SetAttr("nr_requests", "16"); err != nil {
		t.Fatal(err)
	}
	if v, _ := h.q.Attr("batch_requests"); v != "16" {
		t.Fatalf("batch_requests after nr_requests=16: %s, want 16 (clamped)", v)
	}
	if err := h.q.SetAttr("nr_requests", "128"); err != nil {
		t.Fatal(err)
	}
	if v, _ := h.q.Attr("batch_requests"); v != "32" {
		t.Fatalf("batch_requests after nr_requests=128: %s, want the configured 32", v)
	}
	h.finish()
	if _, err := New(h.dev, h.clk, Config{BatchRequests: -1}); err == nil {
		t.Fatal("BatchRequests -1 accepted")
	}
}

// TestCancelledWokenSleeperPassesItsWakeUpOn: a sleeper woken (wake-one)
// whose sleep is cancelled before it runs must not swallow the wake-up:
// the next sleeper is woken, the cancelled bio ends once with the
// cancellation error, and its late resume does nothing.
func TestCancelledWokenSleeperPassesItsWakeUpOn(t *testing.T) {
	h, _ := pressure(t, "fair")
	s1, s2 := newSleeper(2), newSleeper(3)
	b1, ok1 := h.submit(s1.Task, OpRead, 5000, 8)
	_, ok2 := h.submit(s2.Task, OpRead, 6000, 8)
	if ok1 || ok2 {
		t.Fatal("sleepers did not sleep with the pool empty")
	}
	h.dev.completeOne()
	h.dev.completeOne() // free = 2 = batch: wake one
	if len(s1.resumes) != 1 || len(s2.resumes) != 0 {
		t.Fatalf("wake-ups: s1 %d, s2 %d; want s1 woken only", len(s1.resumes), len(s2.resumes))
	}
	errGone := errors.New("gone")
	if !h.q.cancelWait(s1.Task, b1, errGone) {
		t.Fatal("cancelWait of a woken, ungranted sleeper did nothing")
	}
	if len(s2.resumes) != 1 {
		t.Fatalf("the cancelled sleeper's wake-up was not passed on: s2 woken %d times", len(s2.resumes))
	}
	if h.ended[b1] != 1 || !errors.Is(h.errs[b1], errGone) {
		t.Fatalf("cancelled bio: ended %d times with %v", h.ended[b1], h.errs[b1])
	}
	if s1.asleep() {
		t.Fatal("cancelled task still asleep")
	}
	if s1.resume(); h.rec.counts(s1.Task.PID).waits != 0 {
		t.Fatal("a late resume of the cancelled sleep allocated a request")
	}
	if h.q.cancelWait(s2.Task, nil, errGone) {
		t.Fatal("cancelWait took back a bio that is not the sleeper's")
	}
	drain(h, s1, s2)
	h.finish()
}
