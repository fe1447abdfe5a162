package bcache

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Stress of the pinned hit path (pin.go, hint.go, readHit): a cache much
// smaller than the working set, readers hitting and missing, one owner per
// page writing and discarding it, Invalidate and Sync going on. Every read
// must return an intact page (or zeros after a discard) no older than the
// last operation on the page that completed before the read began. Run it
// with -race: a copy under a pin that overlaps a write's copy or an
// eviction's reuse of the data is a data race.

// pageHistory is, per page, the version of the last completed operation
// and of the last discard started. Versions grow per page: one owner does
// all of a page's writes and discards, in order.
type pageHistory struct {
	done      []atomic.Uint64
	discStart []atomic.Uint64
}

func newPageHistory(pages int64) *pageHistory {
	return &pageHistory{done: make([]atomic.Uint64, pages), discStart: make([]atomic.Uint64, pages)}
}

// check judges a read of page p whose data is buf, given snap, the page's
// done version before the read began. It returns "" or what is wrong.
func (h *pageHistory) check(buf []byte, p int64, snap uint64) string {
	zero := true
	for _, x := range buf {
		if x != 0 {
			zero = false
			break
		}
	}
	if zero {
		if h.discStart[p].Load() < snap || h.discStart[p].Load() == 0 {
			return "zeros with no discard since the last operation that completed"
		}
		return ""
	}
	ver, ok := parsePage(buf, p)
	switch {
	case !ok:
		return "a torn or misplaced page"
	case ver < snap && h.discStart[p].Load() < snap:
		return "a stale version"
	case ver < snap:
		// snap was a discard: only zeros or a later write will do.
		return "data from before a completed discard"
	}
	return ""
}

// checkPrefix is check for a read of the first len(buf) >= 16 bytes of
// page p.
func (h *pageHistory) checkPrefix(buf []byte, p int64, snap uint64) string {
	full := make([]byte, PageSize)
	zero := true
	for _, x := range buf {
		if x != 0 {
			zero = false
			break
		}
	}
	if !zero {
		// The whole page of the version the prefix names: check judges
		// its version, and the prefix must be its first bytes.
		fillPage(full, p, binary.LittleEndian.Uint64(buf[8:]))
		if int64(binary.LittleEndian.Uint64(buf)) != p || string(full[:len(buf)]) != string(buf) {
			return "a torn or misplaced prefix"
		}
	}
	if zero {
		clear(full)
	}
	return h.check(full, p, snap)
}

type stressOpts struct {
	diskPages, cachePages int64
	readers, owners       int
	discard, invalidate   bool
	sync                  bool
	readAheadKB           int  // 0: off
	partial               bool // readers also read page prefixes and go sequentially
	dur                   time.Duration
}

func runPinStress(t *testing.T, o stressOpts) Stats {
	path := makeDisk(t, o.diskPages)
	q, _ := openQueue(t, path, nil)
	ra := o.readAheadKB
	if ra == 0 {
		ra = -1
	}
	c, err := New(q, Config{Pages: int(o.cachePages), ReadAheadKB: ra})
	if err != nil {
		t.Fatal(err)
	}
	h := newPageHistory(o.diskPages)
	stop := make(chan struct{})
	var bad atomic.Int64
	var firstBad atomic.Value
	report := func(s string) {
		if bad.Add(1) == 1 {
			firstBad.Store(s)
		}
	}
	var wg sync.WaitGroup
	for r := 0; r < o.readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 1))
			buf := make([]byte, PageSize)
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := hotPage(rng, o.diskPages)
				if o.partial && rng.IntN(2) == 0 {
					// A run of sequential prefix reads: read-ahead, and hits
					// of less than a page.
					for k := 0; k < 16 && p < o.diskPages; k, p = k+1, p+1 {
						n := 16 + rng.IntN(PageSize-16)
						snap := h.done[p].Load()
						if _, err := c.ReadAt(buf[:n], p*PageSize); err != nil {
							report("read: " + err.Error())
							return
						}
						if s := h.checkPrefix(buf[:n], p, snap); s != "" {
							report(s)
						}
					}
					continue
				}
				snap := h.done[p].Load()
				if _, err := c.ReadAt(buf, p*PageSize); err != nil {
					report("read: " + err.Error())
					return
				}
				if s := h.check(buf, p, snap); s != "" {
					report(s)
				}
			}
		}()
	}
	for w := 0; w < o.owners; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 2))
			buf := make([]byte, PageSize)
			ver := make([]uint64, o.diskPages)
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Owner w has the pages p with p%owners == w, mostly hot ones.
				p := hotPage(rng, o.diskPages)
				p -= p % int64(o.owners)
				p += int64(w)
				if p >= o.diskPages {
					continue
				}
				ver[p]++
				v := ver[p]
				if o.discard && rng.IntN(8) == 0 {
					h.discStart[p].Store(v)
					if err := c.Discard(p*PageSize, PageSize); err != nil {
						report("discard: " + err.Error())
						return
					}
				} else {
					fillPage(buf, p, v)
					if _, err := c.WriteAt(buf, p*PageSize); err != nil {
						report("write: " + err.Error())
						return
					}
				}
				h.done[p].Store(v)
				time.Sleep(time.Duration(rng.IntN(50)) * time.Microsecond)
			}
		}()
	}
	if o.invalidate {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Microsecond):
				}
				c.Invalidate()
			}
		}()
	}
	if o.sync {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Millisecond):
				}
				if err := c.Sync(); err != nil {
					report("sync: " + err.Error())
					return
				}
			}
		}()
	}
	time.Sleep(o.dur)
	close(stop)
	wg.Wait()
	st := c.Stats()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := bad.Load(); n != 0 {
		t.Errorf("%d bad reads; the first: %v", n, firstBad.Load())
	}
	// After Close every page on the disk holds the last operation's outcome.
	disk := readDisk(t, path, o.diskPages)
	for p := range o.diskPages {
		pg := disk[p*PageSize : (p+1)*PageSize]
		v := h.done[p].Load()
		if v != 0 && h.discStart[p].Load() == v {
			for _, x := range pg {
				if x != 0 {
					t.Errorf("page %d on disk after Close: not zeros after its last operation, a discard", p)
					break
				}
			}
			continue
		}
		if got, ok := parsePage(pg, p); !ok || got != v {
			t.Errorf("page %d on disk after Close: version %d (intact %v); want %d", p, got, ok, v)
		}
	}
	return st
}

