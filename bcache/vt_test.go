package bcache

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// Virtual-time tests: the core on sim's event loop over a device whose
// service time is exact (vtDev), so that every figure is a number the
// policy implies, asserted exactly.

// Service time of vtDev: a fixed cost per request plus a cost per sector.
const (
	vtPerRq     = time.Millisecond
	vtPerSector = time.Microsecond
)

// vtDev serves one request at a time, each in vtPerRq + vtPerSector ×
// sectors of virtual time, and logs what it served.
type vtDev struct {
	loop     *sim.Loop
	sectors  uint64
	complete func(*blkq.Request, error)
	served   []vtRq
	fail     error // if set, requests end with it
}

// vtRq is one served request.
type vtRq struct {
	end     blkq.Time
	op      blkq.Op
	sector  uint64
	sectors uint32
	bios    int
}

func (r vtRq) String() string {
	return fmt.Sprintf("%v %d+%d (%d bios) at %v", r.op, r.sector, r.sectors, r.bios, time.Duration(r.end))
}

func (d *vtDev) Name() string                               { return "vt" }
func (d *vtDev) Capacity() uint64                           { return d.sectors }
func (d *vtDev) Depth() int                                 { return 1 }
func (d *vtDev) Attach(complete func(*blkq.Request, error)) { d.complete = complete }
func (d *vtDev) Close() error                               { return nil }
func vtCost(sectors uint32) time.Duration                   { return vtPerRq + time.Duration(sectors)*vtPerSector }
func (d *vtDev) Issue(rq *blkq.Request) {
	d.loop.AfterFunc(vtCost(rq.Sectors), func() {
		r := vtRq{end: d.loop.Now(), op: rq.Op, sector: rq.Sector, sectors: rq.Sectors}
		rq.Bios(func(*blkq.Bio) { r.bios++ })
		d.served = append(d.served, r)
		d.complete(rq, d.fail)
	})
}

// vtQ is one Q event.
type vtQ struct {
	at     blkq.Time
	pid    int
	op     blkq.Op
	flags  blkq.Flags
	sector uint64
}

// vt is a cache on a vtDev on a sim.Loop.
type vt struct {
	t    *testing.T
	loop *sim.Loop
	dev  *vtDev
	q    *blkq.Queue
	c    *Cache
	qs   []vtQ // Q events
	// S and G events
	sleeps, gets []vtQ
}

func (v *vt) Trace(e *blkq.Event) {
	switch e.Action {
	case 'Q':
		v.qs = append(v.qs, vtQ{e.Time, e.PID, e.Op, e.Flags, e.Sector})
	case 'S':
		v.sleeps = append(v.sleeps, vtQ{e.Time, e.PID, e.Op, e.Flags, e.Sector})
	case 'G':
		v.gets = append(v.gets, vtQ{e.Time, e.PID, e.Op, e.Flags, e.Sector})
	}
}

// newVT makes a data-less cache of cfg over a vtDev of pages pages behind
// a queue with the none elevator and qcfg.
func newVT(t *testing.T, pages int64, cfg Config, qcfg blkq.Config) *vt {
	t.Helper()
	v := &vt{t: t, loop: sim.NewLoop()}
	v.dev = &vtDev{loop: v.loop, sectors: uint64(pages) * sectorsPerPage}
	qcfg.Scheduler = "none"
	q, err := blkq.New(v.dev, v.loop, qcfg)
	if err != nil {
		t.Fatal(err)
	}
	q.AddTracer(v)
	v.q = q
	cfg.NoData = true
	cfg.Clock = v.loop
	if v.c, err = New(q, cfg); err != nil {
		t.Fatal(err)
	}
	return v
}

func (v *vt) client(pid int) *Client { return v.c.NewClient(blkq.NewTask(pid, fmt.Sprint("p", pid))) }

// at runs f on the loop at virtual time t.
func (v *vt) at(t time.Duration, f func()) { v.loop.ScheduleAt(blkq.Time(t), f) }

// writes returns the first sectors of the Q events of writes by pid, in
// order, as page numbers.
func (v *vt) qPages(pid int, op blkq.Op) []int64 {
	return v.qPagesFlags(pid, op, 0, 0)
}

