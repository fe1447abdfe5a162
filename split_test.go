package blkq

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// actions lists the recorded events of the given actions as "X R 0+256",
// in order.
func (r *recorder) actions(which string) []string {
	var out []string
	for _, e := range r.events {
		if strings.ContainsRune(which, rune(e.Action)) {
			out = append(out, fmt.Sprintf("%c %s %d+%d", e.Action, opLetter(e.Op), e.Sector, e.Sectors))
		}
	}
	return out
}

// busyQueueWith is busyQueue on a device that states the queue limits
// lim (limits.go).
func busyQueueWith(t *testing.T, cfg Config, lim map[string]string) (*harness, *Task) {
	t.Helper()
	clk := &testClock{}
	td := newTestDevice(clk, 1, time.Millisecond)
	td.manual = true
	q, err := New(&limitDevice{td, lim}, clk, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, clk: clk, dev: td, q: q, rec: &recorder{}, ended: map[*Bio]int{}, errs: map[*Bio]error{}}
	q.AddTracer(h.rec)
	a := NewTask(1, "a")
	h.submit(a, OpRead, 1<<20, 8)
	return h, a
}

// TestSplitAtMaxSectors: with max_sectors_kb 128, a 1 MiB read is cut into
// eight 128 KiB requests, each piece split off traced as an X, as Linux
// 6.18's bio_split_to_limits does (testdata/ktrace's
// read-1m-qd4-batch4-nomerges0-nr256-max128k: "X R 0 / 256", 7 per bio);
// the caller's bio ends once, after the last piece.
func TestSplitAtMaxSectors(t *testing.T) {
	h := newHarness(t, 32, Config{Scheduler: "none", MaxSectors: 256})
	a := NewTask(1, "a")
	b, ok := h.submit(a, OpRead, 0, 2048)
	if !ok {
		t.Fatal("the task slept")
	}
	var want []string
	for s := 0; s < 1792; s += 256 {
		want = append(want, fmt.Sprintf("X R %d+256", s))
	}
	if got := h.rec.actions("X"); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("splits %v, want %v", got, want)
	}
	if h.ended[b] != 0 {
		t.Fatal("the bio ended before its pieces were served")
	}
	h.finish()
	if len(h.dev.issued) != 8 {
		t.Fatalf("issued %v, want 8 requests of 256 sectors", h.dev.issued)
	}
	for i, s := range h.dev.issued {
		if w := fmt.Sprintf("R %d+256", i*256); s != w {
			t.Fatalf("request %d is %s, want %s", i, s, w)
		}
	}
	if h.ended[b] != 1 || h.errs[b] != nil {
		t.Fatalf("the bio ended %d times (%v)", h.ended[b], h.errs[b])
	}
}

// TestSplitPiecesDoNotMerge: a piece split off is REQ_NOMERGE in Linux
// (bio_submit_split): a bio continuing it gets a request of its own,
// while the last piece, an ordinary bio, takes the next bio.
func TestSplitPiecesDoNotMerge(t *testing.T) {
	h, a := busyQueue(t, Config{Scheduler: "mq-deadline", MaxSectors: 16})
	h.submit(a, OpRead, 0, 24) // pieces 0+16 (unmergeable) and 16+8
	h.submit(a, OpRead, 24, 8) // joins 16+8
	h.submit(a, OpRead, 100, 16)
	if got := h.rec.actions("XM"); fmt.Sprint(got) != "[X R 0+16 M R 24+8]" {
		t.Fatalf("X and M events %v, want the split of 0+16 and 24+8 merged", got)
	}
	drain(h)
	h.finish()
	if want := "[R 1048576+8 R 0+16 R 16+16 R 100+16]"; fmt.Sprint(h.dev.issued) != want {
		t.Fatalf("issued %v, want %s", h.dev.issued, want)
	}
}

