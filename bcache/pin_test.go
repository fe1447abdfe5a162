package bcache

import (
	"sync"
	"testing"
	"time"
)

// Pins (pin.go): a write to a page waits for the hits copying from it, an
// eviction passes a pinned page over, and hits on one page do not wait for
// each other.

// pinPage pins page p's buffer, as a hit does, and returns it.
func pinPage(t *testing.T, c *Cache, p int64) *buffer {
	t.Helper()
	c.lock()
	defer c.unlock()
	b := c.index[p]
	if b == nil || !b.uptodate || b.locked {
		t.Fatalf("page %d: not a cached, uptodate, unlocked buffer", p)
	}
	c.pin(b)
	return b
}

// TestWriteWaitsForPins: a write of a pinned page does not start its copy
// until the last pin is released, and then completes with its data.
func TestWriteWaitsForPins(t *testing.T) {
	c := hitCache(t, 16)
	readPage(t, c, 2)
	b := pinPage(t, c, 2)
	pinPage(t, c, 2) // a second hit on the same page

	buf := make([]byte, PageSize)
	fillPage(buf, 2, 7)
	done := make(chan error, 1)
	go func() {
		_, err := c.WriteAt(buf, 2*PageSize)
		done <- err
	}()
	// The write must be parked behind the pins: the buffer locked by it,
	// its continuation kept as the drain.
	waitFor(t, func() bool {
		c.lock()
		defer c.unlock()
		return b.locked && b.drain != nil
	})
	select {
	case err := <-done:
		t.Fatalf("the write completed (%v) while two hits held pins", err)
	default:
	}
	c.unpin(b)
	c.lock()
	v, parked := b.pins.v.Load(), b.drain != nil
	c.unlock()
	if v != 1|pinDrain || !parked {
		t.Fatalf("after one of two releases: pins %#x, write parked %v; want %#x, true", v, parked, 1|pinDrain)
	}
	select {
	case err := <-done:
		t.Fatalf("the write completed (%v) while a hit held a pin", err)
	default:
	}
	c.unpin(b)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := make([]byte, PageSize)
	if _, err := c.ReadAt(got, 2*PageSize); err != nil {
		t.Fatal(err)
	}
	if ver, ok := parsePage(got, 2); !ok || ver != 7 {
		t.Errorf("page 2 after the write: version %d (ok %v); want 7", ver, ok)
	}
	if b.pins.v.Load() != 0 || b.drain != nil {
		t.Errorf("pins %#x, drain set %v after the last release; want 0, false", b.pins.v.Load(), b.drain != nil)
	}
}

// TestEvictionPassesPinnedPages: with the cache full, a miss evicts the
// least recently used page that no hit pins, not the pinned one, whose
// data stays what the hit is copying.
func TestEvictionPassesPinnedPages(t *testing.T) {
	c := hitCache(t, 2)
	readPage(t, c, 0)
	readPage(t, c, 1)
	b := pinPage(t, c, 0) // page 0 is the least recently used
	readPage(t, c, 5)     // a miss: must evict page 1
	c.lock()
	_, has0 := c.index[0]
	_, has1 := c.index[1]
	c.unlock()
	if !has0 || has1 {
		t.Errorf("after a miss with page 0 pinned: page 0 cached %v, page 1 cached %v; want true, false", has0, has1)
	}
	if ver, ok := parsePage(b.data, 0); !ok || ver != 0 {
		t.Errorf("the pinned page's data changed under the pin")
	}
	c.unpin(b)
}

// TestConcurrentHitsAndWrites: readers hitting one page while writers
// rewrite it always read a whole version (never a torn page); the race
// detector (go test -race) checks that no copy overlaps a write.
func TestConcurrentHitsAndWrites(t *testing.T) {
	c := hitCache(t, 16)
	readPage(t, c, 3)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, PageSize)
			for v := uint64(1); ; v++ {
				select {
				case <-stop:
					return
				default:
				}
				fillPage(buf, 3, v)
				if _, err := c.WriteAt(buf, 3*PageSize); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	var torn int
	var mu sync.Mutex
	var rg sync.WaitGroup
	for r := 0; r < 4; r++ {
		rg.Add(1)
		go func() {
			defer rg.Done()
			buf := make([]byte, PageSize)
			for i := 0; i < 2000; i++ {
				if _, err := c.ReadAt(buf, 3*PageSize); err != nil {
					t.Error(err)
					return
				}
				if _, ok := parsePage(buf, 3); !ok {
					mu.Lock()
					torn++
					mu.Unlock()
				}
			}
		}()
	}
	rg.Wait()
	close(stop)
	wg.Wait()
	if torn != 0 {
		t.Errorf("%d reads of 8000 saw a torn page", torn)
	}
	if st := c.Stats(); st.ReadHits == 0 {
		t.Errorf("no read hit in 8000 reads of a cached page")
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("timed out waiting")
}
