package blkq

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBlkMQWakeBatch pins sbq_calc_wake_batch and the word width
// (sbitmap_calculate_shift) for the depths blkq meets, with the values
// this machine's Linux 6.18 showed in debugfs for a loop device: 128
// driver tags in 32-bit words with wake_batch 8; 256 scheduler tags under
// mq-deadline (min_shallow_depth 1) in 64-bit words with wake_batch 1.
func TestBlkMQWakeBatch(t *testing.T) {
	for _, c := range []struct{ depth, minShallow, batch, bpw int }{
		{256, 0, 8, 64}, {128, 0, 8, 32}, {64, 0, 8, 16}, {32, 0, 4, 8},
		{16, 0, 2, 4}, {8, 0, 1, 2}, {4, 0, 1, 1}, {2, 0, 1, 64},
		{256, 1, 1, 64}, {256, 24, 3, 64},
	} {
		if got := calcWakeBatch(c.depth, c.minShallow); got != c.batch {
			t.Errorf("wake_batch(depth %d, min_shallow_depth %d) = %d, want %d", c.depth, c.minShallow, got, c.batch)
		}
		if got := bitsPerWord(c.depth); got != c.bpw {
			t.Errorf("bits_per_word(depth %d) = %d, want %d", c.depth, got, c.bpw)
		}
	}
}

// blkmqPressure is a queue under blk-mq with nr tags on a held device of
// depth nr, elevator none, its tags all taken by task a (reads and writes
// alike).
func blkmqPressure(t *testing.T, nr int) (*harness, *Task) {
	t.Helper()
	h := newHarness(t, nr, Config{Scheduler: "none", NrRequests: nr, Alloc: "blk-mq"})
	h.dev.manual = true
	a := NewTask(1, "a")
	for i := range nr {
		op := OpRead
		if i%2 == 1 {
			op = OpWrite
		}
		if _, ok := h.submit(a, op, uint64(i)*100, 8); !ok {
			t.Fatalf("task a slept on tag %d of %d", i, nr)
		}
	}
	return h, a
}

// TestBlkMQOneTagSetForBothDirections: reads and writes draw on one set
// of nr_requests tags; with half of them taken by writes, a read sleeps
// once all are taken (the 2.4 pools would have had 8 free reads left).
func TestBlkMQOneTagSetForBothDirections(t *testing.T) {
	h, _ := blkmqPressure(t, 8)
	if p := h.q.Pool(); p.Free != [2]int{0, 0} || p.InUse != [2]int{4, 4} {
		t.Fatalf("pool after 4 reads and 4 writes: free %v in use %v, want [0 0] and [4 4]", p.Free, p.InUse)
	}
	b := newSleeper(2)
	if _, ok := h.submit(b.Task, OpRead, 9000, 8); ok {
		t.Fatal("a read found a tag with all 8 taken")
	}
	h.dev.completeOne() // a read's tag: wake_batch 1 wakes b
	if len(b.resumes) != 1 {
		t.Fatalf("b woken %d times by the first freed tag, want 1 (wake_batch 1 for 8 tags)", len(b.resumes))
	}
	drain(h, b)
	h.finish()
}

// TestBlkMQWakesFromTheWaitQueuesInTurn: with 16 tags (wake_batch 2) and
// ten sleepers, the sleepers go to wait queues 0..7, 0, 1 in turn; every
// second freed tag wakes a batch of two, taken from one wait queue while
// it has sleepers and then from the next: s0 and s8 (queue 0), s1 and s9
// (queue 1), then s2 and s3, s4 and s5, s6 and s7.
func TestBlkMQWakesFromTheWaitQueuesInTurn(t *testing.T) {
	h, _ := blkmqPressure(t, 16)
	var s []*sleeper
	for i := range 10 {
		x := newSleeper(10 + i)
		s = append(s, x)
		if _, ok := h.submit(x.Task, OpWrite, uint64(50000+i*100), 8); ok {
			t.Fatalf("sleeper %d found a tag", i)
		}
	}
	if got := h.q.alloc.sbq.state(16); got != "depth=16 busy=16 bits_per_word=4 wake_batch=2 wake_index=0 ws_active=10" {
		t.Fatalf("tag set: %s", got)
	}
	var order []string
	for range 10 {
		h.dev.completeOne()
		for _, e := range h.rec.events {
			if e.Action == actWake {
				order = append(order, "s"+itoa(e.PID-10))
			}
		}
		h.rec.events = h.rec.events[:0]
	}
	if got, want := strings.Join(order, " "), "s0 s8 s1 s9 s2 s3 s4 s5 s6 s7"; got != want {
		t.Fatalf("wake-up order %s, want %s", got, want)
	}
	drain(h, s...)
	h.finish()
}

