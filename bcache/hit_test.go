package bcache

import (
	"runtime"
	"testing"

	"github.com/blkq-dev/blkq"
)

// The page-cache hit's own path (readHit, rw.go): it must do for a hit
// what the general path does, and cost no allocation.

// hitCache returns a cache of pages pages, read-ahead off, over a file of
// 16 pages, each holding version 0.
func hitCache(t *testing.T, pages int) *Cache {
	t.Helper()
	q, _ := openQueue(t, makeDisk(t, 16), nil)
	c, err := New(q, Config{Pages: pages, ReadAheadKB: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func readPage(t *testing.T, c *Cache, p int64) {
	t.Helper()
	buf := make([]byte, PageSize)
	if _, err := c.ReadAt(buf, p*PageSize); err != nil {
		t.Fatal(err)
	}
	if ver, ok := parsePage(buf, p); !ok || ver != 0 {
		t.Fatalf("page %d: read a wrong page", p)
	}
}

// TestReadHitAllocatesNothing: a read of a cached page, through ReadAt
// and through StartRead as a client, allocates nothing (issue 13: a hit
// costs little more than the copy).
func TestReadHitAllocatesNothing(t *testing.T) {
	c := hitCache(t, 16)
	readPage(t, c, 3)
	buf := make([]byte, 512)
	if a := testing.AllocsPerRun(100, func() {
		if n, err := c.ReadAt(buf, 3*PageSize+1024); n != len(buf) || err != nil {
			t.Fatalf("ReadAt: %d, %v", n, err)
		}
	}); a != 0 {
		t.Errorf("ReadAt of a cached page: %v allocations; want 0", a)
	}
	cl := c.NewClient(blkq.NewTask(100, "reader"))
	var got int
	done := func(n int, err error) {
		if err != nil {
			t.Fatal(err)
		}
		got = n
	}
	if a := testing.AllocsPerRun(100, func() { c.StartRead(cl, buf, 3*PageSize, done) }); a != 0 {
		t.Errorf("StartRead of a cached page: %v allocations; want 0", a)
	}
	if got != len(buf) {
		t.Errorf("StartRead read %d bytes; want %d", got, len(buf))
	}
}

// TestReadHitCounts: a hit counts as the general path counts it (one
// lookup hit, one page served from the cache), and a read across two
// cached pages, which takes the general path, counts two of each.
func TestReadHitCounts(t *testing.T) {
	c := hitCache(t, 16)
	readPage(t, c, 4)
	readPage(t, c, 5)
	before := c.Stats()
	readPage(t, c, 4)
	st := c.Stats()
	if st.Hits-before.Hits != 1 || st.ReadHits-before.ReadHits != 1 || st.Misses != before.Misses || st.ReadMisses != before.ReadMisses {
		t.Errorf("a hit counted hits %d, read hits %d, misses %d, read misses %d; want 1, 1, 0, 0",
			st.Hits-before.Hits, st.ReadHits-before.ReadHits, st.Misses-before.Misses, st.ReadMisses-before.ReadMisses)
	}
	buf := make([]byte, PageSize)
	if _, err := c.ReadAt(buf, 4*PageSize+PageSize/2); err != nil {
		t.Fatal(err)
	}
	st2 := c.Stats()
	if st2.Hits-st.Hits != 2 || st2.ReadHits-st.ReadHits != 2 || st2.Misses != st.Misses {
		t.Errorf("a read across two cached pages counted hits %d, read hits %d, misses %d; want 2, 2, 0",
			st2.Hits-st.Hits, st2.ReadHits-st.ReadHits, st2.Misses-st.Misses)
	}
}

// TestReadHitTouchesLRU: a hit moves its page to the back of the clean
// LRU, so the next eviction takes the other page.
func TestReadHitTouchesLRU(t *testing.T) {
	c := hitCache(t, 2)
	readPage(t, c, 0)
	readPage(t, c, 1)
	readPage(t, c, 0) // a hit: page 1 is now the least recently used
	readPage(t, c, 2) // evicts page 1
	before := c.Stats()
	readPage(t, c, 0)
	if st := c.Stats(); st.Misses != before.Misses || st.Evictions != before.Evictions {
		t.Errorf("page 0, touched by a hit, was evicted (misses +%d, evictions +%d)",
			st.Misses-before.Misses, st.Evictions-before.Evictions)
	}
	readPage(t, c, 1)
	if st := c.Stats(); st.Misses != before.Misses+1 {
		t.Errorf("page 1 was kept; want it evicted for page 2")
	}
}

// TestMissReusesEvictedPage: a miss in a full cache takes over the data
// page of the buffer it evicts (no page allocated per miss), and every
// page still reads its own data.
func TestMissReusesEvictedPage(t *testing.T) {
	c := hitCache(t, 4)
	for p := range int64(16) { // fill, and evict 12
		readPage(t, c, p)
	}
	const rounds = 8
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range rounds {
		for p := range int64(16) {
			readPage(t, c, p) // readPage allocates its buffer: PageSize bytes
		}
	}
	runtime.ReadMemStats(&after)
	st := c.Stats()
	if st.Evictions < 16*rounds {
		t.Fatalf("%d evictions; want every read to miss", st.Evictions)
	}
	// Per miss: the test's own buffer, and the blocking call's small
	// allocations (channel, client, operation: under 1 KiB); a fresh
	// data page would add PageSize more.
	if per := (after.TotalAlloc - before.TotalAlloc) / (16 * rounds); per > PageSize+PageSize/2 {
		t.Errorf("%d bytes allocated per miss; want the evicted page reused", per)
	}
}

// TestHitGivesSecondTurn: a hit marks its buffer referenced instead of
// moving it on the LRU, and eviction gives a referenced buffer a second
// turn: with pages 0 and 1 cached and 0 hit since, a miss evicts 1; with
// both hit, the one hit first (0) goes, as in strict LRU order.
func TestHitGivesSecondTurn(t *testing.T) {
	cached := func(c *Cache, p int64) bool {
		c.lock()
		defer c.unlock()
		_, ok := c.index[p]
		return ok
	}
	c := hitCache(t, 2)
	readPage(t, c, 0)
	readPage(t, c, 1)
	readPage(t, c, 0) // a hit: referenced
	readPage(t, c, 2) // a miss: evicts 1
	if !cached(c, 0) || cached(c, 1) || !cached(c, 2) {
		t.Errorf("after hitting 0: cached 0 %v, 1 %v, 2 %v; want true, false, true", cached(c, 0), cached(c, 1), cached(c, 2))
	}

	c = hitCache(t, 2)
	readPage(t, c, 0)
	readPage(t, c, 1)
	readPage(t, c, 0)
	readPage(t, c, 1)
	readPage(t, c, 2) // both referenced: 0, hit first, goes
	if cached(c, 0) || !cached(c, 1) || !cached(c, 2) {
		t.Errorf("after hitting 0 then 1: cached 0 %v, 1 %v, 2 %v; want false, true, true", cached(c, 0), cached(c, 1), cached(c, 2))
	}
	if st := c.Stats(); st.Overcommit != 0 {
		t.Errorf("%d overcommits; want 0", st.Overcommit)
	}
}

// TestAllReferencedWindowEvictsWithoutOvercommit: with more cached pages
// than evictOne's window, all of them hit (referenced), misses still evict
// (each passes the window's pages over and takes the first one passed) and
// never add a page above the capacity; the pages evicted are the oldest.
func TestAllReferencedWindowEvictsWithoutOvercommit(t *testing.T) {
	const pages = WalkChunk + 8
	q, _ := openQueue(t, makeDisk(t, 2*pages), nil)
	c, err := New(q, Config{Pages: pages, ReadAheadKB: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for p := range int64(pages) {
		readPage(t, c, p)
	}
	for p := range int64(pages) {
		readPage(t, c, p) // hits: every page referenced
	}
	for p := int64(pages); p < pages+4; p++ {
		readPage(t, c, p) // misses
	}
	st := c.Stats()
	if st.Overcommit != 0 || st.Pages != pages || st.Evictions != 4 {
		t.Errorf("overcommit %d, pages %d, evictions %d; want 0, %d, 4", st.Overcommit, st.Pages, st.Evictions, pages)
	}
	c.lock()
	defer c.unlock()
	for p := range int64(pages) {
		_, ok := c.index[p]
		if want := p >= 4; ok != want {
			t.Errorf("page %d cached %v; want %v (the four oldest go)", p, ok, want)
		}
	}
}
