package bcache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// load runs writers that dirty random pages continuously, each owning the
// pages p with p % writers == g so that a page's versions are written in
// order, and readers that check every page they read is intact and no older
// than the last version whose WriteAt had returned. last[p] is that version.
type load struct {
	c       *Cache
	pages   int64
	last    []atomic.Uint64
	writes  atomic.Int64
	reads   atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup
	errOnce sync.Once
	err     error
}

func startLoad(c *Cache, pages int64, writers, readers int) *load {
	l := &load{c: c, pages: pages, last: make([]atomic.Uint64, pages), stop: make(chan struct{})}
	fail := func(err error) { l.errOnce.Do(func() { l.err = err }) }
	for g := range writers {
		l.wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			buf := make([]byte, PageSize)
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				p := rng.Int64N(pages/int64(writers))*int64(writers) + int64(g)
				v := l.last[p].Load() + 1
				fillPage(buf, p, v)
				if _, err := c.WriteAt(buf, p*PageSize); err != nil {
					fail(err)
					return
				}
				l.last[p].Store(v)
				l.writes.Add(1)
			}
		})
	}
	for g := range readers {
		l.wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			buf := make([]byte, PageSize)
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				p := rng.Int64N(pages)
				before := l.last[p].Load()
				if _, err := c.ReadAt(buf, p*PageSize); err != nil {
					fail(err)
					return
				}
				// The page's writer may complete several writes while the
				// read runs: any version from before the read to one past
				// the last completed after it (a write whose data is in
				// the cache but whose WriteAt has not returned) is right.
				after := l.last[p].Load()
				ver, ok := parsePage(buf, p)
				if !ok || ver < before || ver > after+1 {
					fail(fmt.Errorf("reader: page %d torn (%v) or stale: version %d, last written %d before the read, %d after", p, !ok, ver, before, after))
					return
				}
				l.reads.Add(1)
			}
		})
	}
	return l
}

func (l *load) halt(t *testing.T) {
	t.Helper()
	close(l.stop)
	l.wg.Wait()
	if l.err != nil {
		t.Fatal(l.err)
	}
}

func (l *load) versions() []uint64 {
	v := make([]uint64, l.pages)
	for p := range v {
		v[p] = l.last[p].Load()
	}
	return v
}

