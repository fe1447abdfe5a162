package bcache

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// Invalidate and evictOne's second turn (cache.go). Invalidate's walk of
// the clean list visits the buffers that were on it when it began, between
// its cursor and its end marker; a buffer moved to the list's tail goes
// behind the end marker and is not visited. A hit no longer moves its
// buffer: evictOne does, for a referenced buffer, when some other page
// misses. So a miss elsewhere while Invalidate runs must not let a clean,
// unlocked buffer that was cached when Invalidate began, and that nobody
// has read since, survive it.

// cachedPages returns the pages of ps that are cached.
func cachedPages(c *Cache, ps []int64) []int64 {
	c.lock()
	defer c.unlock()
	var out []int64
	for _, p := range ps {
		if _, ok := c.index[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

// TestInvalidateDropsReferencedPagesAMissPassesOver: pages 0-3 cached, 0
// and 1 hit (referenced); Invalidate starts, and before its first visit a
// miss in the full cache evicts (the miss's evictOne runs in the walk's
// step hook, under the cache lock, where a concurrent miss would run
// between two of the walk's steps). Invalidate must still drop every page
// that was cached when it began.
func TestInvalidateDropsReferencedPagesAMissPassesOver(t *testing.T) {
	c := hitCache(t, 4)
	for p := range int64(4) {
		readPage(t, c, p)
	}
	readPage(t, c, 0) // hits: referenced
	readPage(t, c, 1)
	var once sync.Once
	c.stepHook = func(*buffer) {
		once.Do(func() {
			if !c.evictOne() {
				t.Error("evictOne evicted nothing from a full cache of unlocked clean pages")
			}
		})
	}
	r := c.invalidate()
	c.stepHook = nil
	if left := cachedPages(c, []int64{0, 1, 2, 3}); len(left) != 0 {
		t.Errorf("after Invalidate: pages %v still cached (clean, unlocked, not read since it began); dropped %d", left, r.Dropped)
	}
}

// TestInvalidateDropsAllWhileOthersMiss: the same with real misses. The
// first 64 pages are cached and half of them hit; Invalidate runs with the
// lock released after every step while four readers miss on other pages
// (keeping the cache full, so their misses evict). None of the first 64
// pages, never read after Invalidate began, may be cached once it returns.
func TestInvalidateDropsAllWhileOthersMiss(t *testing.T) {
	q, _ := openQueue(t, makeDisk(t, 1024), nil)
	c, err := New(q, Config{Pages: 64, ReadAheadKB: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, PageSize)
	var first []int64
	for p := range int64(64) {
		first = append(first, p)
	}
	for round := 0; round < 20; round++ {
		for _, p := range first {
			if _, err := c.ReadAt(buf, p*PageSize); err != nil {
				t.Fatal(err)
			}
		}
		for p := int64(0); p < 64; p += 2 {
			if _, err := c.ReadAt(buf, p*PageSize); err != nil { // hits
				t.Fatal(err)
			}
		}
		if left := cachedPages(c, first); len(left) != 64 {
			continue // a reader's miss evicted some: not the setup
		}
		c.needResched = func() bool { return true }
		var wg sync.WaitGroup
		stop := make(chan struct{})
		var misses atomic.Int64
		for r := int64(0); r < 4; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := make([]byte, PageSize)
				for p := 64 + r; ; p = 64 + (p-64+4)%960 {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := c.ReadAt(b, p*PageSize); err != nil {
						t.Error(err)
						return
					}
					misses.Add(1)
				}
			}()
		}
		for misses.Load() == 0 {
			runtime.Gosched()
		}
		c.invalidate()
		close(stop)
		wg.Wait()
		c.needResched = nil
		if left := cachedPages(c, first); len(left) != 0 {
			t.Fatalf("round %d: after Invalidate, %d of the 64 pages cached when it began, none read since, still cached: %v", round, len(left), left)
		}
	}
}
