package blkq

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ddRq is a request of 8 sectors at sector with I/O priority class cls
// (1 RT, 2 BE, 3 IDLE).
func ddRq(op Op, sector uint64, cls uint16) *Request {
	return &Request{Op: op, Sector: sector, Sectors: 8, Prio: cls << 13}
}

// dispatchAll dispatches at now until nothing comes, completing each
// request at once (Finished), and names them.
func dispatchAll(d *mqDeadline, now Time) string {
	var got []string
	for rq := d.Dispatch(now); rq != nil; rq = d.Dispatch(now) {
		got = append(got, deadlineName(rq))
		d.Finished(rq)
	}
	return strings.Join(got, " ")
}

// TestMQDeadlineLevels: ioprio_class_to_prio maps none and best-effort to
// BE, real-time to RT, idle to IDLE.
func TestMQDeadlineLevels(t *testing.T) {
	for prio, want := range map[uint16]int{0: ddBE, 1<<13 | 4: ddRT, 2 << 13: ddBE, 2<<13 | 7: ddBE, 3 << 13: ddIdle} {
		if got := ddLevel(prio); got != want {
			t.Errorf("ddLevel(%#x) = %d, want %d", prio, got, want)
		}
	}
}

// TestMQDeadlineHigherLevelFirstUntilItCompletes: RT goes before BE, BE
// before IDLE, and a lower level waits while a higher one has requests
// queued, those at the device included (dd_queued counts them until they
// complete).
func TestMQDeadlineHigherLevelFirstUntilItCompletes(t *testing.T) {
	d := newMQDeadline()
	d.Insert(ddRq(OpRead, 300, 3), false, 0)
	d.Insert(ddRq(OpRead, 200, 2), false, 0)
	d.Insert(ddRq(OpRead, 100, 1), false, 0)
	rt := d.Dispatch(0)
	if deadlineName(rt) != "R100" {
		t.Fatalf("first dispatch %s, want the RT request R100", deadlineName(rt))
	}
	if rq := d.Dispatch(0); rq != nil {
		t.Fatalf("dispatched %s while the RT request is at the device, want nothing", deadlineName(rq))
	}
	d.Finished(rt)
	if got := dispatchAll(d, 0); got != "R200 R300" {
		t.Fatalf("after the RT request completed: %s, want R200 R300 (BE, then IDLE)", got)
	}
	// The batch is shared by the levels: R200 and R300 went on with the
	// read batch R100 began.
	if got := d.State(); got != "dispatch=0 RT:queued=0,reads=0,writes=0 BE:queued=0,reads=0,writes=0 IDLE:queued=0,reads=0,writes=0 batching=3 starved=0 last_dir=read" {
		t.Fatalf("state: %s", got)
	}
}

// TestMQDeadlinePrioAging: while RT keeps the queue busy, a BE request
// waits until it has been queued prio_aging_expire (10 s): at 10 s less
// 1 ns nothing but RT goes, at 10 s the BE request does.
func TestMQDeadlinePrioAging(t *testing.T) {
	d := newMQDeadline()
	d.Insert(ddRq(OpRead, 5000, 2), false, 0)
	d.Insert(ddRq(OpRead, 100, 1), false, 0)
	d.Insert(ddRq(OpRead, 200, 1), false, 0)
	early := Time(10*time.Second - 1)
	if rq := d.Dispatch(early); deadlineName(rq) != "R100" {
		t.Fatalf("at 10 s - 1 ns: %s, want R100 (RT)", deadlineName(rq))
	}
	if rq := d.Dispatch(early); deadlineName(rq) != "R200" {
		t.Fatalf("at 10 s - 1 ns: %s, want R200 (RT; the BE request is not aged yet)", deadlineName(rq))
	}
	if rq := d.Dispatch(early); rq != nil {
		t.Fatalf("at 10 s - 1 ns with RT in flight: %s, want nothing", deadlineName(rq))
	}
	if rq := d.Dispatch(Time(10 * time.Second)); deadlineName(rq) != "R5000" {
		t.Fatalf("at 10 s with RT in flight: %s, want the aged BE request R5000", deadlineName(rq))
	}
	if err := d.SetAttr("prio_aging_expire", "20000"); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Attr("prio_aging_expire"); v != "20000" {
		t.Fatalf("prio_aging_expire = %s after writing 20000", v)
	}
}

