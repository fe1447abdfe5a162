package blkq

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// limitDevice is a testDevice that states queue limits.
type limitDevice struct {
	*testDevice
	lim map[string]string
}

func (d *limitDevice) QueueLimit(name string) (string, bool) {
	v, ok := d.lim[name]
	return v, ok
}

// flushHarness is a harness on a held device of depth 4 with the given
// write_cache and fua, elevator none.
func flushHarness(t *testing.T, wc string, fua string) *harness {
	t.Helper()
	clk := &testClock{}
	td := newTestDevice(clk, 4, time.Millisecond)
	td.manual = true
	dev := &limitDevice{td, map[string]string{"write_cache": wc, "fua": fua}}
	q, err := New(dev, clk, Config{Scheduler: "none"})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, clk: clk, dev: td, q: q, rec: &recorder{}, ended: map[*Bio]int{}, errs: map[*Bio]error{}}
	q.AddTracer(h.rec)
	return h
}

// trail is the recorded events as action and op letters ("QW GW DF"),
// then cleared.
func (r *recorder) trail() string {
	var s []string
	for _, e := range r.events {
		s = append(s, string(rune(e.Action))+opLetter(e.Op))
	}
	r.events = r.events[:0]
	return strings.Join(s, " ")
}

func (h *harness) flushBio(flags Flags) *Bio {
	b := h.bio(OpFlush, 0, 0)
	b.Flags = flags
	return b
}

// TestFlushWithoutWriteCacheEndsAtOnce: on a device with no write cache
// an empty flush ends at once, before it is queued (no event, nothing at
// the device), and a FUA or preflush write is an ordinary write that
// merges, as submit_bio_noacct drops the flags.
func TestFlushWithoutWriteCacheEndsAtOnce(t *testing.T) {
	h := flushHarness(t, "write through", "0")
	task := NewTask(1, "t")
	f := h.flushBio(FlagSync)
	h.q.Enqueue(task, f)
	h.clk.run()
	if h.ended[f] != 1 || h.errs[f] != nil || len(h.rec.events) != 0 || len(h.dev.issued) != 0 {
		t.Fatalf("flush on a write-through device: ended %d (%v), %d events, %d issued; want ended once, nothing else",
			h.ended[f], h.errs[f], len(h.rec.events), len(h.dev.issued))
	}
	h.q.Plug(task)
	h.submit(task, OpWrite, 0, 8)
	w := h.bio(OpWrite, 8, 8)
	w.Flags = FlagFUA | FlagPreflush
	h.q.Enqueue(task, w)
	h.q.Finish(task)
	if w.Flags != 0 || h.rec.count[actBackMerge] != 1 || strings.Join(h.dev.issued, ",") != "W 0+16" {
		t.Fatalf("FUA|PREFLUSH write on a write-through device: flags %v, %d back merges, issued %v; want no flags, merged into W 0+16",
			w.Flags, h.rec.count[actBackMerge], h.dev.issued)
	}
	for len(h.dev.held) > 0 {
		h.dev.completeOne()
	}
	h.finish()
	if v, _ := h.q.Attr("write_cache"); v != "write through" {
		t.Fatalf("write_cache %q", v)
	}
	if v, _ := h.q.Attr("fua"); v != "0" {
		t.Fatalf("fua %q", v)
	}
}