func stressDur() time.Duration {
	if testing.Short() {
		return 300 * time.Millisecond
	}
	return 2 * time.Second
}

// TestPinnedHitsUnderEvictionPressure: a cache of 8 pages over 256, eight
// readers and two writers: hits pin, misses evict around the pins.
func TestPinnedHitsUnderEvictionPressure(t *testing.T) {
	st := runPinStress(t, stressOpts{diskPages: 256, cachePages: 8, readers: 8, owners: 2, dur: stressDur()})
	if st.ReadHits == 0 || st.Evictions == 0 {
		t.Errorf("read hits %d, evictions %d: the stress missed its point", st.ReadHits, st.Evictions)
	}
	t.Logf("hits %d misses %d evictions %d overcommit %d waits %d", st.ReadHits, st.ReadMisses, st.Evictions, st.Overcommit, st.BufferWaits)
}

// TestPinnedHitsWithDiscardInvalidateSync: the same with discards of the
// written pages, Invalidate and Sync running.
func TestPinnedHitsWithDiscardInvalidateSync(t *testing.T) {
	st := runPinStress(t, stressOpts{diskPages: 64, cachePages: 16, readers: 6, owners: 2,
		discard: true, invalidate: true, sync: true, dur: stressDur()})
	t.Logf("hits %d misses %d evictions %d overcommit %d invalidated %d discarded %d", st.ReadHits, st.ReadMisses,
		st.Evictions, st.Overcommit, st.Invalidated, st.Discarded)
}

// TestCloseWhileHitsCopy: Close while readers hit: each read either
// fails with ErrClosed or returns an intact page; nothing races.
func TestCloseWhileHitsCopy(t *testing.T) {
	c := hitCache(t, 16)
	for p := range int64(16) {
		readPage(t, c, p)
	}
	var wg sync.WaitGroup
	var bad atomic.Int64
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, PageSize)
			for i := 0; ; i++ {
				p := int64(i*7+r) % 16
				_, err := c.ReadAt(buf, p*PageSize)
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					bad.Add(1)
					return
				}
				if _, ok := parsePage(buf, p); !ok {
					bad.Add(1)
				}
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("readers still hitting 5 s after Close: hits do not see the cache closed")
	}
	if bad.Load() != 0 {
		t.Errorf("%d bad reads around Close", bad.Load())
	}
}

// TestPinnedPrefixHitsWithReadAhead: sequential runs of reads of less
// than a page, with read-ahead on, among random whole-page reads, writes
// and discards, in a cache of 32 pages over 256.
func TestPinnedPrefixHitsWithReadAhead(t *testing.T) {
	st := runPinStress(t, stressOpts{diskPages: 256, cachePages: 32, readers: 6, owners: 2,
		discard: true, readAheadKB: 32, partial: true, dur: stressDur()})
	if st.ReadAheadPages == 0 || st.ReadHits == 0 {
		t.Errorf("read-ahead pages %d, read hits %d: the stress missed its point", st.ReadAheadPages, st.ReadHits)
	}
	t.Logf("hits %d misses %d read-ahead %d evictions %d overcommit %d", st.ReadHits, st.ReadMisses, st.ReadAheadPages, st.Evictions, st.Overcommit)
}

// TestPinnedHitsWithCollidingHints: a cache of 4 pages (4 hint slots) over
// 64, so that most pages share a slot with others cached or just evicted:
// hits through stale and colliding hints still read their own page.
func TestPinnedHitsWithCollidingHints(t *testing.T) {
	st := runPinStress(t, stressOpts{diskPages: 64, cachePages: 4, readers: 6, owners: 2, dur: stressDur()})
	t.Logf("hits %d misses %d evictions %d overcommit %d", st.ReadHits, st.ReadMisses, st.Evictions, st.Overcommit)
}

// hotPage picks a page of a disk of pages pages: half the time in its hot
// first quarter (hits), else anywhere (misses that evict).
func hotPage(rng *rand.Rand, pages int64) int64 {
	if rng.IntN(2) == 0 {
		return rng.Int64N(max(1, pages/4))
	}
	return rng.Int64N(pages)
}