// qPagesFlags is qPages for the bios whose flags under mask are want.
func (v *vt) qPagesFlags(pid int, op blkq.Op, mask, want blkq.Flags) []int64 {
	var ps []int64
	for _, e := range v.qs {
		if e.pid == pid && e.op == op && e.flags&mask == want {
			ps = append(ps, int64(e.sector/sectorsPerPage))
		}
	}
	return ps
}

// span returns pages [lo, hi) as a slice.
func span(lo, hi int64) []int64 {
	s := make([]int64, 0, hi-lo)
	for p := lo; p < hi; p++ {
		s = append(s, p)
	}
	return s
}

func eqPages(a, b []int64) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func (v *vt) servedString() string {
	var b strings.Builder
	for _, r := range v.dev.served {
		fmt.Fprintln(&b, r)
	}
	return b.String()
}

// TestVTThrottleHeavyWriter: a 200-page cache (background 20, hard 40
// pages); one call writes 64 pages. After its first 32 pages it is above
// the background threshold and kicks the flusher (a task on the clock,
// which runs once the writer's event yields); after 64 it is above the
// hard threshold and writes back the oldest batch itself (pages 0-31, as
// its own pid), then waits for it: 32 under write-back and 0 dirty is
// under 40, so it returns once that request is done, plus its copy time.
// The flusher meanwhile writes pages 32-63 as pid 7, queued behind.
func TestVTThrottleHeavyWriter(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 200, CopyNsPerKiB: 250}, blkq.Config{})
	w := v.client(100)
	var doneAt blkq.Time
	v.c.StartWriteN(w, 64*PageSize, 0, func(n int, err error) {
		if n != 64*PageSize || err != nil {
			t.Errorf("write: %d, %v", n, err)
		}
		doneAt = v.loop.Now()
	})
	v.loop.Run()
	st := v.c.Stats()
	if got := v.qPages(100, blkq.OpWrite); !eqPages(got, span(0, 32)) {
		t.Errorf("the writer wrote back pages %v, want 0-31", got)
	}
	if got := v.qPages(DefaultFlusherPID, blkq.OpWrite); !eqPages(got, span(32, 64)) {
		t.Errorf("the flusher wrote back pages %v, want 32-63", got)
	}
	first := blkq.Time(vtCost(256))
	copyTime := blkq.Time(64 * PageSize * 250 >> 10)
	if want := first + copyTime; doneAt != want {
		t.Errorf("the write returned at %v, want %v (its batch's request, %v, then its copy, %v)",
			time.Duration(doneAt), time.Duration(want), time.Duration(first), time.Duration(copyTime))
	}
	if want := fmt.Sprintf("write 0+256 (32 bios) at %v\nwrite 256+256 (32 bios) at %v\n", time.Duration(first), time.Duration(2*first)); v.servedString() != want {
		t.Errorf("device served\n%swant\n%s", v.servedString(), want)
	}
	if st.WrittenThrottle != 32 || st.WrittenFlusher != 32 || st.Throttled != 1 || st.Dirty != 0 || st.Writeback != 0 || st.MaxDirty != 64 {
		t.Errorf("stats %+v", st)
	}
}

