package bcache

import (
	"sync"
	"sync/atomic"
	"testing"

	"blkq"
)

// raCounter counts the queue's read bios by kind.
type raCounter struct{ ra, sync atomic.Int64 }

func (c *raCounter) Trace(e *blkq.Event) {
	if e.Action != blkq.ActQueue || e.Op != blkq.OpRead {
		return
	}
	if e.Flags&blkq.FlagReadAhead != 0 {
		c.ra.Add(1)
	} else {
		c.sync.Add(1)
	}
}

// TestReadAheadSequential: a sequential reader of 1024 pages gets all but
// a few of them from read-ahead bios (128 KiB windows), reads the right
// data, and a random reader gets none.
func TestReadAheadSequential(t *testing.T) {
	const pages = 1024
	path := makeDisk(t, pages)
	q, _ := openQueue(t, path, nil)
	var n raCounter
	q.AddTracer(&n)
	c, err := New(q, Config{})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, PageSize)
	for p := range int64(pages) {
		if _, err := c.ReadAt(buf, p*PageSize); err != nil {
			t.Fatal(err)
		}
		if ver, ok := parsePage(buf, p); !ok || ver != 0 {
			t.Fatalf("page %d: read a wrong page", p)
		}
	}
	st := c.Stats()
	if n.ra.Load() < pages-40 || n.sync.Load() > 40 || st.ReadAheadPages != n.ra.Load() {
		t.Fatalf("read-ahead bios %d, synchronous reads %d, stats %d pages read ahead: want nearly all %d pages read ahead",
			n.ra.Load(), n.sync.Load(), st.ReadAheadPages, pages)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	q2, _ := openQueue(t, path, nil)
	var m raCounter
	q2.AddTracer(&m)
	c2, _ := New(q2, Config{})
	for i := range int64(200) {
		p := (i * 389) % pages // no two consecutive
		if _, err := c2.ReadAt(buf, p*PageSize); err != nil {
			t.Fatal(err)
		}
	}
	if m.ra.Load() != 0 {
		t.Fatalf("random reads issued %d read-ahead bios", m.ra.Load())
	}
	c2.Close()
}

// TestReadAheadDroppedUnderPressure: with a pool of 4 requests and 16
// sequential readers, read-ahead bios are dropped (fair: below the batch)
// and every reader still reads the right data: a dropped page is read
// synchronously when the reader reaches it.
func TestReadAheadDroppedUnderPressure(t *testing.T) {
	const pages = 4096
	path := makeDisk(t, pages)
	q, _ := openQueue(t, path, nil)
	if err := q.SetAttr("nr_requests", "4"); err != nil {
		t.Fatal(err)
	}
	c, err := New(q, Config{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var bad atomic.Int64
	for r := range int64(16) {
		wg.Go(func() {
			buf := make([]byte, PageSize)
			for p := r * 256; p < (r+1)*256; p++ {
				if _, err := c.ReadAt(buf, p*PageSize); err != nil {
					bad.Add(1)
					return
				}
				if _, ok := parsePage(buf, p); !ok {
					bad.Add(1)
				}
			}
		})
	}
	wg.Wait()
	st := c.Stats()
	if bad.Load() != 0 {
		t.Fatalf("%d bad reads", bad.Load())
	}
	if st.ReadAheadDropped == 0 || st.ReadAheadPages == 0 {
		t.Fatalf("read ahead %d pages, %d dropped: want some of each under pressure", st.ReadAheadPages, st.ReadAheadDropped)
	}
	c.Close()
}