// TestFlushEmptyPreflushAsLinuxTracesIt: an fsync on a device with a
// write cache is "Q FWS", "G FWS", the flush request's "D FN" and "C FN",
// then "C WS 0 [0]" for the fsync's own request, an empty write that got
// no I or D (testdata/ktrace's fsync32 trace); its bio ends with the
// flush, at 1 ms. The disk statistics count, as Linux 6.18's did on this
// machine, one flush and one write of no sectors.
func TestFlushEmptyPreflushAsLinuxTracesIt(t *testing.T) {
	clk := &testClock{}
	dev := &limitDevice{newTestDevice(clk, 1, time.Millisecond), map[string]string{"write_cache": "write back"}}
	q, err := New(dev, clk, Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec, st := &recorder{}, &DiskStats{}
	q.AddTracer(rec)
	q.AddTracer(st)
	var endedAt Time = -1
	q.Enqueue(NewTask(7, "fio"), &Bio{Op: OpFlush, Flags: FlagSync, EndIO: func(*Bio, error) { endedAt = clk.Now() }})
	clk.run()
	var got []string
	for _, e := range rec.events {
		got = append(got, string(rune(e.Action))+opLetter(e.Op)+"/"+e.Flags.String()+"/"+itoa(e.PID)+"/"+itoa(int(e.Sectors)))
	}
	if want := "QF/sync/7/0 GF/sync/7/0 DF/preflush/0/0 CF/preflush/0/0 CW/sync/7/0"; strings.Join(got, " ") != want {
		t.Fatalf("events %s, want %s", strings.Join(got, " "), want)
	}
	if endedAt != Time(time.Millisecond) {
		t.Fatalf("the fsync ended at %v, want 1ms", time.Duration(endedAt))
	}
	if st.IOs[OpFlush] != 1 || st.IOs[OpWrite] != 1 || st.Sectors[OpWrite] != 0 || st.InFlight != 0 ||
		st.Ticks[OpFlush] != Time(time.Millisecond) || st.Ticks[OpWrite] != Time(time.Millisecond) || st.IOTicks != Time(time.Millisecond) {
		t.Fatalf("disk stats: flushes %d, writes %d of %d sectors, in flight %d, flush and write ticks %v %v, io_ticks %v; want 1, 1 of 0, 0, 1ms 1ms, 1ms",
			st.IOs[OpFlush], st.IOs[OpWrite], st.Sectors[OpWrite], st.InFlight, time.Duration(st.Ticks[OpFlush]), time.Duration(st.Ticks[OpWrite]), time.Duration(st.IOTicks))
	}
	if err := q.Check(true); err != nil {
		t.Fatal(err)
	}
}

// TestFlushesWaitingTogetherShareOneFlush: one flush at a time; the
// fsyncs that arrive while it runs share the next (C1 of blk-flush.c):
// four fsyncs, two flushes at the device.
func TestFlushesWaitingTogetherShareOneFlush(t *testing.T) {
	h := flushHarness(t, "write back", "1")
	bs := []*Bio{h.flushBio(FlagSync), h.flushBio(FlagSync), h.flushBio(FlagSync), h.flushBio(FlagSync)}
	for i, b := range bs {
		h.q.Enqueue(NewTask(i+1, "t"), b)
	}
	if got := strings.Join(h.dev.issued, ","); got != "F 0+0" {
		t.Fatalf("issued %s, want one flush while it runs", got)
	}
	h.dev.completeOne()
	h.clk.run()
	if h.ended[bs[0]] != 1 || h.ended[bs[1]] != 0 {
		t.Fatalf("after the first flush: ended %d, %d; want the first fsync only", h.ended[bs[0]], h.ended[bs[1]])
	}
	if got := strings.Join(h.dev.issued, ","); got != "F 0+0,F 0+0" {
		t.Fatalf("issued %s, want a second flush for the three that waited", got)
	}
	h.dev.completeOne()
	h.finish()
	if got := h.rec.count[actIssue]; got != 2 {
		t.Fatalf("%d flushes issued for 4 fsyncs, want 2", got)
	}
}

// TestFlushPreflushFUAWriteSequence: a write with PREFLUSH and FUA goes
// preflush, data, postflush on a device without FUA (three requests at
// the device, its bio ending with the last, and a C of no sectors then),
// and preflush, data with FUA on one with FUA (two, the data's C the
// last). The data is inserted at the head (I) after the preflush, marked
// sync, without the preflush flag.
func TestFlushPreflushFUAWriteSequence(t *testing.T) {
	for _, c := range []struct {
		fua, issued, trail, flags string
	}{
		{"0", "F 0+0,W 800+8,F 0+0", "QW GW DF CF IW DW CW DF CF CW", "sync"},
		{"1", "F 0+0,W 800+8", "QW GW DF CF IW DW CW", "sync|fua"},
	} {
		h := flushHarness(t, "write back", c.fua)
		w := h.bio(OpWrite, 800, 8)
		w.Flags = FlagPreflush | FlagFUA
		h.q.Enqueue(NewTask(1, "t"), w)
		var flags string
		for len(h.dev.held) > 0 {
			if rq := h.dev.held[0]; rq.Op == OpWrite {
				flags = rq.Flags.String()
			}
			if h.ended[w] != 0 {
				t.Fatalf("fua=%s: the write ended before its sequence", c.fua)
			}
			h.dev.completeOne()
		}
		h.finish()
		if got := strings.Join(h.dev.issued, ","); got != c.issued {
			t.Errorf("fua=%s: issued %s, want %s", c.fua, got, c.issued)
		}
		if got := h.rec.trail(); got != c.trail {
			t.Errorf("fua=%s: events %s, want %s", c.fua, got, c.trail)
		}
		if flags != c.flags {
			t.Errorf("fua=%s: the data went to the device with flags %q, want %q", c.fua, flags, c.flags)
		}
	}
}

// TestFlushDefersToPostflushData: on a device without FUA a FUA write's
// data goes first and a postflush after it; an fsync that comes while
// that data is at the device waits for it (C2) and shares the postflush:
// one flush for both.
func TestFlushDefersToPostflushData(t *testing.T) {
	h := flushHarness(t, "write back", "0")
	st := &DiskStats{}
	h.q.AddTracer(st)
	w := h.bio(OpWrite, 800, 8)
	w.Flags = FlagFUA
	h.q.Enqueue(NewTask(1, "t"), w)
	f := h.flushBio(FlagSync)
	h.q.Enqueue(NewTask(2, "t"), f)
	if got := strings.Join(h.dev.issued, ","); got != "W 800+8" {
		t.Fatalf("issued %s, want only the data while it is in flight", got)
	}
	h.dev.completeOne()
	if got := strings.Join(h.dev.issued, ","); got != "W 800+8,F 0+0" {
		t.Fatalf("issued %s, want one flush after the data", got)
	}
	h.dev.completeOne()
	h.finish()
	if h.errs[w] != nil || h.errs[f] != nil {
		t.Fatalf("errors %v %v", h.errs[w], h.errs[f])
	}
	// As /sys/block/<dev>/stat counted them on Linux 6.18: the FUA write
	// and the fsync are two writes, of 8 sectors between them, and the
	// one flush is one flush.
	if st.IOs[OpWrite] != 2 || st.Sectors[OpWrite] != 8 || st.IOs[OpFlush] != 1 || st.InFlight != 0 {
		t.Fatalf("disk stats: writes %d of %d sectors, flushes %d, in flight %d; want 2 of 8, 1, 0",
			st.IOs[OpWrite], st.Sectors[OpWrite], st.IOs[OpFlush], st.InFlight)
	}
}

// TestFlushPendingTimeout: a flush defers to postflush data in flight
// only for FLUSH_PENDING_TIMEOUT (5 s) after the first waiter came (C3):
// an fsync at 0 s waiting behind data held for 6 s is issued at the next
// chance after 5 s, not before.
func TestFlushPendingTimeout(t *testing.T) {
	h := flushHarness(t, "write back", "0")
	w := h.bio(OpWrite, 800, 8)
	w.Flags = FlagFUA
	h.q.Enqueue(NewTask(1, "t"), w)
	h.q.Enqueue(NewTask(2, "t"), h.flushBio(FlagSync))
	h.clk.now = Time(4900 * time.Millisecond)
	h.q.Enqueue(NewTask(3, "t"), h.flushBio(FlagSync))
	if n := len(h.dev.issued); n != 1 {
		t.Fatalf("at 4.9 s: %d issued, want the data only", n)
	}
	h.clk.now = Time(5 * time.Second)
	h.q.Enqueue(NewTask(4, "t"), h.flushBio(FlagSync))
	if got := strings.Join(h.dev.issued, ","); got != "W 800+8,F 0+0" {
		t.Fatalf("at 5 s: issued %s, want the flush despite the data in flight", got)
	}
	for len(h.dev.held) > 0 {
		h.dev.completeOne()
	}
	h.finish()
}

// TestFlushErrorEndsEveryWaiter: a failed flush ends every request that
// waited for it with its error.
func TestFlushErrorEndsEveryWaiter(t *testing.T) {
	h := flushHarness(t, "write back", "1")
	eio := syscall.EIO
	fail := func() {
		rq := h.dev.held[0]
		h.dev.held = h.dev.held[1:]
		h.dev.complete(rq, eio)
	}
	f1, f2 := h.flushBio(FlagSync), h.flushBio(FlagSync)
	h.q.Enqueue(NewTask(1, "t"), f1) // the first flush runs for f1
	h.q.Enqueue(NewTask(2, "t"), f2) // f2 and w wait for the next
	w := h.bio(OpWrite, 64, 8)
	w.Flags = FlagPreflush
	h.q.Enqueue(NewTask(3, "t"), w)
	fail() // f1's flush: the next is issued for f2 and w
	if h.ended[f1] != 1 || h.ended[f2]+h.ended[w] != 0 {
		t.Fatalf("after the first flush failed: ended %d %d %d, want f1 only", h.ended[f1], h.ended[f2], h.ended[w])
	}
	fail()
	h.finish()
	for i, b := range []*Bio{f1, f2, w} {
		if !errors.Is(h.errs[b], syscall.EIO) {
			t.Errorf("bio %d ended with %v, want EIO", i, h.errs[b])
		}
	}
	if got := strings.Join(h.dev.issued, ","); got != "F 0+0,F 0+0" {
		t.Errorf("issued %s: the write's data must not go after its preflush failed", got)
	}
}

// TestWriteCacheTunable: write_cache takes "write through" and "none"
// (flushes then end at once) and "write back" (they reach the device
// again), by prefix as Linux compares them; on a device without a cache,
// "write back" changes nothing; anything else is EINVAL.
func TestWriteCacheTunable(t *testing.T) {
	h := flushHarness(t, "write back", "1")
	task := NewTask(1, "t")
	for _, c := range []struct {
		value, shows string
		issued       int
	}{{"none", "write through", 0}, {"write back\n", "write back", 1}, {"write through", "write through", 1}} {
		if err := h.q.SetAttr("write_cache", c.value); err != nil {
			t.Fatal(err)
		}
		if v, _ := h.q.Attr("write_cache"); v != c.shows {
			t.Fatalf("write_cache=%q reads %q, want %q", c.value, v, c.shows)
		}
		h.q.Enqueue(task, h.flushBio(FlagSync))
		for len(h.dev.held) > 0 {
			h.dev.completeOne()
		}
		if len(h.dev.issued) != c.issued {
			t.Fatalf("after write_cache=%q: %d flushes at the device, want %d", c.value, len(h.dev.issued), c.issued)
		}
	}
	if err := h.q.SetAttr("write_cache", "writeback"); !errors.Is(err, syscall.EINVAL) {
		t.Fatalf(`write_cache="writeback": %v, want EINVAL`, err)
	}
	h.finish()
	wt := flushHarness(t, "write through", "0")
	if err := wt.q.SetAttr("write_cache", "write back"); err != nil {
		t.Fatal(err)
	}
	if v, _ := wt.q.Attr("write_cache"); v != "write through" {
		t.Fatalf("a device without a cache shows %q after write back", v)
	}
}

// TestQueueLimitsFromTheDevice: the device's limits become the queue's
// read-only tunables, bad values are an error naming the attribute, and
// max_sectors_kb is bounded by the device's max_hw_sectors_kb.
func TestQueueLimitsFromTheDevice(t *testing.T) {
	clk := &testClock{}
	dev := &limitDevice{newTestDevice(clk, 1, time.Millisecond), map[string]string{
		"rotational": "1", "logical_block_size": "512", "physical_block_size": "4096", "max_hw_sectors_kb": "1280",
		"max_segments": "168", "max_segment_size": "65536", "max_discard_segments": "256", "discard_max_bytes": "0",
		"write_cache": "write back", "fua": "0"}}
	q, err := New(dev, clk, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"rotational": "1", "physical_block_size": "4096", "max_hw_sectors_kb": "1280",
		"max_sectors_kb": "1280", "max_segments": "168", "max_discard_segments": "256", "discard_max_bytes": "0", "fua": "0"} {
		if got, err := q.Attr(name); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if err := q.SetAttr("max_sectors_kb", "2048"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("max_sectors_kb 2048 above max_hw_sectors_kb 1280: %v, want EINVAL", err)
	}
	if err := q.SetAttr("max_segments", "64"); !errors.Is(err, syscall.EACCES) {
		t.Errorf("writing max_segments: %v, want EACCES (read-only)", err)
	}
	if err := q.SetAttr("rotational", "0"); err != nil {
		t.Fatal(err)
	}
	if v, _ := q.Attr("rotational"); v != "0" {
		t.Errorf("rotational after writing 0: %s", v)
	}
	if _, err := New(dev, clk, Config{MaxSectors: 4096}); err == nil {
		t.Error("New took max_sectors 4096 on a device of 1280 KiB")
	}
	for name, v := range map[string]string{"logical_block_size": "1000", "write_cache": "on", "rotational": "yes", "max_hw_sectors_kb": "0"} {
		bad := &limitDevice{newTestDevice(clk, 1, time.Millisecond), map[string]string{name: v}}
		if _, err := New(bad, clk, Config{}); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: New gave %v, want an error naming it", name, v, err)
		}
	}
}