// TestVTSyncBoundedByFileDirtyAtCall: file A (pages 0-999) has 100 dirty
// pages, file B (pages 1000-1999) 50, when a Sync of A begins at 1 ms; a
// writer then keeps dirtying A, 100 µs after each of its writes returns,
// alternating a new page (100, 101, ...) and a rewrite of a page Sync owns
// (0, 1, ...). Sync writes exactly A's 100 pages, once each, in 4 batches
// (32, 32, 32, 4): the first goes out as one request, the other three
// back-merge into one queued request of 68 pages; it waits for each of the
// 100 writes, then flushes: done at 1 ms + R1 + R2 + flush. The writer's
// rewrite of page 0 waits for that page's write (stable pages) and is not
// written again by this Sync; B is not touched.
func TestVTSyncBoundedByFileDirtyAtCall(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 4096, BackgroundRatio: 1, DirtyRatio: 1}, blkq.Config{})
	fa, err := v.c.AddFile("a", 0, 1000*PageSize)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.c.AddFile("b", 1000*PageSize, 1000*PageSize); err != nil {
		t.Fatal(err)
	}
	if _, err := v.c.AddFile("overlap", 999*PageSize, 2*PageSize); err == nil {
		t.Errorf("an overlapping file was accepted")
	}
	noErr := func(n int, err error) {
		if err != nil {
			t.Error(err)
		}
	}
	v.c.StartWriteN(v.client(101), 100*PageSize, 0, noErr)
	v.c.StartWriteN(v.client(102), 50*PageSize, 1000*PageSize, noErr)

	const syncAt = time.Millisecond
	var res SyncResult
	var syncDone blkq.Time
	v.at(syncAt, func() {
		v.c.StartSync(v.client(200), fa, func(r SyncResult, err error) {
			res, syncDone = r, v.loop.Now()
			v.loop.Stop() // look at the cache as Sync leaves it
			if err != nil {
				t.Error(err)
			}
		})
	})
	w3 := v.client(103)
	k := 0
	var page0Done blkq.Time
	var next func()
	next = func() {
		if v.loop.Now() > blkq.Time(6*time.Millisecond) {
			return
		}
		p := int64(100 + k/2)
		if k%2 == 1 {
			p = int64(k / 2)
		}
		k++
		v.c.StartWriteN(w3, PageSize, p*PageSize, func(int, error) {
			if p == 0 {
				page0Done = v.loop.Now()
			}
			v.loop.AfterFunc(100*time.Microsecond, next)
		})
	}
	v.at(syncAt, next)
	v.loop.Run()

	r1, r2 := blkq.Time(vtCost(32*sectorsPerPage)), blkq.Time(vtCost(68*sectorsPerPage))
	if want := blkq.Time(syncAt) + r1 + r2 + blkq.Time(vtCost(0)); syncDone != want {
		t.Errorf("Sync done at %v, want %v", time.Duration(syncDone), time.Duration(want))
	}
	if got := v.qPages(200, blkq.OpWrite); !eqPages(got, span(0, 100)) {
		t.Errorf("Sync wrote pages %v, want 0-99 once each", got)
	}
	for _, e := range v.qs {
		if e.pid == 200 && e.op == blkq.OpWrite && (e.flags&blkq.FlagSync == 0 || e.at != blkq.Time(syncAt)) {
			t.Errorf("a Sync write at %v with flags %v: want REQ_SYNC, all at %v", time.Duration(e.at), e.flags, syncAt)
			break
		}
		if e.op == blkq.OpWrite && e.sector >= 1000*sectorsPerPage {
			t.Errorf("file B's page %d was written by pid %d", e.sector/sectorsPerPage, e.pid)
		}
	}
	want := SyncResult{DirtyAtStart: 100, Written: 100, Waited: 100, Steps: 150 + 100, Holds: 5 + 1 + 101, MaxPerHold: WalkChunk}
	if res != want {
		t.Errorf("Sync result %+v\nwant        %+v", res, want)
	}
	if page0Done != blkq.Time(syncAt)+r1 {
		t.Errorf("the rewrite of page 0 returned at %v, want when its write-back ended, %v", time.Duration(page0Done), time.Duration(blkq.Time(syncAt)+r1))
	}
	// By Sync's end the writer did 27 writes: 14 new pages of A, 13
	// rewrites of pages 0-12 (after their write-back); B's 50 are left.
	if st := v.c.Stats(); st.Dirty != 50+14+13 || st.WrittenSync != 100 || st.Writeback != 0 {
		t.Errorf("after Sync: dirty %d (want 77), written by Sync %d (want 100), under write-back %d", st.Dirty, st.WrittenSync, st.Writeback)
	}
	if fa.nrDirty != 27 {
		t.Errorf("file a has %d dirty pages, want 27", fa.nrDirty)
	}
}

// writeChain has cl write one new page at a time from page first, 100 µs
// after each write returns, until the loop's time passes until; it returns
// a counter of the writes done.
func (v *vt) writeChain(cl *Client, first int64, until time.Duration) *int {
	n := new(int)
	var next func()
	next = func() {
		if v.loop.Now() > blkq.Time(until) {
			return
		}
		v.c.StartWriteN(cl, PageSize, (first+int64(*n))*PageSize, func(int, error) {
			*n++
			v.loop.AfterFunc(100*time.Microsecond, next)
		})
	}
	next()
	return n
}

