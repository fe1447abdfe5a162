package bcache

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// Versioned page contents: bytes 0-7 the page index, 8-15 a version, the
// rest a pattern of both, so a torn or misplaced page is detected.

func fillPage(buf []byte, page int64, ver uint64) { stamp(buf[:PageSize], page, ver) }

// stamp fills buf with its unit's index and a version, then a pattern of
// both (pages here, sectors in the discard race test).
func stamp(buf []byte, index int64, ver uint64) {
	binary.LittleEndian.PutUint64(buf[0:], uint64(index))
	binary.LittleEndian.PutUint64(buf[8:], ver)
	x := uint32(index)*2654435761 ^ uint32(ver)*40503
	for i := 16; i < len(buf); i++ {
		x = x*1664525 + 1013904223
		buf[i] = byte(x >> 24)
	}
}

// parsePage returns the version in buf and whether buf is a whole, intact
// page of index page.
func parsePage(buf []byte, page int64) (uint64, bool) {
	if int64(binary.LittleEndian.Uint64(buf[0:])) != page {
		return 0, false
	}
	ver := binary.LittleEndian.Uint64(buf[8:])
	want := make([]byte, PageSize)
	fillPage(want, page, ver)
	return ver, string(want) == string(buf)
}

// makeDisk creates a file of pages pages, each holding version 0.
func makeDisk(t *testing.T, pages int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "disk")
	buf := make([]byte, pages*PageSize)
	for p := range pages {
		fillPage(buf[p*PageSize:(p+1)*PageSize], p, 0)
	}
	if err := os.WriteFile(path, buf, 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// recDev wraps a device and records, at each write completion, the newest
// version that reached each page, and counts write bios and requests.
type recDev struct {
	blkq.Device
	mu         sync.Mutex
	durable    map[int64]uint64
	writeReqs  int64
	writeBios  int64
	syncBios   int64 // write bios with FlagSync: Sync's own writes
	versioned  bool  // pages carry versions (parse them)
	corruption []string
}

func newRecDev(d blkq.Device, versioned bool) *recDev {
	return &recDev{Device: d, durable: make(map[int64]uint64), versioned: versioned}
}

func (r *recDev) Attach(complete func(*blkq.Request, error)) {
	r.Device.Attach(func(rq *blkq.Request, err error) {
		if err == nil && rq.Op == blkq.OpWrite {
			r.mu.Lock()
			r.writeReqs++
			rq.Bios(func(b *blkq.Bio) {
				r.writeBios++
				if b.Flags&blkq.FlagSync != 0 {
					r.syncBios++
				}
				if !r.versioned {
					return
				}
				for i := 0; i < len(b.Buf); i += PageSize {
					page := int64(b.Sector)/sectorsPerPage + int64(i/PageSize)
					ver, ok := parsePage(b.Buf[i:i+PageSize], page)
					if !ok {
						r.corruption = append(r.corruption, "bad page written")
						continue
					}
					r.durable[page] = max(r.durable[page], ver)
				}
			})
			r.mu.Unlock()
		}
		complete(rq, err)
	})
}

func (r *recDev) snapshot() (durable map[int64]uint64, syncBios int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	durable = make(map[int64]uint64, len(r.durable))
	for k, v := range r.durable {
		durable[k] = v
	}
	return durable, r.syncBios
}

// openQueue opens path as a device behind a queue with mq-deadline; wrap,
// if set, wraps the device first.
func openQueue(t *testing.T, path string, wrap func(blkq.Device) blkq.Device) (*blkq.Queue, blkq.Device) {
	t.Helper()
	f, err := device.OpenFile(path, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var d blkq.Device = f
	if wrap != nil {
		d = wrap(f)
	}
	q, err := blkq.New(d, blkq.NewRealClock(), blkq.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return q, d
}

// readDisk reads every page of path through a fresh device and queue.
func readDisk(t *testing.T, path string, pages int64) []byte {
	t.Helper()
	// Straight from the file: the test's device may still be open, and
	// holds the file's lock.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, pages*PageSize)
	if _, err := f.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	return buf
}

// writeSome writes back one batch as the flusher would (src's counter) and,
// with wait, waits for its writes; it returns the pages submitted.
func (c *Cache) writeSome(src wbSource, wait bool) int {
	done := make(chan struct{})
	c.lock()
	batch := c.takeSome()
	c.count(src, len(batch))
	if wait && len(batch) > 0 {
		w := &wbBatch{left: len(batch), done: func() { close(done) }}
		for _, b := range batch {
			b.wait = w
		}
	} else {
		close(done)
	}
	c.unlock()
	c.submitWrites(c.goClient(), batch, src, nil)
	<-done
	return len(batch)
}
