package bcache

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blkq-dev/blkq"
)

// The discard race harness. Every 512-byte sector carries a stamp: bytes
// 0-7 the sector's index, 8-15 the id of the write that wrote it (0 for the
// disk's initial content), the rest a pattern of both; a discarded sector
// reads as zeros. Every operation gets a start and an end tick from one
// counter, taken just before it is called and just after it returns, so
// "A ended before B started" is known for sure. A sector's content is stale
// if some operation on it started after the write of that content ended,
// and ended before the read began: then the content's write (or, for
// zeros, every discard that could have produced them) was superseded.

const sectorSize = 1 << blkq.SectorShift

func stampSector(buf []byte, sector int64, id uint64) { stamp(buf[:sectorSize], sector, id) }

// parseSector returns the write id in buf (-1 for zeros) and whether buf
// is an intact stamp of sector (or all zeros).
func parseSector(buf []byte, sector int64) (int64, bool) {
	zero := true
	for _, b := range buf {
		if b != 0 {
			zero = false
			break
		}
	}
	if zero {
		return -1, true
	}
	id := binary.LittleEndian.Uint64(buf[8:])
	want := make([]byte, sectorSize)
	stampSector(want, sector, id)
	return int64(id), string(want) == string(buf)
}

// opRec is one write or discard: its tick interval and its sectors.
type opRec struct {
	start, end int64
	discard    bool
	lo, hi     int64 // sectors [lo, hi)
}

// history records operations and the sectors reads saw.
type history struct {
	clock    atomic.Int64
	mu       sync.Mutex
	ops      []opRec   // by id; ops[0] is the initial content
	bySector [][]int64 // op ids touching each sector
	reads    []readRec
}

type readRec struct {
	sector, id int64 // id -1: zeros
	start, end int64
	intact     bool
}

func newHistory(sectors int64) *history {
	h := &history{ops: []opRec{{start: 0, end: 0, hi: sectors}}, bySector: make([][]int64, sectors)}
	h.clock.Store(1)
	return h
}

func (h *history) tick() int64 { return h.clock.Add(1) }

// begin records a new operation on sectors [lo, hi) and returns its id.
func (h *history) begin(lo, hi int64, discard bool) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := int64(len(h.ops))
	h.ops = append(h.ops, opRec{start: h.tick(), end: math.MaxInt64, discard: discard, lo: lo, hi: hi})
	for s := lo; s < hi; s++ {
		h.bySector[s] = append(h.bySector[s], id)
	}
	return id
}

func (h *history) finish(id int64) {
	end := h.tick()
	h.mu.Lock()
	h.ops[id].end = end
	h.mu.Unlock()
}

func (h *history) read(buf []byte, firstSector, start, end int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := 0; i < len(buf); i += sectorSize {
		s := firstSector + int64(i/sectorSize)
		id, ok := parseSector(buf[i:i+sectorSize], s)
		h.reads = append(h.reads, readRec{sector: s, id: id, start: start, end: end, intact: ok})
	}
}

// check returns why content id of sector s is wrong for a read during
// [start, end], or "".
func (h *history) check(s, id, start, end int64) string {
	var from int64 // end of the operation that produced the content
	switch {
	case id < 0:
		from = -1
		for _, o := range h.bySector[s] {
			if op := h.ops[o]; op.discard && op.start < end {
				from = max(from, op.end)
			}
		}
		if from < 0 {
			return "zeros, but no discard of it had begun"
		}
	case id >= int64(len(h.ops)):
		return fmt.Sprintf("write %d that never happened", id)
	default:
		op := h.ops[id]
		if id > 0 && (op.discard || s < op.lo || s >= op.hi) {
			return fmt.Sprintf("write %d, which did not write this sector", id)
		}
		if op.start > end {
			return fmt.Sprintf("write %d, begun after the read ended", id)
		}
		from = op.end
	}
	for _, o := range h.bySector[s] {
		if op := h.ops[o]; op.start > from && op.end < start {
			kind := "write"
			if op.discard {
				kind = "discard"
			}
			if id < 0 {
				return fmt.Sprintf("zeros, superseded by %s %d", kind, o)
			}
			return fmt.Sprintf("write %d's data, superseded by %s %d (ticks %d-%d)", id, kind, o, op.start, op.end)
		}
	}
	return ""
}