// TestVTInvalidateUnderWriters: 300 clean pages (written, then synced),
// two read pages (500, 501) and the 32 pages their read-ahead has in
// flight (502-533, one request). Invalidate drops the 302 unlocked ones in
// its first walk (11 holds of at most 32), moves the 32 locked ones aside
// to its own list and waits for each; a writer's rewrite of page 510,
// queued for that page's lock before Invalidate reached it, takes it
// first and dirties it, so Invalidate keeps it. Another writer dirties a
// new page every 100 µs meanwhile. Invalidate ends when the read-ahead
// does, with exactly 333 dropped, and the dirty pages all kept.
func TestVTInvalidateUnderWriters(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 4096, BackgroundRatio: 1, DirtyRatio: 1, ReadAheadKB: 128}, blkq.Config{})
	v.c.StartWriteN(v.client(101), 300*PageSize, 0, func(int, error) {
		v.c.StartSync(v.client(101), nil, func(SyncResult, error) {})
	})
	v.loop.Run()
	if st := v.c.Stats(); st.Pages != 300 || st.Dirty != 0 {
		t.Fatalf("before: %+v", st)
	}
	const t0 = 100 * time.Millisecond
	reader := v.client(102)
	var res InvalidateResult
	var invDone, w510Done blkq.Time
	var w4 *int
	v.at(t0, func() {
		v.c.StartReadN(reader, PageSize, 500*PageSize, func(int, error) {
			v.c.StartReadN(reader, PageSize, 501*PageSize, func(int, error) {
				v.c.StartInvalidate(func(r InvalidateResult) {
					res, invDone = r, v.loop.Now()
					v.loop.Stop()
				})
				v.c.StartWriteN(v.client(103), PageSize, 510*PageSize, func(int, error) { w510Done = v.loop.Now() })
				w4 = v.writeChain(v.client(104), 1000, time.Hour)
			})
		})
	})
	v.loop.Run()
	raAt := blkq.Time(t0 + 2*vtCost(8))
	raEnd := raAt + blkq.Time(vtCost(32*sectorsPerPage))
	if invDone != raEnd || w510Done != raEnd {
		t.Errorf("Invalidate done at %v, the rewrite of page 510 at %v; want both when the read-ahead ended, %v",
			time.Duration(invDone), time.Duration(w510Done), time.Duration(raEnd))
	}
	if got := v.qPages(102, blkq.OpRead); !eqPages(got, append([]int64{500, 501}, span(502, 534)...)) {
		t.Errorf("the reader read %v, want 500, 501 and read-ahead of 502-533", got)
	}
	want := InvalidateResult{PagesAtStart: 334, Dropped: 333, Waited: 32, Steps: 334 + 32, Holds: 11 + 33, MaxPerHold: WalkChunk}
	if res != want {
		t.Errorf("Invalidate %+v\nwant       %+v", res, want)
	}
	// 13 writes by the second writer, at 0, 100, ..., 1200 µs after the
	// read-ahead began (it takes 1256 µs), and page 510.
	if st := v.c.Stats(); *w4 != 13 || st.Pages != 14 || st.Dirty != 14 || st.Invalidated != 333 || st.MovedAside != 32 {
		t.Errorf("after Invalidate: %d writes, stats %+v", *w4, st)
	}
}

