package bcache

import (
	"errors"
	"runtime"
	"sync"
	"syscall"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// enospcDev fails every write with ENOSPC, without writing, while failing
// is set, as a full file system does.
type enospcDev struct {
	blkq.Device
	complete func(*blkq.Request, error)
	mu       sync.Mutex
	failing  bool
	hold     bool     // keep the failures back until release
	held     []func() // held failures
}

func (d *enospcDev) Attach(complete func(*blkq.Request, error)) {
	d.complete = complete
	d.Device.Attach(complete)
}

func (d *enospcDev) Issue(rq *blkq.Request) {
	d.mu.Lock()
	fail := d.failing && rq.Op == blkq.OpWrite
	d.mu.Unlock()
	if !fail {
		d.Device.Issue(rq)
		return
	}
	err := &device.IOError{Path: d.Name(), Op: rq.Op, Offset: int64(rq.Sector) << blkq.SectorShift, Err: syscall.ENOSPC}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hold {
		d.held = append(d.held, func() { d.complete(rq, err) })
		return
	}
	go d.complete(rq, err) // never from inside Issue
}

func (d *enospcDev) release() {
	d.mu.Lock()
	held := d.held
	d.hold, d.held = false, nil
	d.mu.Unlock()
	for _, f := range held {
		f()
	}
}

func (d *enospcDev) setFailing(v bool) {
	d.mu.Lock()
	d.failing = v
	d.mu.Unlock()
}

// TestWriteBackErrorReachesSyncWithItsErrno: an ENOSPC during write-back
// reaches the caller of Sync as ENOSPC (not EIO); it is reported once, so
// the next Sync with nothing failing succeeds; an error of background
// write-back reaches the next Sync, or Close; and two Syncs whose writes
// both failed both fail, as fsyncs on two descriptors do.
func TestWriteBackErrorReachesSyncWithItsErrno(t *testing.T) {
	const pages = 256
	path := makeDisk(t, pages)
	var fd *enospcDev
	q, _ := openQueue(t, path, func(d blkq.Device) blkq.Device { fd = &enospcDev{Device: d}; return fd })
	c, err := New(q, Config{Pages: 64})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, PageSize)
	write := func(from, to int64) {
		t.Helper()
		for p := from; p < to; p++ {
			fillPage(buf, p, 1)
			if _, err := c.WriteAt(buf, p*PageSize); err != nil {
				t.Fatalf("WriteAt of page %d: %v", p, err)
			}
		}
	}
	checkENOSPC := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EIO) {
			t.Fatalf("%s returned %v, want the device's ENOSPC", what, err)
		}
	}

	// Sync's own writes fail.
	fd.setFailing(true)
	write(0, 4)
	checkENOSPC("Sync", c.Sync())
	fd.setFailing(false)
	if err := c.Sync(); err != nil {
		t.Fatalf("a second Sync, with nothing failed since, returned %v", err)
	}
	if st := c.Stats(); st.WriteErrors != 4 {
		t.Fatalf("%d write errors counted, want 4", st.WriteErrors)
	}

	// Background and throttled write-back fail: 60 dirty pages of a
	// 64-page cache are past both ratios; the error waits for Sync.
	fd.setFailing(true)
	write(0, 60)
	if st := c.Stats(); st.WrittenFlusher+st.WrittenThrottle == 0 {
		t.Fatal("no background or throttled write-back ran")
	}
	fd.setFailing(false)
	checkENOSPC("Sync after failed background write-back", c.Sync())

	// Two Syncs running when the writes fail both report it: the second
	// begins while the first one's writes are held at the device, and
	// waits for them.
	fd.setFailing(true)
	write(100, 104)
	fd.mu.Lock()
	fd.hold = true
	fd.mu.Unlock()
	syncs := c.Stats().Syncs
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = c.Sync() })
		for {
			st := c.Stats()
			if st.Syncs == syncs+int64(i)+1 && st.Writeback == 4 {
				break
			}
			runtime.Gosched()
		}
	}
	fd.release()
	wg.Wait()
	for _, err := range errs {
		checkENOSPC("each of two Syncs running when writes failed", err)
	}
	if err := c.Sync(); err != nil {
		t.Fatalf("a Sync begun after both had reported the error returned %v", err)
	}

	// Close reports what no Sync has.
	fd.setFailing(true)
	write(200, 204)
	c.writeSome(srcFlusher, true) // as the flusher does, waiting for the writes
	fd.setFailing(false)
	checkENOSPC("Close", c.Close())
}

// TestOnWriteErrorNamesEachLostPage: Config.OnWriteError is told of every
// page whose write-back failed, once, with the client whose write dirtied
// it and the device's errno; pages written back without an error are not
// reported.
func TestOnWriteErrorNamesEachLostPage(t *testing.T) {
	path := makeDisk(t, 64)
	var fd *enospcDev
	q, _ := openQueue(t, path, func(d blkq.Device) blkq.Device { fd = &enospcDev{Device: d}; return fd })
	var mu sync.Mutex
	lost := map[int64]*Client{}
	calls := 0
	c, err := New(q, Config{Pages: 64, OnWriteError: func(we WriteError) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if !errors.Is(we.Err, syscall.ENOSPC) {
			t.Errorf("page at %d: error %v, want the device's ENOSPC", we.Off, we.Err)
		}
		lost[we.Off] = we.Writer
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := c.NewClient(blkq.NewTask(1, "a")), c.NewClient(blkq.NewTask(2, "b"))
	write := func(cl *Client, page int64) {
		t.Helper()
		buf := make([]byte, PageSize)
		fillPage(buf, page, 1)
		done := make(chan error, 1)
		c.StartWrite(cl, buf, page*PageSize, func(_ int, err error) { done <- err })
		if err := <-done; err != nil {
			t.Fatalf("write of page %d: %v", page, err)
		}
	}
	write(a, 1)
	write(b, 2)
	if err := c.Sync(); err != nil { // written back: nothing lost
		t.Fatal(err)
	}
	fd.setFailing(true)
	write(a, 3)
	write(b, 4)
	write(a, 4) // a dirtied page 4 last
	if err := c.Sync(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Sync: %v, want ENOSPC", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls != 2 || len(lost) != 2 || lost[3*PageSize] != a || lost[4*PageSize] != a {
		t.Fatalf("%d calls, lost %v: want pages 3 and 4, each once, written last by a (%p)", calls, lost, a)
	}
}