// makeStampedDisk creates a file of pages pages of initial stamps.
func makeStampedDisk(t *testing.T, pages int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "disk")
	buf := make([]byte, pages*PageSize)
	for s := range pages * sectorsPerPage {
		stampSector(buf[s*sectorSize:(s+1)*sectorSize], s, 0)
	}
	if err := os.WriteFile(path, buf, 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

// slowDiscardDev completes discards only after yielding a while, which
// widens the window between a discard's start and its completion.
type slowDiscardDev struct{ blkq.Device }

func (d slowDiscardDev) Attach(complete func(*blkq.Request, error)) {
	d.Device.Attach(func(rq *blkq.Request, err error) {
		if rq.Op == blkq.OpDiscard {
			go func() {
				for range 200 {
					runtime.Gosched()
				}
				complete(rq, err)
			}()
			return
		}
		complete(rq, err)
	})
}

// TestDiscardNeverResurrectsData: 64 workers, read-ahead on, read runs of
// neighbouring pages (so read-ahead reaches into ranges being discarded),
// write parts of pages (read-modify-write), discard sector ranges and sync.
// Every read returns, for each sector, data no operation had superseded
// before the read began (zeros once a discard completed, unless rewritten),
// and at the end the device itself holds no data from before a discard in
// a range discarded after it, unless rewritten since.
func TestDiscardNeverResurrectsData(t *testing.T) {
	const pages = 128
	const sectors = pages * sectorsPerPage
	path := makeStampedDisk(t, pages)
	q, _ := openQueue(t, path, func(d blkq.Device) blkq.Device { return slowDiscardDev{d} })
	c, err := New(q, Config{Pages: 96}) // evictions too: evicted pages are read again from the device
	if err != nil {
		t.Fatal(err)
	}
	h := newHistory(sectors)
	var wg sync.WaitGroup
	var failed atomic.Value
	fail := func(err error) { failed.CompareAndSwap(nil, err) }
	// Half the reads and writes go at or just before the page where the
	// latest discard began, to meet discards in progress.
	var lastDiscard atomic.Int64
	pick := func(rng *rand.Rand) int64 {
		if rng.IntN(2) == 0 {
			return rng.Int64N(pages)
		}
		return max(0, lastDiscard.Load()-rng.Int64N(3))
	}
	for g := range 64 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			buf := make([]byte, PageSize)
			for range 40 {
				switch k := rng.IntN(10); {
				case k < 5: // a run of neighbouring pages: the second read starts read-ahead
					p := pick(rng)
					for i := range int64(4) {
						if p+i >= pages {
							break
						}
						start := h.tick()
						if _, err := c.ReadAt(buf, (p+i)*PageSize); err != nil {
							fail(err)
							return
						}
						h.read(buf, (p+i)*sectorsPerPage, start, h.tick())
					}
				case k < 8: // part of a page
					p := pick(rng)
					a := rng.Int64N(sectorsPerPage)
					b := a + 1 + rng.Int64N(sectorsPerPage-a)
					lo := p*sectorsPerPage + a
					id := h.begin(lo, lo+b-a, false)
					w := buf[:(b-a)*sectorSize]
					for s := range b - a {
						stampSector(w[s*sectorSize:], lo+s, uint64(id))
					}
					_, err := c.WriteAt(w, lo*sectorSize)
					h.finish(id)
					if err != nil {
						fail(err)
						return
					}
				case k < 9: // a discard of 1 to 64 sectors
					lo := rng.Int64N(sectors)
					hi := min(sectors, lo+1+rng.Int64N(64))
					id := h.begin(lo, hi, true)
					lastDiscard.Store(lo / sectorsPerPage)
					err := c.Discard(lo*sectorSize, (hi-lo)*sectorSize)
					h.finish(id)
					if err != nil {
						fail(err)
						return
					}
				default:
					if err := c.Sync(); err != nil {
						fail(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
	st := c.Stats()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if st.ReadAheadPages == 0 || st.Discarded == 0 {
		t.Fatalf("read ahead %d pages, discarded %d: the workload did not exercise the race", st.ReadAheadPages, st.Discarded)
	}
	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, r := range h.reads {
		if !r.intact {
			report("a read of sector %d at ticks %d-%d saw a torn or misplaced sector", r.sector, r.start, r.end)
		} else if why := h.check(r.sector, r.id, r.start, r.end); why != "" {
			report("a read of sector %d at ticks %d-%d returned %s", r.sector, r.start, r.end, why)
		}
	}
	disk, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	end := h.tick()
	for s := range int64(sectors) {
		id, ok := parseSector(disk[s*sectorSize:(s+1)*sectorSize], s)
		if !ok {
			report("device sector %d is torn or misplaced", s)
		} else if why := h.check(s, id, end, end); why != "" {
			report("device sector %d holds %s", s, why)
		}
	}
	if bad > 0 {
		t.Fatalf("%d wrong sectors (%d reads checked, %d operations)", bad, len(h.reads), len(h.ops)-1)
	}
}