// TestVTSyncWalkMovesBusyAside: 100 dirty pages; "someone" (the test)
// locks every tenth page the moment Sync's dirty walk reaches it, and
// unlocks them from 5 ms on, one every 100 µs. The dirty walk takes the 90
// others in 4 holds of at most 32 steps (contiguous runs merge: 10 requests
// of 9 pages) and moves the 10 locked ones aside to the busy list; the busy
// walk then waits for each in turn, resuming at its marker, and writes it
// (3 of them back-merge into requests still queued, 7 go alone); the io
// walk waits for the writes not yet done at 5.9 ms: 55 pages, of which it
// visits 52, as pages 70, 80 and 90 complete with the requests they merged
// into before its cursor reaches them. A writer dirties a
// new page every 100 µs throughout, behind the walks' end markers: Sync
// writes exactly the 100 pages, and the device is busy from 0 to the end:
// 17 requests, 800 sectors, one flush.
func TestVTSyncWalkMovesBusyAside(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 4096, BackgroundRatio: 1, DirtyRatio: 1}, blkq.Config{})
	v.c.StartWriteN(v.client(101), 100*PageSize, 0, func(int, error) {})
	var held []*buffer
	v.c.stepHook = func(b *buffer) {
		if b.page%10 == 0 && b.page < 100 && !b.locked && !slicesContains(held, b) {
			b.locked = true
			held = append(held, b)
		}
	}
	var res SyncResult
	var done blkq.Time
	v.c.StartSync(v.client(200), nil, func(r SyncResult, err error) {
		res, done = r, v.loop.Now()
		v.loop.Stop()
	})
	writes := v.writeChain(v.client(103), 1000, time.Hour)
	for i := range 10 {
		v.at(5*time.Millisecond+time.Duration(i)*100*time.Microsecond, func() {
			v.c.lock()
			v.c.unlockBuffer(held[i])
			v.c.unlock()
		})
	}
	v.loop.Run()
	if len(held) != 10 {
		t.Fatalf("the hook locked %d pages, want 10", len(held))
	}
	want := SyncResult{DirtyAtStart: 100, Written: 100, Waited: 10 + 52, Steps: 100 + 10 + 52, Holds: 4 + 11 + 53, MaxPerHold: WalkChunk}
	if res != want {
		t.Errorf("Sync %+v\nwant %+v", res, want)
	}
	busyTime := blkq.Time(17*vtPerRq + 800*vtPerSector + vtCost(0))
	if done != busyTime {
		t.Errorf("Sync done at %v, want %v; device served\n%s", time.Duration(done), time.Duration(busyTime), v.servedString())
	}
	got := v.qPages(200, blkq.OpWrite)
	wantOrder := []int64{}
	for p := int64(0); p < 100; p++ {
		if p%10 != 0 {
			wantOrder = append(wantOrder, p)
		}
	}
	for p := int64(0); p < 100; p += 10 {
		wantOrder = append(wantOrder, p)
	}
	if !eqPages(got, wantOrder) {
		t.Errorf("Sync wrote %v, want the unlocked pages in order, then the busy ones", got)
	}
	if st := v.c.Stats(); st.MovedAside != 10 || st.Busy != 0 || st.WrittenSync != 100 || st.Dirty != *writes {
		t.Errorf("after Sync: %+v (writer: %d pages)", st, *writes)
	}
}

func slicesContains(s []*buffer, b *buffer) bool {
	for _, x := range s {
		if x == b {
			return true
		}
	}
	return false
}

// readChain has cl read pages [from, to) one call at a time, each as the
// previous returns, and returns the times each returned.
func (v *vt) readChain(cl *Client, from, to int64) []blkq.Time {
	ends := make([]blkq.Time, 0, to-from)
	var next func(p int64)
	next = func(p int64) {
		if p == to {
			return
		}
		v.c.StartReadN(cl, PageSize, p*PageSize, func(n int, err error) {
			if err != nil {
				v.t.Errorf("read of page %d: %v", p, err)
			}
			ends = append(ends, v.loop.Now())
			next(p + 1)
		})
	}
	next(from)
	v.loop.Run()
	return ends
}