// checkDisk reads the file through a fresh device and queue and checks that
// every page is intact with a version within [lo[p], hi[p]].
func checkDisk(t *testing.T, path string, pages int64, lo, hi []uint64) {
	t.Helper()
	disk := readDisk(t, path, pages)
	bad := 0
	for p := range pages {
		ver, ok := parsePage(disk[p*PageSize:(p+1)*PageSize], p)
		if !ok || ver < lo[p] || ver > hi[p] {
			if bad++; bad <= 5 {
				t.Errorf("page %d on disk: intact %v, version %d, want [%d, %d]", p, ok, ver, lo[p], hi[p])
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d pages wrong on disk", bad)
	}
}

func logLock(t *testing.T, what string, st Stats) {
	t.Helper()
	t.Logf("%s: cache lock holds %d, hold max %v, p99 %v", what, st.Lock.Holds, st.Lock.WallMax, st.Lock.WallP99)
	t.Logf("%s: pages %d dirty %d writeback %d busy %d; written flusher %d throttle %d sync %d; throttled %d, evictions %d, overcommit %d, invalidated %d, buffer waits %d, moved aside %d",
		what, st.Pages, st.Dirty, st.Writeback, st.Busy, st.WrittenFlusher, st.WrittenThrottle, st.WrittenSync,
		st.Throttled, st.Evictions, st.Overcommit, st.Invalidated, st.BufferWaits, st.MovedAside)
}

// Test 1a: 16 writers dirty random pages continuously while Sync runs. Sync
// returns, having written at most twice (in fact at most once) the dirty
// count at call time, counted both by Sync and at the device (its bios
// carry FlagSync); every version whose WriteAt returned before Sync began
// was on the device when Sync returned, and is there when read through a
// fresh device and queue.
func TestSyncUnderWriters(t *testing.T) {
	for _, r := range [][2]float64{{DefaultBackgroundRatio, DefaultDirtyRatio}, {0.25, 0.5}} {
		t.Run(fmt.Sprintf("ratios=%g,%g", r[0], r[1]), func(t *testing.T) { testSyncUnderWriters(t, r[0], r[1]) })
	}
}

func testSyncUnderWriters(t *testing.T, bg, hard float64) {
	const pages, writers = 8192, 16
	path := makeDisk(t, pages)
	var rec *recDev
	q, _ := openQueue(t, path, func(d blkq.Device) blkq.Device { rec = newRecDev(d, true); return rec })
	c, err := New(q, Config{Pages: 2048, BackgroundRatio: bg, DirtyRatio: hard, LockTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	l := startLoad(c, pages, writers, 0)
	time.Sleep(200 * time.Millisecond)
	c.ResetLockStats()
	time.Sleep(100 * time.Millisecond)

	// Sync at moments when something is dirty: writers throttled above the
	// hard ratio may have pushed every dirty page into write-back just then,
	// so try again (each try fully checked) until a Sync finds a batch.
	var v0 []uint64
	for try := 1; ; try++ {
		v0 = l.versions() // every WriteAt counted here returned before Sync began
		w0 := l.writes.Load()
		_, sb0 := rec.snapshot()
		start := time.Now()
		res, err := c.sync()
		took := time.Since(start)
		durable, sb1 := rec.snapshot()
		during := l.writes.Load() - w0
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Sync %d: %v, dirty at start %d, written %d (device saw %d sync write bios), waited %d, steps %d, holds %d, max steps per hold %d; writers completed %d writes meanwhile",
			try, took, res.DirtyAtStart, res.Written, sb1-sb0, res.Waited, res.Steps, res.Holds, res.MaxPerHold, during)
		if res.Written > 2*res.DirtyAtStart || sb1-sb0 > int64(2*res.DirtyAtStart) {
			t.Errorf("Sync wrote %d pages (device: %d) for %d dirty at call time: more than twice", res.Written, sb1-sb0, res.DirtyAtStart)
		}
		if res.Written > res.DirtyAtStart {
			t.Errorf("Sync wrote %d pages for %d dirty at call time: a buffer twice?", res.Written, res.DirtyAtStart)
		}
		if res.MaxPerHold > WalkChunk {
			t.Errorf("a walk hold covered %d steps, more than %d", res.MaxPerHold, WalkChunk)
		}
		missing := 0
		for p := range int64(pages) {
			if durable[p] < v0[p] {
				if missing++; missing <= 5 {
					t.Errorf("page %d: version %d written before Sync, but only %d on the device when Sync returned", p, v0[p], durable[p])
				}
			}
		}
		if missing > 0 {
			t.Fatalf("%d pages Sync was responsible for were not on the device when it returned", missing)
		}
		if res.DirtyAtStart >= WriteBatch && during > 0 {
			break
		}
		if try == 20 {
			t.Fatalf("in %d tries no Sync began with %d dirty pages while writes went on", try, WriteBatch)
		}
		time.Sleep(20 * time.Millisecond)
	}
	st := c.Stats()
	l.halt(t)
	logLock(t, "sync under 16 writers", st)
	rec.mu.Lock()
	bad := rec.corruption
	rec.mu.Unlock()
	if len(bad) > 0 {
		t.Fatalf("device saw corrupt pages: %v", bad[:1])
	}

	// Through a fresh device and queue, with the flusher stopped (so the
	// file is quiet): at least what Sync was responsible for.
	c.stopFlusher()
	hi := l.versions()
	checkDisk(t, path, pages, v0, hi)
	// Close writes back the rest: then exactly the last versions.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	checkDisk(t, path, pages, hi, hi)
}

// Test 1b: Invalidate under 8 writers and 8 readers terminates, visiting
// only the buffers present when it began, drops no dirty data (readers never
// see a version older than the last completed write, and the device ends
// with the last versions), and drops clean buffers.
func TestInvalidateUnderWriters(t *testing.T) {
	const pages = 8192
	path := makeDisk(t, pages)
	q, _ := openQueue(t, path, nil)
	c, err := New(q, Config{Pages: 2048, LockTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2048*PageSize) // fill the cache with clean pages
	if _, err := c.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	l := startLoad(c, pages, 8, 8)
	time.Sleep(200 * time.Millisecond)
	c.ResetLockStats()
	time.Sleep(100 * time.Millisecond)

	// One Invalidate can end before any write does (it took 0.3 ms on a
	// loaded machine): call it until one ran beside a completed write,
	// checking the bounds of every call.
	var res InvalidateResult
	var dw, dr int64
	for attempt := 1; ; attempt++ {
		w0, r0 := l.writes.Load(), l.reads.Load()
		start := time.Now()
		res = c.invalidate()
		took := time.Since(start)
		dw, dr = l.writes.Load()-w0, l.reads.Load()-r0
		t.Logf("Invalidate %d: %v, pages at start %d, dropped %d, waited %d, steps %d, holds %d, max steps per hold %d; %d writes and %d reads meanwhile",
			attempt, took, res.PagesAtStart, res.Dropped, res.Waited, res.Steps, res.Holds, res.MaxPerHold, dw, dr)
		if res.Dropped > res.PagesAtStart || res.Steps > 2*res.PagesAtStart || res.MaxPerHold > WalkChunk {
			break // reported below
		}
		if dw > 0 || attempt == 20 {
			break
		}
		time.Sleep(20 * time.Millisecond) // the load refills the cache
	}
	st := c.Stats()
	time.Sleep(50 * time.Millisecond) // readers keep checking after the drop
	l.halt(t)

	logLock(t, "invalidate under 8 writers + 8 readers", st)
	if dw == 0 {
		t.Errorf("no write completed while any of 20 Invalidates ran")
	}
	if res.Dropped == 0 {
		t.Errorf("Invalidate dropped nothing")
	}
	if res.Dropped > res.PagesAtStart || res.Steps > 2*res.PagesAtStart {
		t.Errorf("Invalidate dropped %d and took %d steps for %d buffers present at its start", res.Dropped, res.Steps, res.PagesAtStart)
	}
	if res.MaxPerHold > WalkChunk {
		t.Errorf("a walk hold covered %d steps, more than %d", res.MaxPerHold, WalkChunk)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	v := l.versions()
	checkDisk(t, path, pages, v, v)
}

// Syncs, Invalidates and the flusher running at once over the same lists
// (their markers interleave) under writers and readers: no deadlock, no
// lost or torn page.
func TestConcurrentSyncInvalidate(t *testing.T) {
	const pages = 4096
	path := makeDisk(t, pages)
	q, _ := openQueue(t, path, nil)
	c, err := New(q, Config{Pages: 1024, LockTiming: true})
	if err != nil {
		t.Fatal(err)
	}
	l := startLoad(c, pages, 8, 4)
	var wg sync.WaitGroup
	var syncs, invs atomic.Int64
	deadline := time.Now().Add(500 * time.Millisecond)
	for i := range 3 {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				if i == 2 {
					c.Invalidate()
					invs.Add(1)
					continue
				}
				res, err := c.sync()
				if err != nil {
					t.Error(err)
					return
				}
				if res.Written > res.DirtyAtStart {
					t.Errorf("Sync wrote %d for %d dirty", res.Written, res.DirtyAtStart)
				}
				syncs.Add(1)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("Syncs and Invalidates did not finish")
	}
	l.halt(t)
	st := c.Stats()
	t.Logf("%d Syncs, %d Invalidates, %d writes, %d reads", syncs.Load(), invs.Load(), l.writes.Load(), l.reads.Load())
	logLock(t, "concurrent sync+invalidate", st)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	v := l.versions()
	checkDisk(t, path, pages, v, v)
}

// Test 3: data written through the cache (unaligned, partial pages, pages
// evicted and read back for read-modify-write) and Synced reads back
// through a fresh queue on the same file; a contiguous write-back merges.
func TestRoundTripFreshQueue(t *testing.T) {
	const pages = 1024
	path := makeDisk(t, pages)
	shadow, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec *recDev
	q, _ := openQueue(t, path, func(d blkq.Device) blkq.Device { rec = newRecDev(d, false); return rec })
	c, err := New(q, Config{Pages: 128, LockTiming: true}) // small: evictions, re-reads for partial pages
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 3000 {
		n := 1 + rng.IntN(3*PageSize)
		off := rng.Int64N(pages*PageSize - int64(n))
		if rng.IntN(3) == 0 {
			got := make([]byte, n)
			if _, err := c.ReadAt(got, off); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, shadow[off:off+int64(n)]) {
				t.Fatalf("ReadAt(%d bytes at %d) differs from what was written", n, off)
			}
			continue
		}
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		if _, err := c.WriteAt(p, off); err != nil {
			t.Fatal(err)
		}
		copy(shadow[off:], p)
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}

	// 64 contiguous pages, written back in batches of 32 under a plug.
	rec.mu.Lock()
	bios0, reqs0 := rec.writeBios, rec.writeReqs
	rec.mu.Unlock()
	run := make([]byte, 64*PageSize)
	for i := range run {
		run[i] = byte(i * 7)
	}
	if _, err := c.WriteAt(run, 300*PageSize); err != nil {
		t.Fatal(err)
	}
	copy(shadow[300*PageSize:], run)
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	bios, reqs := rec.writeBios-bios0, rec.writeReqs-reqs0
	rec.mu.Unlock()
	t.Logf("64 contiguous pages: %d write bios in %d requests", bios, reqs)
	if bios != 64 || reqs*8 > bios {
		t.Errorf("64 contiguous pages went out as %d bios in %d requests: want 64 bios, at least 8 per request", bios, reqs)
	}

	st := c.Stats()
	logLock(t, "round trip", st)
	if st.Evictions == 0 || st.PagesRead == 0 {
		t.Errorf("want evictions and reads in a cache smaller than the data: %+v", st)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readDisk(t, path, pages); !bytes.Equal(got, shadow) {
		for i := range got {
			if got[i] != shadow[i] {
				t.Fatalf("fresh queue reads back different data from byte %d (page %d)", i, i/PageSize)
			}
		}
	}
}

// Edges: the end of the cache, closed cache, ratio validation.
func TestEdges(t *testing.T) {
	dev, err := device.OpenFile(t.TempDir()+"/disk", device.FileOptions{Size: 10*PageSize + 512})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	q, err := blkq.New(dev, blkq.NewRealClock(), blkq.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(q, Config{Pages: 4})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2*PageSize)
	if n, err := c.ReadAt(buf, 9*PageSize); n != PageSize || err != io.EOF {
		t.Errorf("ReadAt across the end: %d, %v; want %d, EOF", n, err, PageSize)
	}
	if n, err := c.WriteAt(buf, 9*PageSize); n != PageSize || !errors.Is(err, blkq.ErrBeyondEnd) {
		t.Errorf("WriteAt across the end: %d, %v; want %d, ErrBeyondEnd", n, err, PageSize)
	}
	if n, err := c.ReadAt(buf, 10*PageSize); n != 0 || err != io.EOF {
		t.Errorf("ReadAt at the end: %d, %v", n, err)
	}
	if _, err := c.ReadAt(buf, -1); err == nil {
		t.Errorf("ReadAt at -1: no error")
	}
	for _, r := range [][2]float64{{0, 0.2}, {0.3, 0.2}, {0.1, 1.5}} {
		if c.SetDirtyRatios(r[0], r[1]) == nil {
			t.Errorf("SetDirtyRatios(%g, %g) accepted", r[0], r[1])
		}
	}
	if err := c.SetDirtyRatios(0.25, 0.5); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.Background != 1 || st.Hard != 2 {
		t.Errorf("thresholds of 0.25, 0.5 of 4 pages: %d, %d; want 1, 2", st.Background, st.Hard)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteAt(buf[:1], 0); err != ErrClosed {
		t.Errorf("WriteAt after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// New with a nil queue is an error, not a nil dereference.
func TestNewRefusesNilQueue(t *testing.T) {
	c, err := New(nil, Config{})
	if err == nil || !strings.Contains(err.Error(), "nil queue") {
		t.Fatalf("New(nil) = %v, %v; want an error naming the nil queue", c, err)
	}
}

// TestInvalidateRangeDropsOnlyItsPages: StartInvalidateRange drops the
// clean buffers of the pages its byte range touches and keeps the rest
// (POSIX_FADV_DONTNEED over a file's range): reading the range again
// reads its pages from the device, the others come from the cache.
func TestInvalidateRangeDropsOnlyItsPages(t *testing.T) {
	path := makeDisk(t, 64)
	q, _ := openQueue(t, path, nil)
	c, err := New(q, Config{Pages: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 16*PageSize)
	if _, err := c.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan InvalidateResult, 1)
	c.StartInvalidateRange(4*PageSize+100, 3*PageSize, func(r InvalidateResult) { done <- r }) // touches pages 4-7
	if r := <-done; r.Dropped != 4 || c.Stats().Invalidated != 4 {
		t.Fatalf("dropped %d (%d in the stats); want pages 4-7", r.Dropped, c.Stats().Invalidated)
	}
	before := c.Stats().PagesRead
	if _, err := c.ReadAt(buf[:PageSize], 3*PageSize); err != nil {
		t.Fatal(err)
	}
	if got := c.Stats().PagesRead - before; got != 0 {
		t.Errorf("page 3, outside the range, was read from the device (%d pages)", got)
	}
	if _, err := c.ReadAt(buf[:PageSize], 5*PageSize); err != nil {
		t.Fatal(err)
	}
	if got := c.Stats().PagesRead - before; got != 1 {
		t.Errorf("page 5, inside the range: %d pages read from the device; want 1", got)
	}
}