// TestMQDeadlineBatchGoesOnFromTheRequestsStart: a batch goes on from
// the start of the request dispatched last (latest_pos = blk_rq_pos), so
// a request starting inside it comes next. blkq's mq-deadline-noprio goes
// on from its end and skips it.
func TestMQDeadlineBatchGoesOnFromTheRequestsStart(t *testing.T) {
	d := newMQDeadline()
	first := &Request{Op: OpRead, Sector: 100, Sectors: 64}
	d.Insert(first, false, 0)
	d.Insert(ddRq(OpRead, 300, 0), false, 0)
	d.Insert(ddRq(OpRead, 140, 0), false, 0)
	if got := dispatchAll(d, 0); got != "R100 R140 R300" {
		t.Fatalf("mq-deadline: %s, want R100 R140 R300", got)
	}
	old := newDeadline(deadlineNoprioName)
	old.Insert(&Request{Op: OpRead, Sector: 100, Sectors: 64}, false, 0)
	old.Insert(deadlineRq(OpRead, 300), false, 0)
	old.Insert(deadlineRq(OpRead, 140), false, 0)
	var got []string
	for rq := old.Dispatch(0); rq != nil; rq = old.Dispatch(0) {
		got = append(got, deadlineName(rq))
	}
	if strings.Join(got, " ") != "R100 R300 R140" {
		t.Fatalf("mq-deadline-noprio: %v, want R100 R300 R140", got)
	}
}

// TestMQDeadlineDeadlineRulesWithinALevel: the 2002 rules hold at each
// level: with fifo_batch 1 a batch starts at the next request in sector
// order unless the FIFO head has expired (read_expire 500 ms); reads are
// preferred over writes for writes_starved (2) batches; a new queue
// starts as if a write batch were under way.
func TestMQDeadlineDeadlineRulesWithinALevel(t *testing.T) {
	d := newMQDeadline()
	d.SetAttr("fifo_batch", "1")
	d.Insert(ddRq(OpRead, 5000, 0), false, deadlineMs(0))
	d.Insert(ddRq(OpRead, 1000, 0), false, deadlineMs(10))
	d.Insert(ddRq(OpRead, 2000, 0), false, deadlineMs(20))
	d.Insert(ddRq(OpRead, 3000, 0), false, deadlineMs(30))
	var got []string
	for _, now := range []int{100, 200, 500, 700} {
		rq := d.Dispatch(deadlineMs(now))
		got = append(got, deadlineName(rq))
		d.Finished(rq)
	}
	if want := "R1000 R2000 R5000 R3000"; strings.Join(got, " ") != want {
		t.Fatalf("dispatch order %v, want %s", got, want)
	}

	d = newMQDeadline()
	d.SetAttr("fifo_batch", "1")
	for i := range 6 {
		d.Insert(ddRq(OpRead, uint64(1000+i*100), 0), false, 0)
	}
	for i := range 3 {
		d.Insert(ddRq(OpWrite, uint64(9000+i*100), 0), false, 0)
	}
	dirs := ""
	for range 9 {
		rq := d.Dispatch(0)
		dirs += deadlineName(rq)[:1]
		d.Finished(rq)
	}
	if dirs != "WRRWRRWRR" {
		t.Fatalf("directions %s, want WRRWRRWRR", dirs)
	}
}

// TestMQDeadlineAttrs: the tunables in Linux's order with Linux 6.18's
// defaults (async_depth = nr_requests), bounds clamped as Linux clamps
// them, and async_depth reset when nr_requests changes.
func TestMQDeadlineAttrs(t *testing.T) {
	d := newMQDeadline()
	if got := strings.Join(d.Attrs(), " "); got != "read_expire write_expire writes_starved front_merges async_depth fifo_batch prio_aging_expire" {
		t.Fatalf("attrs: %s", got)
	}
	want := map[string]string{"read_expire": "500", "write_expire": "5000", "writes_starved": "2", "fifo_batch": "16",
		"front_merges": "1", "prio_aging_expire": "10000", "async_depth": "128"}
	for k, v := range want {
		if got, err := d.Attr(k); err != nil || got != v {
			t.Errorf("%s = %q, %v; want %q", k, got, err, v)
		}
	}
	for _, c := range []struct{ name, value, want string }{
		{"async_depth", "0", "1"}, {"async_depth", "-5", "1"}, {"prio_aging_expire", "-1", "0"}, {"async_depth", "64", "64"},
	} {
		if err := d.SetAttr(c.name, c.value); err != nil {
			t.Fatalf("%s=%s: %v", c.name, c.value, err)
		}
		if got, _ := d.Attr(c.name); got != c.want {
			t.Errorf("%s=%s reads back %s, want %s", c.name, c.value, got, c.want)
		}
	}
	if err := d.SetAttr("async_depth", "2147483648"); !errors.Is(err, syscall.ERANGE) {
		t.Errorf("async_depth=2^31: %v, want ERANGE", err)
	}
	d.DepthUpdated(40)
	if got, _ := d.Attr("async_depth"); got != "40" {
		t.Errorf("async_depth after the depth became 40: %s, want 40", got)
	}
}