// TestVTReadAheadWindow: read_ahead_kb 128 (32 pages). A reader of pages
// 0-127, one page per call: page 0 starts a stream, page 1 continues it
// (both read synchronously) and reads ahead pages 2-33; from then on the
// stream reads ahead again whenever the reader comes within half a window
// (16 pages) of where its read-ahead ends, up to a window past the reader:
// at pages 18, 35, 52, 69, 86, 103, 120, 17 pages each. The reader waits
// for read-ahead only at pages 2, 34, 51, ..., 119.
func TestVTReadAheadWindow(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 4096, ReadAheadKB: 128}, blkq.Config{})
	ends := v.readChain(v.client(102), 0, 128)
	st := v.c.Stats()
	if st.ReadAheadPages != 32+7*17 || st.ReadMisses != 2 || st.ReadHits != 126 || st.ReadAheadDropped != 0 {
		t.Errorf("read ahead %d pages (want 151), read misses %d (want 2), read hits %d (want 126), dropped %d",
			st.ReadAheadPages, st.ReadMisses, st.ReadHits, st.ReadAheadDropped)
	}
	if got := v.qPagesFlags(102, blkq.OpRead, blkq.FlagReadAhead, 0); !eqPages(got, []int64{0, 1}) {
		t.Errorf("synchronous reads of %v, want pages 0 and 1", got)
	}
	wantRA := span(2, 34)
	for _, p := range []int64{18, 35, 52, 69, 86, 103, 120} {
		wantRA = append(wantRA, span(p+16, p+33)...)
	}
	if got := v.qPagesFlags(102, blkq.OpRead, blkq.FlagReadAhead, blkq.FlagReadAhead); !eqPages(got, wantRA) {
		t.Errorf("read ahead %v\nwant        %v", got, wantRA)
	}
	// Page 0 and 1: one 8-sector read each; pages 2-33: the first window
	// (256 sectors); then each 17-page read-ahead (136 sectors) begins as
	// the reader reaches the previous one's first page.
	r8, w32, w17 := vtCost(8), vtCost(256), vtCost(136)
	want := map[int64]blkq.Time{0: blkq.Time(r8), 1: blkq.Time(2 * r8), 2: blkq.Time(2*r8 + w32), 33: blkq.Time(2*r8 + w32),
		34: blkq.Time(2*r8 + w32 + w17), 51: blkq.Time(2*r8 + w32 + 2*w17), 127: blkq.Time(2*r8 + w32 + 6*w17)}
	for p, at := range want {
		if ends[p] != at {
			t.Errorf("read of page %d returned at %v, want %v", p, time.Duration(ends[p]), time.Duration(at))
		}
	}
}

// TestVTReadAheadDroppedRereadSynchronously: nr_requests 4, all four read
// requests taken by another task's reads (one in service, three queued);
// pages 0 and 1 are cached (dirty), so reading them needs no request, and
// the second continues the stream: its read-ahead of pages 2-33 finds no
// free request and is dropped at once (blkq.ErrReadAheadDropped), each
// page left without data. The reader then reads page 2 itself: it sleeps
// for a request (one S), gets the first one freed at 1.008 ms and is
// served behind the three queued: done at 5 × 1.008 ms. Pages 3-33 are
// read synchronously too, one request each; at page 18 the stream reads
// ahead 34-50 (the pool is free again: not dropped), which the reader's
// page-19 read then queues behind; 34-40 come from read-ahead.
func TestVTReadAheadDroppedRereadSynchronously(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 4096, ReadAheadKB: 128, BackgroundRatio: 1, DirtyRatio: 1}, blkq.Config{NrRequests: 4})
	v.c.StartWriteN(v.client(101), 2*PageSize, 0, func(int, error) {})
	other := blkq.NewTask(300, "other")
	for i := range 4 {
		b := &blkq.Bio{Op: blkq.OpRead, Sector: uint64(2000+100*i) * sectorsPerPage, Sectors: 8}
		if !v.q.Enqueue(other, b) {
			t.Fatal("the other task slept")
		}
	}
	if n := len(v.gets); n != 4 { // every read request of the pool (nr_requests 4)
		t.Fatalf("%d read requests allocated, want 4", n)
	}
	ends := v.readChain(v.client(102), 0, 41)
	st := v.c.Stats()
	if st.ReadAheadDropped != 32 || st.ReadAheadPages != 32+17+17 || st.ReadMisses != 32 || st.ReadHits != 2+7 {
		t.Errorf("dropped %d (want 32), read ahead %d (want 66), read misses %d (want 32), read hits %d (want 9)",
			st.ReadAheadDropped, st.ReadAheadPages, st.ReadMisses, st.ReadHits)
	}
	if got := v.qPagesFlags(102, blkq.OpRead, blkq.FlagReadAhead, 0); !eqPages(got, span(2, 34)) {
		t.Errorf("synchronous reads of %v, want pages 2-33", got)
	}
	if len(v.sleeps) != 1 || v.sleeps[0].pid != 102 || v.sleeps[0].sector != 2*sectorsPerPage {
		t.Errorf("sleeps %+v, want one, the reader's read of page 2", v.sleeps)
	}
	r8, w17 := vtCost(8), vtCost(136)
	want := map[int64]blkq.Time{1: 0, 2: blkq.Time(5 * r8), 18: blkq.Time(21 * r8), 19: blkq.Time(22*r8 + w17),
		33: blkq.Time(36*r8 + w17), 40: blkq.Time(36*r8 + w17)}
	for p, at := range want {
		if ends[p] != at {
			t.Errorf("read of page %d returned at %v, want %v", p, time.Duration(ends[p]), time.Duration(at))
		}
	}
}

