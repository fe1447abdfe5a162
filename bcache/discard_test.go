package bcache

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// TestDiscardDropsAndZeroes: Discard drops the whole pages of its range,
// dirty or not, so that nothing of them is written back afterwards, and
// zeroes the covered part of a page it only partly covers.
func TestDiscardDropsAndZeroes(t *testing.T) {
	path := makeDisk(t, 16)
	q, _ := openQueue(t, path, nil)
	c, err := New(q, Config{})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, PageSize)
	for p := range int64(4) {
		fillPage(buf, p, 1)
		if _, err := c.WriteAt(buf, p*PageSize); err != nil {
			t.Fatal(err)
		}
	}
	// Pages 1 and 2 whole, and the first 512 bytes of page 3.
	if err := c.Discard(PageSize, 2*PageSize+512); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if st.Discarded != 2 || st.Dirty != 2 {
		t.Fatalf("discarded %d, dirty %d: want pages 1 and 2 dropped, 0 and 3 still dirty", st.Discarded, st.Dirty)
	}
	if _, err := c.ReadAt(buf, 3*PageSize); err != nil {
		t.Fatal(err)
	}
	for i := range 512 {
		if buf[i] != 0 {
			t.Fatalf("page 3 byte %d = %d after the discard of its first 512 bytes, want 0", i, buf[i])
		}
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	if st := c.Stats(); st.WrittenSync != 2 {
		t.Fatalf("Sync wrote %d pages, want only the 2 left dirty", st.WrittenSync)
	}
	c.Close()
}

// TestCloseWaitsForReadAhead: Close returns only after the read-ahead it
// started has completed.
func TestCloseWaitsForReadAhead(t *testing.T) {
	path := makeDisk(t, 256)
	var hd *holdDev
	q, _ := openQueue(t, path, func(d blkq.Device) blkq.Device { hd = &holdDev{Device: d}; return hd })
	c, err := New(q, Config{})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, PageSize)
	c.ReadAt(buf, 0) // a stream starts; page 1 then is a hit
	fillPage(buf, 1, 0)
	c.WriteAt(buf, PageSize)
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	hd.mu.Lock()
	hd.hold, hd.readsOnly = true, true
	hd.mu.Unlock()
	c.ReadAt(buf, PageSize) // continues the stream: read-ahead, its reads held at the device
	if c.Stats().ReadAheadPages == 0 {
		t.Fatal("no read-ahead started")
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		released <- time.Now()
		hd.release()
	}()
	c.Close()
	closed := time.Now()
	if r := <-released; closed.Before(r) {
		t.Fatal("Close returned with read-ahead in flight")
	}
}

// BenchmarkDiscard1GiBEmptyCache measures Discard of 1 GiB that the cache
// holds nothing of: the page-by-page walk (WalkChunk pages per hold) plus
// the device's hole punch.
func BenchmarkDiscard1GiBEmptyCache(b *testing.B) {
	path := filepath.Join(b.TempDir(), "disk")
	f, err := device.OpenFile(path, device.FileOptions{Size: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	q, err := blkq.New(f, blkq.NewRealClock(), blkq.Config{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(q, Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for b.Loop() {
		if err := c.Discard(0, 1<<30); err != nil {
			b.Fatal(err)
		}
	}
}