// TestMQDeadlineAsyncDepthUnderBlkMQ: under blk-mq tags, async_depth
// keeps writes to the lowest async_depth tags while reads take any; a
// write of nr_requests resets it; and mq-deadline's min_shallow_depth of
// 1 makes wake_batch 1 (Linux 6.18's sched_tags in debugfs: 256 tags,
// wake_batch=1), where none has 8.
func TestMQDeadlineAsyncDepthUnderBlkMQ(t *testing.T) {
	h := newHarness(t, 4, Config{Scheduler: "mq-deadline", Alloc: "blk-mq"})
	h.dev.manual = true
	if got, _ := h.q.Attr("nr_requests"); got != "8" {
		t.Fatalf("nr_requests %s, want 8 (2 x depth 4)", got)
	}
	if err := h.q.SetAttr("iosched/async_depth", "2"); err != nil {
		t.Fatal(err)
	}
	a := NewTask(1, "a")
	for i := range 2 {
		if _, ok := h.submit(a, OpWrite, uint64(i)*1000, 8); !ok {
			t.Fatalf("write %d slept with async_depth 2", i)
		}
	}
	w := newSleeper(2)
	if _, ok := h.submit(w.Task, OpWrite, 50000, 8); ok {
		t.Fatal("a third write got a tag with async_depth 2")
	}
	for i := range 6 {
		if _, ok := h.submit(a, OpRead, uint64(100000+i*1000), 8); !ok {
			t.Fatalf("read %d slept with %d tags free", i, 6-i)
		}
	}
	if err := h.q.SetAttr("nr_requests", "16"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.q.Attr("iosched/async_depth"); got != "16" {
		t.Fatalf("async_depth after nr_requests=16: %s, want 16", got)
	}
	a.Wake = nil
	drain(h, w)
	h.finish()

	for _, c := range []struct {
		sched string
		want  int
	}{{"mq-deadline", 1}, {"none", 8}} {
		h := newHarness(t, 256, Config{Scheduler: c.sched, Alloc: "blk-mq", NrRequests: 256})
		if got := h.q.alloc.sbq.wakeBatch; got != c.want {
			t.Errorf("%s, 256 tags: wake_batch %d, want %d", c.sched, got, c.want)
		}
	}
}

// TestMQDeadlineThroughTheQueue: RT bios get their own level at the
// queue, merge with each other at the front within it, and the counts
// stay right across an elevator switch with requests at the device.
func TestMQDeadlineThroughTheQueue(t *testing.T) {
	h := newHarness(t, 1, Config{Scheduler: "mq-deadline"})
	h.dev.manual = true
	task := NewTask(1, "t")
	sub := func(sector uint64, cls uint16) {
		b := h.bio(OpRead, sector, 8)
		b.Prio = cls << 13
		h.q.Enqueue(task, b)
	}
	sub(1<<20, 2) // at the device
	sub(100, 2)   // BE
	sub(200, 1)   // RT
	sub(192, 1)   // RT: front merge into 200
	if h.rec.count[actFrontMerge] != 1 {
		t.Fatalf("front merges %d, want 1 (RT into RT)", h.rec.count[actFrontMerge])
	}
	d := h.q.elv.(*mqDeadline)
	if got := d.State(); !strings.Contains(got, "RT:queued=1,reads=1") || !strings.Contains(got, "BE:queued=2,reads=1") {
		t.Fatalf("state %s: want one RT read queued, two BE (one at the device)", got)
	}
	h.dev.completeOne() // the BE at the device completes: the RT request goes next
	if got := h.dev.issued[1]; got != "R 192+16" {
		t.Fatalf("second issue %s, want the RT request R 192+16", got)
	}
	if err := h.q.SetAttr("scheduler", "none"); err != nil {
		t.Fatal(err)
	}
	if err := h.q.SetAttr("scheduler", "mq-deadline"); err != nil {
		t.Fatal(err)
	}
	for len(h.dev.held) > 0 {
		h.dev.completeOne()
	}
	h.finish()
	d = h.q.elv.(*mqDeadline)
	for lvl := range d.prio {
		if q := d.prio[lvl].queued(); q != 0 {
			t.Errorf("%s queued %d after the run, want 0", ddLevelNames[lvl], q)
		}
	}
}