// TestVTReadAheadStopsAtFileEnd: in a 40-page file, the first window reads
// ahead pages 2-33 and the second (at page 18) only 34-39: nothing past the
// file's end, where the next file's pages are.
func TestVTReadAheadStopsAtFileEnd(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 4096, ReadAheadKB: 128}, blkq.Config{})
	if _, err := v.c.AddFile("f", 0, 40*PageSize); err != nil {
		t.Fatal(err)
	}
	v.readChain(v.client(102), 0, 40)
	if got := v.qPagesFlags(102, blkq.OpRead, blkq.FlagReadAhead, blkq.FlagReadAhead); !eqPages(got, span(2, 40)) {
		t.Errorf("read ahead %v, want pages 2-39", got)
	}
	if st := v.c.Stats(); st.ReadAheadPages != 38 || st.ReadMisses != 2 {
		t.Errorf("read ahead %d pages (want 38), read misses %d (want 2)", st.ReadAheadPages, st.ReadMisses)
	}
}

// TestVTQuiesceLeavesDirtyPages: 30 dirty pages of a 200-page cache
// (background 20) start the flusher, which writes them as one request; 10
// more dirtied at 10 µs stay under the threshold. StartQuiesce then stops
// the flusher and returns when its request is done, with the 10 left dirty.
func TestVTQuiesceLeavesDirtyPages(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 200}, blkq.Config{})
	w := v.client(100)
	v.c.StartWriteN(w, 30*PageSize, 0, func(int, error) {})
	var quiet blkq.Time
	v.at(10*time.Microsecond, func() {
		v.c.StartWriteN(w, 10*PageSize, 100*PageSize, func(int, error) {})
		v.c.StartQuiesce(func() { quiet = v.loop.Now() })
	})
	v.loop.Run()
	if want := blkq.Time(vtCost(30 * sectorsPerPage)); quiet != want {
		t.Errorf("quiesced at %v, want when the flusher's request ended, %v", time.Duration(quiet), time.Duration(want))
	}
	if got := v.qPages(DefaultFlusherPID, blkq.OpWrite); !eqPages(got, span(0, 30)) {
		t.Errorf("the flusher wrote %v, want pages 0-29", got)
	}
	if st := v.c.Stats(); st.Dirty != 10 || st.WrittenFlusher != 30 || len(v.dev.served) != 1 {
		t.Errorf("after quiescing: %+v, device served\n%s", st, v.servedString())
	}
}

// TestVTFillErrorReportedOnce: a read of 4 pages whose request fails
// returns the device's error, having read once (its own fills are not
// retried); the pages stay without data, and the next read fills them
// again, successfully.
func TestVTFillErrorReportedOnce(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 4096, ReadAheadKB: -1}, blkq.Config{})
	bad := errors.New("medium error")
	v.dev.fail = bad
	r := v.client(102)
	var n1, n2 int
	var err1, err2 error
	v.c.StartReadN(r, 4*PageSize, 0, func(n int, err error) { n1, err1 = n, err })
	v.loop.Run()
	v.dev.fail = nil
	v.c.StartReadN(r, 4*PageSize, 0, func(n int, err error) { n2, err2 = n, err })
	v.loop.Run()
	if n1 != 0 || !errors.Is(err1, bad) || n2 != 4*PageSize || err2 != nil {
		t.Errorf("reads: %d, %v then %d, %v; want 0, the device's error, then %d, nil", n1, err1, n2, err2, 4*PageSize)
	}
	if want := fmt.Sprintf("read 0+32 (4 bios) at %v\nread 0+32 (4 bios) at %v\n", vtCost(32), 2*vtCost(32)); v.servedString() != want {
		t.Errorf("device served\n%swant\n%s", v.servedString(), want)
	}
	if st := v.c.Stats(); st.PagesRead != 4 || st.ReadMisses != 4 || st.Pages != 4 {
		t.Errorf("stats %+v", st)
	}
}

