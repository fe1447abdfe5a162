package bcache

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkq-dev/blkq"
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
	q, d := openQueue(t, path, nil)
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
	d.Close() // it holds the file's lock

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

// holdDev holds request completions back while hold is set.
type holdDev struct {
	blkq.Device
	mu        sync.Mutex
	hold      bool
	readsOnly bool // hold only reads
	held      []func()
}

func (d *holdDev) Attach(complete func(*blkq.Request, error)) {
	d.Device.Attach(func(rq *blkq.Request, err error) {
		d.mu.Lock()
		if d.hold && (!d.readsOnly || rq.Op == blkq.OpRead) {
			d.held = append(d.held, func() { complete(rq, err) })
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
		complete(rq, err)
	})
}

func (d *holdDev) release() {
	d.mu.Lock()
	d.hold = false
	held := d.held
	d.held = nil
	d.mu.Unlock()
	for _, f := range held {
		f()
	}
}

// TestReadAheadDroppedUnderPressure: with every read request in use, a
// sequential reader's read-ahead is dropped at once (it does not sleep),
// and the pages it would have read are read when the reader gets there,
// with the right data.
func TestReadAheadDroppedUnderPressure(t *testing.T) {
	const pages = 256
	path := makeDisk(t, pages)
	var hd *holdDev
	q, _ := openQueue(t, path, func(d blkq.Device) blkq.Device { hd = &holdDev{Device: d}; return hd })
	if err := q.SetAttr("nr_requests", "4"); err != nil {
		t.Fatal(err)
	}
	c, err := New(q, Config{})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, PageSize)
	for p := range int64(2) { // pages 0 and 1 cached (dirty): reading them needs no request
		fillPage(buf, p, 0)
		if _, err := c.WriteAt(buf, p*PageSize); err != nil {
			t.Fatal(err)
		}
	}
	hd.mu.Lock()
	hd.hold = true
	hd.mu.Unlock()
	var wg sync.WaitGroup
	for i := range 4 { // fill the read pool with reads that do not complete yet
		wg.Go(func() {
			b := make([]byte, PageSize)
			q.ReadAt(b, int64(200+i)*PageSize)
		})
	}
	for q.Pool().Free[blkq.DirRead] > 0 {
		runtime.Gosched()
	}
	for p := range int64(2) { // the second read continues the stream: read-ahead
		if _, err := c.ReadAt(buf, p*PageSize); err != nil {
			t.Fatal(err)
		}
	}
	st := c.Stats()
	if st.ReadAheadPages == 0 || st.ReadAheadDropped != st.ReadAheadPages {
		t.Fatalf("read ahead %d pages, %d dropped: with no request free, want all dropped", st.ReadAheadPages, st.ReadAheadDropped)
	}
	hd.release()
	wg.Wait()
	for p := int64(2); p < 40; p++ {
		if _, err := c.ReadAt(buf, p*PageSize); err != nil {
			t.Fatal(err)
		}
		if _, ok := parsePage(buf, p); !ok {
			t.Fatalf("page %d: wrong data after a dropped read-ahead", p)
		}
	}
	c.Close()
}