func itoa(n int) string { return string(rune('0' + n)) }

// TestBlkMQRunningTaskTakesAWokenSleepersTag: blk-mq keeps no place for
// a woken sleeper. A running task takes the freed tag first; the woken
// task, finding none, sleeps again (a second S) on the next wait queue,
// and the next freed tag wakes it again.
func TestBlkMQRunningTaskTakesAWokenSleepersTag(t *testing.T) {
	h, a := blkmqPressure(t, 8)
	b := newSleeper(2)
	h.submit(b.Task, OpRead, 9000, 8)
	h.dev.completeOne() // wakes b
	if _, ok := h.submit(a, OpRead, 9100, 8); !ok {
		t.Fatal("the running task slept with a tag free")
	}
	b.resume()
	if !b.asleep() {
		t.Fatal("b got a tag the running task had taken")
	}
	if got := h.rec.counts(b.Task.PID); got.sleeps != 2 || got.wakeups != 1 {
		t.Fatalf("b: %d sleeps, %d wake-ups; want 2 and 1", got.sleeps, got.wakeups)
	}
	if got := h.q.alloc.sbq.state(8); got != "depth=8 busy=8 bits_per_word=2 wake_batch=1 wake_index=1 ws_active=1" {
		t.Fatalf("tag set after b slept again: %s", got)
	}
	if w := h.q.alloc.sbq.ws[1].Front(); w == nil || w.task != b.Task {
		t.Fatal("b did not go to the next wait queue (1)")
	}
	h.dev.completeOne()
	if len(b.resumes) != 1 {
		t.Fatalf("b not woken again by the next freed tag")
	}
	drain(h, b)
	h.finish()
}

// TestBlkMQReadAheadSleeps: under blk-mq a read-ahead bio waits for a
// tag like any other (no READA rule); it is not dropped.
func TestBlkMQReadAheadSleeps(t *testing.T) {
	h, a := blkmqPressure(t, 8)
	ra := h.bio(OpRead, 7777, 8)
	ra.Flags = FlagReadAhead
	if h.q.Enqueue(a, ra) {
		t.Fatal("a read-ahead found a tag with none free")
	}
	a.Wake = nil
	h.dev.completeOne()
	drain(h)
	h.finish()
	if h.errs[ra] != nil {
		t.Fatalf("read-ahead under blk-mq ended with %v, want success after a wait", h.errs[ra])
	}
}