// TestVTWriteErrorTakenOnce: a write-back error no Sync returned is taken
// once by TakeWriteError, as the device reported it; the cache is idle
// after the write-back, and not while it runs.
func TestVTWriteErrorTakenOnce(t *testing.T) {
	v := newVT(t, 4096, Config{Pages: 200}, blkq.Config{})
	bad := errors.New("no space")
	v.dev.fail = bad
	v.c.StartWriteN(v.client(100), 30*PageSize, 0, func(int, error) {})
	var busy bool
	v.at(10*time.Microsecond, func() { busy = !v.c.Idle() })
	v.loop.Run()
	if !busy || !v.c.Idle() {
		t.Errorf("idle while the flusher's write ran: %v; idle after: %v", !busy, v.c.Idle())
	}
	if err := v.c.TakeWriteError(); !errors.Is(err, bad) {
		t.Errorf("TakeWriteError: %v, want the device's error", err)
	}
	if err := v.c.TakeWriteError(); err != nil {
		t.Errorf("a second TakeWriteError: %v, want nil", err)
	}
	if st := v.c.Stats(); st.WriteErrors != 30 || st.WrittenFlusher != 30 {
		t.Errorf("stats %+v", st)
	}
}

// TestVTScheduleForRequestSleeps: a client woken from a sleep in request
// allocation runs again through Config.Schedule (here 50 µs later), while
// a wait for I/O goes on as the I/O ends: with the 4 read requests held by
// another task and a batch of 4, a read of page 0 sleeps until all 4 are
// free (4 × 1.008 ms), runs 50 µs later, and returns when its fill ends;
// the next read, by another client, waits for nothing but its fill.
func TestVTScheduleForRequestSleeps(t *testing.T) {
	const lat = 50 * time.Microsecond
	var v *vt
	v = newVT(t, 4096, Config{Pages: 4096, ReadAheadKB: -1,
		Schedule: func(f func()) { v.loop.AfterFunc(lat, f) }}, blkq.Config{NrRequests: 4, BatchRequests: 4})
	other := blkq.NewTask(300, "other")
	for i := range 4 {
		v.q.Enqueue(other, &blkq.Bio{Op: blkq.OpRead, Sector: uint64(2000+100*i) * sectorsPerPage, Sectors: 8})
	}
	var readAt, read2At blkq.Time
	v.c.StartReadN(v.client(102), PageSize, 0, func(int, error) {
		readAt = v.loop.Now()
		v.c.StartReadN(v.client(103), PageSize, 2*PageSize, func(int, error) { read2At = v.loop.Now() })
	})
	v.loop.Run()
	r8 := blkq.Time(vtCost(8))
	if want := 5*r8 + blkq.Time(lat); readAt != want {
		t.Errorf("the read that slept returned at %v, want %v", time.Duration(readAt), time.Duration(want))
	}
	if want := readAt + r8; read2At != want {
		t.Errorf("the next read returned at %v, want %v", time.Duration(read2At), time.Duration(want))
	}
	if len(v.sleeps) != 1 {
		t.Errorf("%d sleeps, want 1", len(v.sleeps))
	}
}

// TestVTReadAheadStreamsPerClient: 16 readers, more than a stream table
// holds, read their own regions in turns, a page each: each client keeps
// its own streams, so each reads ahead its first window after its second
// page, 16 × 32 pages in all, however the others' reads interleave.
func TestVTReadAheadStreamsPerClient(t *testing.T) {
	v := newVT(t, 8192, Config{Pages: 8192, ReadAheadKB: 128}, blkq.Config{})
	cls := make([]*Client, 16)
	for i := range cls {
		cls[i] = v.client(100 + i)
	}
	for page := int64(0); page < 2; page++ {
		for i, cl := range cls {
			v.c.StartReadN(cl, PageSize, (int64(i)*256+page)*PageSize, func(int, error) {})
			v.loop.Run()
		}
	}
	if st := v.c.Stats(); st.ReadAheadPages != 16*32 || st.ReadMisses != 32 {
		t.Errorf("read ahead %d pages (want %d), read misses %d (want 32)", st.ReadAheadPages, 16*32, st.ReadMisses)
	}
	for i := range cls {
		if got := v.qPagesFlags(100+i, blkq.OpRead, blkq.FlagReadAhead, blkq.FlagReadAhead); !eqPages(got, span(int64(i)*256+2, int64(i)*256+34)) {
			t.Errorf("reader %d read ahead %v", i, got)
		}
	}
}