// TestSplitAtMaxSegments: a read or write is also cut at max_segments
// segments of max_segment_size (split.go counts a bio's memory as
// contiguous), and 4 KiB bios stop merging once a request has
// max_segments of them.
func TestSplitAtMaxSegments(t *testing.T) {
	h, a := busyQueueWith(t, Config{Scheduler: "none"}, map[string]string{"max_segments": "4", "max_segment_size": "4096"})
	h.submit(a, OpWrite, 0, 40) // 5 segments: 32 sectors split off
	for i := range 5 {
		h.submit(a, OpWrite, 1000+uint64(i)*8, 8)
	}
	if got := h.rec.actions("X"); fmt.Sprint(got) != "[X W 0+32]" {
		t.Fatalf("splits %v, want one of 32 sectors", got)
	}
	if n := h.rec.count[actBackMerge]; n != 3 {
		t.Fatalf("%d back merges of five adjacent 4 KiB bios, want 3 (four segments to a request)", n)
	}
	drain(h)
	h.finish()
	if want := "[R 1048576+8 W 0+32 W 32+8 W 1000+32 W 1032+8]"; fmt.Sprint(h.dev.issued) != want {
		t.Fatalf("issued %v, want %s", h.dev.issued, want)
	}
}

// TestDiscardLimits: a discard is cut at discard_max_bytes; with
// max_discard_segments 1 (Linux's default) adjacent discard bios still
// merge into one range, but two discard requests never join (each is a
// segment, ll_merge_requests_fn); with more, a request takes at most that
// many bios.
func TestDiscardLimits(t *testing.T) {
	h, a := busyQueueWith(t, Config{Scheduler: "mq-deadline"}, map[string]string{"discard_max_bytes": "32768"})
	h.submit(a, OpDiscard, 0, 100) // 64 split off, 36 left
	h.submit(a, OpDiscard, 100, 8) // joins 64+36
	h.submit(a, OpDiscard, 200, 8)
	h.submit(a, OpDiscard, 216, 8)
	h.submit(a, OpDiscard, 208, 8) // joins 200+8 at its end; 216+8 stays its own
	if got := h.rec.actions("XMF"); fmt.Sprint(got) != "[X D 0+64 M D 100+8 M D 208+8]" {
		t.Fatalf("X, M and F events %v", got)
	}
	drain(h)
	h.finish()
	if want := "[R 1048576+8 D 0+64 D 64+44 D 200+16 D 216+8]"; fmt.Sprint(h.dev.issued) != want {
		t.Fatalf("issued %v, want %s", h.dev.issued, want)
	}

	h, a = busyQueueWith(t, Config{Scheduler: "none"}, map[string]string{"max_discard_segments": "2"})
	for i := range 3 {
		h.submit(a, OpDiscard, uint64(i)*8, 8)
	}
	if n := h.rec.count[actBackMerge]; n != 1 {
		t.Fatalf("max_discard_segments 2: %d merges of three discards, want 1", n)
	}
	drain(h)
	h.finish()
}

