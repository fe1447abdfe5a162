package bcache

import (
	"sync"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

func newList(n int, first int64) (*blist, []*buffer) {
	l := new(blist)
	l.init()
	bs := make([]*buffer, n)
	for i := range bs {
		b := &buffer{page: first + int64(i)}
		b.buf = b
		l.pushBack(&b.node)
		bs[i] = b
	}
	return l, bs
}

func runWithin(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not complete within %v", what, d)
	}
}

// Test 2a: 10,000 items, each locked by someone just before the walk looks
// at it, a yield requested after every step, and others appending work to
// the list every time the lock is released. The walk still completes, in
// exactly one step per item present at its start, one item per hold, with
// every item moved aside in order and none of the new ones visited. (The
// jbd loop of 2004 restarted from the head after each yield and, with every
// buffer locked, never finished.)
func TestWalkAllBusyYieldEveryStep(t *testing.T) {
	const n = 10000
	var mu sync.Mutex
	src, bs := newList(n, 0)
	aside := new(blist)
	aside.init()
	added := 0
	w := &walk{
		src: src, aside: aside, lock: mu.Lock, unlock: mu.Unlock,
		before: func(b *buffer) { b.locked = true }, // someone got there first
		visit: func(b *buffer) verdict {
			if b.page >= n {
				t.Errorf("walk visited page %d, added after it began", b.page)
			}
			if b.locked {
				return vAside
			}
			return vKeep
		},
		yield: func() bool { return true },
		between: func() { // others keep adding work
			mu.Lock()
			b := &buffer{page: int64(n + added)}
			b.buf = b
			src.pushBack(&b.node)
			added++
			mu.Unlock()
		},
	}
	runWithin(t, 60*time.Second, "walk", w.run)
	if w.steps != n || w.maxPerHold != 1 || w.holds != n+1 {
		t.Errorf("steps %d, holds %d, max per hold %d; want %d, %d, 1", w.steps, w.holds, w.maxPerHold, n, n+1)
	}
	if aside.n != n || src.n != added {
		t.Errorf("aside %d items, src %d; want %d, %d", aside.n, src.n, n, added)
	}
	i := 0
	for nd := aside.front(); nd != nil; nd = aside.next(nd) {
		if nd.buf != bs[i] {
			t.Fatalf("aside item %d is page %d", i, nd.buf.page)
		}
		i++
	}
	for nd := src.front(); nd != nil; nd = src.next(nd) {
		if nd.buf == nil {
			t.Fatalf("a marker was left on the list")
		}
	}
}

// Two walks over the same list at once, each yielding at every step,
// stepping over each other's markers: both complete, every item is handled
// once, and each hold of each walk handles an item (stepping over the
// other's markers is not a step, so the cursors cannot leapfrog for ever).
func TestWalksInterleave(t *testing.T) {
	const n = 10000
	var mu sync.Mutex
	src, _ := newList(n, 0)
	asides := [2]*blist{new(blist), new(blist)}
	var ws [2]*walk
	for i := range ws {
		asides[i].init()
		ws[i] = &walk{src: src, aside: asides[i], lock: mu.Lock, unlock: mu.Unlock,
			visit: func(b *buffer) verdict { return vAside },
			yield: func() bool { return true },
		}
	}
	var wg sync.WaitGroup
	runWithin(t, 60*time.Second, "two walks", func() {
		for _, w := range ws {
			wg.Go(w.run)
		}
		wg.Wait()
	})
	if got := asides[0].n + asides[1].n; got != n || src.n != 0 || src.front() != nil {
		t.Errorf("items moved %d (of %d), left %d", got, n, src.n)
	}
	for i, w := range ws {
		if w.steps != asides[i].n || w.holds > w.steps+1 {
			t.Errorf("walk %d: %d steps in %d holds for %d items", i, w.steps, w.holds, asides[i].n)
		}
	}
	t.Logf("walks moved %d and %d items in %d and %d steps, stepping over %d and %d markers",
		asides[0].n, asides[1].n, ws[0].steps, ws[1].steps, ws[0].markers, ws[1].markers)
}

// Test 2b, through Sync itself: 10,000 dirty buffers, each locked by
// "someone" (the test) the moment Sync's walk reaches it, and a yield
// requested after every step. Sync's dirty-list walk moves them all aside
// one per hold; it then waits on each in turn on the busy list while the
// test unlocks them, and writes each exactly once.
func TestSyncAllBusyYieldEveryStep(t *testing.T) {
	const n = 10000
	clk := blkq.NewRealClock()
	dev := device.NewNull(clk, n*sectorsPerPage, 4)
	defer dev.Close()
	q, err := blkq.New(dev, clk, blkq.Config{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(q, Config{Pages: 2 * n, BackgroundRatio: 1, DirtyRatio: 1})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, PageSize)
	for p := range int64(n) {
		if _, err := c.WriteAt(buf, p*PageSize); err != nil {
			t.Fatal(err)
		}
	}
	var held []*buffer // locked by the test; appended under the cache lock
	marked := make(map[*buffer]bool)
	c.needResched = func() bool { return true }
	c.stepHook = func(b *buffer) {
		if !marked[b] && !b.locked {
			marked[b] = true
			b.locked = true
			held = append(held, b)
		}
	}
	type out struct {
		r   SyncResult
		err error
	}
	ch := make(chan out, 1)
	go func() {
		r, err := c.sync()
		ch <- out{r, err}
	}()
	for start := time.Now(); c.Stats().Busy < n; time.Sleep(time.Millisecond) {
		if time.Since(start) > 60*time.Second {
			t.Fatalf("Sync's dirty walk did not move every busy buffer aside: %+v", c.Stats())
		}
	}
	c.lock()
	locked := held
	c.unlock()
	for i := 0; i < len(locked); i += WalkChunk {
		c.lock()
		for _, b := range locked[i:min(i+WalkChunk, len(locked))] {
			c.unlockBuffer(b)
		}
		c.unlock()
	}
	var o out
	runWithin(t, 60*time.Second, "Sync", func() { o = <-ch })
	if o.err != nil {
		t.Fatal(o.err)
	}
	r := o.r
	t.Logf("Sync with every buffer busy and a yield at every step: %+v", r)
	if r.DirtyAtStart != n || r.Written != n || r.Written > 2*r.DirtyAtStart {
		t.Errorf("dirty at start %d, written %d; want %d, %d", r.DirtyAtStart, r.Written, n, n)
	}
	if r.MaxPerHold != 1 || r.Holds < 2*n {
		t.Errorf("max steps per hold %d, holds %d: want 1, at least %d", r.MaxPerHold, r.Holds, 2*n)
	}
	c.needResched, c.stepHook = nil, nil
	if st := c.Stats(); st.Dirty != 0 || st.Busy != 0 || st.WrittenSync != n || st.MovedAside != n {
		t.Errorf("after Sync: %+v", st)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
