package bcache

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestStatsCountWhatTheyName: each counter of a known sequence of calls,
// with read-ahead off, is exactly what its doc says: read hits count reads
// served from the cache and not writes to cached pages, read misses the
// pages reads fetched, PagesRead those plus partial-write fills, Hits and
// Misses every lookup, Throttled WriteAt calls that wrote back.
func TestStatsCountWhatTheyName(t *testing.T) {
	path := makeDisk(t, 64)
	q, _ := openQueue(t, path, nil)
	c, err := New(q, Config{Pages: 20, ReadAheadKB: -1})
	if err != nil {
		t.Fatal(err)
	}
	c.stopFlusher() // only the writers write back: the counts are exact
	buf := make([]byte, PageSize)
	for p := range int64(4) { // 4 whole-page writes: 4 misses, no device read
		fillPage(buf, p, 1)
		c.WriteAt(buf, p*PageSize)
	}
	for p := range int64(4) { // rewrites of cached pages: hits, but no read hits
		fillPage(buf, p, 2)
		c.WriteAt(buf, p*PageSize)
	}
	for p := range int64(4) { // reads of cached pages: read hits
		c.ReadAt(buf, p*PageSize)
	}
	c.ReadAt(buf, 10*PageSize) // a read miss
	c.ReadAt(buf, 10*PageSize) // then a read hit
	// A partial write: a fill, not a read miss. Its page is the fifth
	// dirty one of a 20-page cache, past the hard threshold (4 pages): the
	// call writes back itself, once.
	c.WriteAt(buf[:512], 11*PageSize)
	st := c.Stats()
	want := Stats{Hits: 9, Misses: 6, ReadHits: 5, ReadMisses: 1, PagesRead: 2, Throttled: 1}
	got := Stats{Hits: st.Hits, Misses: st.Misses, ReadHits: st.ReadHits, ReadMisses: st.ReadMisses, PagesRead: st.PagesRead, Throttled: st.Throttled}
	if got != want {
		t.Fatalf("counters %+v\nwant     %+v", got, want)
	}
	// One WriteAt of 8 pages: past the hard threshold, it writes back,
	// and counts once.
	big := make([]byte, 8*PageSize)
	c.WriteAt(big, 20*PageSize)
	if st := c.Stats(); st.Throttled != 2 || st.WrittenThrottle < 5+8 {
		t.Fatalf("throttled %d, %d pages written by throttling: want 2 throttled WriteAt calls that wrote the 13 pages", st.Throttled, st.WrittenThrottle)
	}
	c.Close()
}

// TestStatsReadableWhileIORuns: one goroutine reads Stats continuously
// while 16 do reads, writes, discards and syncs (run under -race), and
// every snapshot is consistent.
func TestStatsReadableWhileIORuns(t *testing.T) {
	const pages = 256
	path := makeDisk(t, pages)
	q, _ := openQueue(t, path, nil)
	c, err := New(q, Config{Pages: 128})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var reader sync.WaitGroup
	var snaps int
	var bad string
	reader.Go(func() {
		for {
			st := c.Stats()
			snaps++
			if st.Dirty < 0 || st.Writeback < 0 || st.ReadHits+st.ReadMisses > st.Hits+st.Misses || st.Dirty > st.Pages {
				bad = "inconsistent snapshot"
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	})
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			buf := make([]byte, 2*PageSize)
			for range 60 {
				p := rng.Int64N(pages - 2)
				switch rng.IntN(8) {
				case 0:
					c.Discard(p*PageSize, PageSize)
				case 1:
					c.Sync()
				case 2, 3:
					c.WriteAt(buf[:rng.IntN(len(buf))+1], p*PageSize)
				default:
					c.ReadAt(buf, p*PageSize)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	reader.Wait()
	if bad != "" || snaps == 0 {
		t.Fatalf("%s (%d snapshots)", bad, snaps)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