// TestBlkMQGrantTimesInVirtualTime: 8 tags, a device serving one request
// per millisecond; task a takes all 8 at time 0 and ten tasks sleep.
// wake_batch is 1, so each completion (at 1, 2, ... ms) wakes the next
// sleeper from the wait queues in turn, which takes the freed tag at
// once: the sleepers get their requests (G) at 1..10 ms in the order they
// slept (queues 0..7, then 0 and 1 again), each having waited exactly
// its G time.
func TestBlkMQGrantTimesInVirtualTime(t *testing.T) {
	h := newHarness(t, 8, Config{Scheduler: "none", NrRequests: 8, Alloc: "blk-mq"})
	a := NewTask(1, "a")
	for i := range 8 {
		h.submit(a, OpRead, uint64(i)*1000, 8)
	}
	for i := range 10 {
		if _, ok := h.submit(NewTask(10+i, "s"), OpRead, uint64(100000+i*1000), 8); ok {
			t.Fatalf("sleeper %d found a tag", i)
		}
	}
	h.finish()
	var got []string
	for _, e := range h.rec.events {
		if e.Action == actGetRq && e.PID >= 10 {
			got = append(got, itoa(e.PID-10)+"@"+time.Duration(e.Time).String()+"/"+time.Duration(e.Wait).String())
		}
	}
	want := "0@1ms/1ms 1@2ms/2ms 2@3ms/3ms 3@4ms/4ms 4@5ms/5ms 5@6ms/6ms 6@7ms/7ms 7@8ms/8ms 8@9ms/9ms 9@10ms/10ms"
	if strings.Join(got, " ") != want {
		t.Fatalf("grants (sleeper@time/wait):\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestBlkMQNrRequestsDefaults: blk-mq's nr_requests follows the device's
// queue depth and the elevator, as Linux sizes its tags: 2 × min(depth,
// 128) with an elevator, the depth with none; switching the elevator
// sizes them anew; without an elevator more tags than the device's
// depth are refused.
func TestBlkMQNrRequestsDefaults(t *testing.T) {
	for _, c := range []struct {
		sched string
		depth int
		want  string
	}{{"mq-deadline", 32, "64"}, {"mq-deadline", 1, "2"}, {"mq-deadline", 256, "256"}, {"none", 32, "32"}, {"linus", 128, "256"}} {
		h := newHarness(t, c.depth, Config{Scheduler: c.sched, Alloc: "blk-mq"})
		if got, _ := h.q.Attr("nr_requests"); got != c.want {
			t.Errorf("%s on depth %d: nr_requests %s, want %s", c.sched, c.depth, got, c.want)
		}
	}
	h := newHarness(t, 128, Config{Scheduler: "none", Alloc: "blk-mq"})
	if err := h.q.SetAttr("scheduler", "mq-deadline"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.q.Attr("nr_requests"); got != "256" {
		t.Fatalf("none -> mq-deadline on depth 128: nr_requests %s, want 256 (as a 6.18 loop device)", got)
	}
	if err := h.q.SetAttr("scheduler", "none"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.q.Attr("nr_requests"); got != "128" {
		t.Fatalf("back to none: nr_requests %s, want 128", got)
	}
	if err := h.q.SetAttr("nr_requests", "129"); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("nr_requests 129 > depth 128 without an elevator: %v, want EINVAL", err)
	}
	if _, err := New(h.dev, h.clk, Config{Scheduler: "none", Alloc: "blk-mq", NrRequests: 200}); err == nil {
		t.Fatal("New accepted 200 tags for none on a device of depth 128")
	}
	// Under the 2.4 policies nr_requests stays 128 per direction.
	if got, _ := newHarness(t, 32, Config{}).q.Attr("nr_requests"); got != "128" {
		t.Fatalf("fair: nr_requests %s, want 128", got)
	}
}

// TestBlkMQPolicySwitchUnderLoad: switching between the 2.4 rules and
// blk-mq while requests are in use and tasks sleep conserves requests
// (untagged requests count as busy tags until freed) and ends every bio.
func TestBlkMQPolicySwitchUnderLoad(t *testing.T) {
	for _, sw := range [][]string{{"fair", "blk-mq"}, {"blk-mq", "fair"}, {"legacy", "blk-mq"}, {"blk-mq", "legacy"}, {"blk-mq", "fair", "blk-mq"}, {"fair", "blk-mq", "fair", "blk-mq"}} {
		t.Run(strings.Join(sw, "->"), func(t *testing.T) {
			h := newHarness(t, 8, Config{Scheduler: "none", NrRequests: 8, Alloc: sw[0]})
			h.dev.manual = true
			a := NewTask(1, "a")
			for i := range 12 {
				op := OpRead
				if i%3 == 0 {
					op = OpWrite
				}
				if _, ok := h.submit(a, op, uint64(i)*100, 8); !ok {
					break
				}
			}
			s := []*sleeper{newSleeper(2), newSleeper(3)}
			h.submit(s[0].Task, OpRead, 10000, 8)
			h.submit(s[1].Task, OpWrite, 20000, 8)
			for i, p := range sw[1:] {
				// A request freed and one taken under each policy on the way.
				h.dev.completeOne()
				h.submit(NewTask(20+i, "x"), OpRead, uint64(30000+i*100), 8)
				if err := h.q.SetAttr("alloc", p); err != nil {
					t.Fatal(err)
				}
				if err := h.q.CheckInvariants(); err != nil {
					t.Fatalf("after switching to %s: %v", p, err)
				}
			}
			a.Wake = nil
			drain(h, s...)
			h.finish()
		})
	}
}