// TestInsertMergeJoinsAlternatingStreams replays the start of
// testdata/ktrace/rw-4k-qd32-batch32-nomerges0-nr256: reads and writes,
// each sequential, alternate under one plug. On the plug a bio can only
// merge with the request added last, so the plug ends with 17 requests;
// mq-deadline merges them as they are inserted (elv_attempt_insert_merge),
// into two, with the M events Linux 6.18 wrote, in its order.
func TestInsertMergeJoinsAlternatingStreams(t *testing.T) {
	h := newHarness(t, 32, Config{Scheduler: "mq-deadline"})
	a := NewTask(1, "fio")
	h.q.Plug(a)
	r, w := uint64(0), uint64(0)
	for _, c := range "RRRWRRWWWRWRWRRRWWRRWWWWRWRWWWWR" {
		if c == 'R' {
			h.submit(a, OpRead, r, 8)
			r += 8
		} else {
			h.submit(a, OpWrite, w, 8)
			w += 8
		}
	}
	h.q.Finish(a)
	want := []string{"U N 0+0", "I R 0+24", "I W 0+8", "M R 24+16", "M W 8+24", "M R 40+8", "M W 32+8", "M R 48+8", "M W 40+8",
		"M R 56+24", "M W 48+16", "M R 80+16", "M W 64+32", "I R 96+8", "M W 96+8", "I R 104+8", "M W 104+32", "M R 112+8",
		"M R 104+16", "M R 96+24"}
	var got []string
	seen := false
	for _, e := range h.rec.events {
		if e.Action == actUnplug {
			seen = true
		}
		if seen && strings.ContainsRune("UIM", rune(e.Action)) {
			op := opLetter(e.Op)
			if e.Action == actUnplug {
				op = "N"
			}
			got = append(got, fmt.Sprintf("%c %s %d+%d", e.Action, op, e.Sector, e.Sectors))
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after the unplug:\n got %v\nwant %v", got, want)
	}
	h.finish()
	// mq-deadline-noprio, blkq's before, does not merge at insert.
	if n := noInsertMerges(t); n != 17 {
		t.Errorf("mq-deadline-noprio dispatched %d requests, want the plug's 17", n)
	}
	// Which goes first is mq-deadline's choice (the trace's kernel had
	// served reads before; a new queue starts with writes).
	if got := fmt.Sprint(h.dev.issued); got != "[W 0+136 R 0+120]" {
		t.Fatalf("issued %s, want the two requests R 0+120 and W 0+136", got)
	}
}

// noInsertMerges plugs the alternating streams of
// TestInsertMergeJoinsAlternatingStreams under mq-deadline-noprio and
// returns the number of requests dispatched.
func noInsertMerges(t *testing.T) int {
	h := newHarness(t, 32, Config{Scheduler: deadlineNoprioName})
	a := NewTask(1, "fio")
	h.q.Plug(a)
	r, w := uint64(0), uint64(0)
	for _, c := range "RRRWRRWWWRWRWRRRWWRRWWWWRWRWWWWR" {
		if c == 'R' {
			h.submit(a, OpRead, r, 8)
			r += 8
		} else {
			h.submit(a, OpWrite, w, 8)
			w += 8
		}
	}
	h.q.Finish(a)
	h.finish()
	return len(h.dev.issued)
}

// TestHashGivesTheLatestRequestOnly: Linux's back-merge hash gives the
// request hashed last with the bio's start as its end, whatever its op; a
// read continuing an older read that ends where a newer write ends is not
// merged through the hash (elv_rqhash_find, then elv_bio_merge_ok). The
// 2.4 elevator's rules, and mq-deadline-noprio's (blkq's before), pass
// over the write to the read (merge.go).
func TestHashGivesTheLatestRequestOnly(t *testing.T) {
	for _, c := range []struct {
		sched  string
		merges int
	}{{"none", 0}, {"mq-deadline", 0}, {linusName, 1}, {deadlineNoprioName, 1}} {
		h, a := busyQueue(t, Config{Scheduler: c.sched})
		h.submit(a, OpRead, 100, 8)  // the one-hit cache's
		h.submit(a, OpRead, 200, 8)  // ends at 208
		h.submit(a, OpWrite, 200, 8) // ends at 208 too, hashed later
		h.submit(a, OpRead, 208, 8)  // the hash gives the write
		if n := h.rec.count[actBackMerge]; n != c.merges {
			t.Errorf("%s: %d back merges, want %d", c.sched, n, c.merges)
		}
		drain(h)
		h.finish()
	}
}

// TestFullRequestTakesNoMore: a bio that does not fit the request it
// continues marks that request unmergeable (req_set_nomerge), so a bio
// that would fit at its other end is not merged into it either; under the
// 2.4 elevator and mq-deadline-noprio nothing is marked.
func TestFullRequestTakesNoMore(t *testing.T) {
	for _, c := range []struct{ sched, want string }{
		{"mq-deadline", "[]"},
		{"none", "[]"},
		{linusName, "[F R 92+8]"},
		{deadlineNoprioName, "[F R 92+8]"},
	} {
		h, a := busyQueue(t, Config{Scheduler: c.sched, MaxSectors: 24})
		h.submit(a, OpRead, 100, 16)
		h.submit(a, OpRead, 116, 16) // does not fit
		h.submit(a, OpRead, 92, 8)   // would fit at 100+16's front
		if got := fmt.Sprint(h.rec.actions("MF")); got != c.want {
			t.Errorf("%s: merges %s, want %s", c.sched, got, c.want)
		}
		drain(h)
		h.finish()
	}
}

// TestCancelSplitBioBeforeItsFirstPiece: a split bio whose first piece
// sleeps for a request has nothing queued yet and can be taken back whole;
// once a piece is queued it cannot.
func TestCancelSplitBioBeforeItsFirstPiece(t *testing.T) {
	h := newHarness(t, 1, Config{Scheduler: "none", NrRequests: 4, MaxSectors: 16})
	h.dev.manual = true
	a, c := NewTask(1, "a"), newSleeper(2)
	for i := range 4 {
		h.submit(a, OpRead, uint64(i)*1000, 8)
	}
	b, ok := h.submit(c.Task, OpRead, 50000, 40)
	if ok {
		t.Fatal("the split bio's first piece got a request from an empty pool")
	}
	gone := errors.New("gone")
	if !h.q.cancelWait(c.Task, b, gone) || h.ended[b] != 1 || !errors.Is(h.errs[b], gone) {
		t.Fatalf("cancel: ended %d times with %v", h.ended[b], h.errs[b])
	}
	b2, ok := h.submit(c.Task, OpRead, 60000, 40)
	if ok {
		t.Fatal("the second split bio got a request from an empty pool")
	}
	h.dev.completeOne() // its first piece gets that request; the next sleeps
	if len(c.resumes) != 1 {
		t.Fatalf("the sleeper was woken %d times, want once", len(c.resumes))
	}
	c.resume()
	if !c.asleep() {
		t.Fatal("the second piece got a request from an empty pool")
	}
	if h.q.cancelWait(c.Task, b2, gone) {
		t.Fatal("took back a split bio whose first piece is queued")
	}
	drain(h, c)
	h.finish()
	if h.ended[b2] != 1 || h.errs[b2] != nil {
		t.Fatalf("the split bio ended %d times (%v)", h.ended[b2], h.errs[b2])
	}
}

// TestSleepFlushFreesRequests: a task that finds no free request flushes
// its plug before it sleeps, and tries again: a request mq-deadline merged
// away at insert is free by then, and the task takes it without sleeping,
// as Linux 6.18's does (testdata/ktrace/rw-4k-qd32-batch32-nomerges0-nr4:
// "UT N [fio] 4", two M, then the G at once). mq-deadline-noprio, which
// does not merge at insert, frees none, and the task sleeps.
func TestSleepFlushFreesRequests(t *testing.T) {
	for _, c := range []struct {
		sched  string
		sleeps int
	}{{"mq-deadline", 0}, {deadlineNoprioName, 1}} {
		h := newHarness(t, 32, Config{Scheduler: c.sched, NrRequests: 4, Alloc: "blk-mq"})
		h.dev.manual = true
		a := newSleeper(1)
		h.q.Plug(a.Task)
		h.submit(a.Task, OpRead, 0, 8)
		h.submit(a.Task, OpWrite, 0, 8)
		h.submit(a.Task, OpRead, 8, 8)
		h.submit(a.Task, OpWrite, 8, 8) // four requests: the pool is empty
		_, ok := h.submit(a.Task, OpRead, 16, 8)
		if n := h.rec.count[actSleepRq]; n != c.sleeps || ok != (c.sleeps == 0) {
			t.Errorf("%s: %d sleeps (awake %v), want %d", c.sched, n, ok, c.sleeps)
		}
		h.q.Finish(a.Task)
		drain(h, a)
		h.finish()
	}
}
