package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"syscall"
	"time"

	"github.com/blkq-dev/blkq"
)

// maxIO is the largest read or write a worker does at once.
const maxIO = 16 << 10

// cacheWorker reads, writes and discards its own pages through the cache
// until the deadline, checking every read against its model.
func (s *soak) cacheWorker(w int, deadline time.Time) {
	r := s.newRand(1, uint64(w))
	size := int64(s.cfg.Pages) * pageSize
	base := int64(w) * size
	buf := make([]byte, size)
	for time.Now().Before(deadline) {
		switch op := r.IntN(100); {
		case op < 30: // a random read
			off := r.Int64N(size)
			n := 1 + r.Int64N(min(size-off, maxIO))
			s.cacheRead(w, base+off, buf[:n])
		case op < 45: // a sequential stretch: starts read-ahead, often into the next worker's pages
			pg := r.Int64N(int64(s.cfg.Pages))
			if r.IntN(2) == 0 {
				pg = max(0, int64(s.cfg.Pages)-1-r.Int64N(32))
			}
			step := int64(pageSize) << r.IntN(2)
			for off := pg * pageSize; off < size && off < (pg+32)*pageSize && time.Now().Before(deadline); off += step {
				s.cacheRead(w, base+off, buf[:min(step, size-off)])
			}
		case op < 80: // a write
			off := r.Int64N(size)
			n := 1 + r.Int64N(min(size-off, maxIO))
			p := buf[:n]
			fillRandom(r, p)
			if _, err := s.c.WriteAt(p, base+off); err != nil {
				s.fail("worker %d: write of %d bytes at %d: %v", w, n, base+off, err)
				continue
			}
			copy(s.model[base+off:], p)
			s.writes.Add(1)
		case op < 92: // a discard: whole pages, or sectors
			unit := int64(pageSize)
			if r.IntN(2) == 0 {
				unit = blkq.SectorSize
			}
			off := r.Int64N(size/unit) * unit
			if r.IntN(2) == 0 {
				off = 0 // where the previous worker's read-ahead lands
			}
			n := (1 + r.Int64N(min((size-off)/unit, 64*pageSize/unit))) * unit
			if s.discard(w, base+off, n) && r.IntN(2) == 0 {
				s.cacheRead(w, base+off, buf[:min(n, maxIO)]) // zeros, now and ever after
			}
		case op < 93:
			if err := s.c.Sync(); err != nil {
				s.fail("worker %d: sync: %v", w, err)
			}
			s.syncs.Add(1)
		case op < 94:
			s.c.Invalidate()
			s.invalidates.Add(1)
		default: // the whole run, in maxIO pieces
			for off := int64(0); off < size && time.Now().Before(deadline); off += maxIO {
				s.cacheRead(w, base+off, buf[off:min(off+maxIO, size)])
			}
		}
	}
}

func (s *soak) cacheRead(w int, off int64, p []byte) {
	n, err := s.c.ReadAt(p, off)
	if err != nil || n != len(p) {
		s.fail("worker %d: read of %d bytes at %d: %d, %v", w, len(p), off, n, err)
		return
	}
	s.reads.Add(1)
	s.compare("cache read", w, off, p)
}

// discard drops [off, off+n) from the cache with bcache.Discard, then
// discards it on the device through the queue's Submit; after that the
// range reads as zeros. (Where bcache.Discard discards on the device
// itself, the second discard finds zeros and changes nothing; it keeps
// the blocking API's discard path under load.)
func (s *soak) discard(w int, off, n int64) bool {
	if err := s.c.Discard(off, n); err != nil {
		s.fail("worker %d: cache discard of %d bytes at %d: %v", w, n, off, err)
		return false
	}
	done := make(chan error, 1)
	b := &blkq.Bio{Op: blkq.OpDiscard, Sector: uint64(off) / blkq.SectorSize, Sectors: uint32(n / blkq.SectorSize),
		EndIO: func(_ *blkq.Bio, err error) { done <- err }}
	if err := s.q.Submit(context.Background(), b); err != nil {
		s.fail("worker %d: discard submit: %v", w, err)
		return false
	}
	if err := <-done; err != nil {
		s.fail("worker %d: device discard of %d bytes at %d: %v", w, n, off, err)
		return false
	}
	clear(s.model[off : off+n])
	s.discards.Add(1)
	return true
}

// directWorker uses the queue's blocking API on its own pages in the
// direct region: ReadAt, WriteAt, and Submit with contexts that end at
// random.
func (s *soak) directWorker(w int, deadline time.Time) {
	r := s.newRand(2, uint64(w))
	size := int64(s.cfg.Pages) * pageSize
	base := s.baseB + int64(w)*size
	buf := make([]byte, size)
	task := blkq.NewGoroutineTask(fmt.Sprintf("direct%d", w))
	for time.Now().Before(deadline) {
		switch op := r.IntN(100); {
		case op < 25:
			off := r.Int64N(size)
			n := 1 + r.Int64N(min(size-off, maxIO))
			if _, err := s.q.ReadAt(buf[:n], base+off); err != nil {
				s.fail("direct %d: ReadAt %d bytes at %d: %v", w, n, base+off, err)
				continue
			}
			s.dreads.Add(1)
			s.compare("queue ReadAt", 1000+w, base+off, buf[:n])
		case op < 50:
			off := r.Int64N(size)
			n := 1 + r.Int64N(min(size-off, maxIO))
			fillRandom(r, buf[:n])
			if _, err := s.q.WriteAt(buf[:n], base+off); err != nil {
				s.fail("direct %d: WriteAt %d bytes at %d: %v", w, n, base+off, err)
				continue
			}
			copy(s.model[base+off:], buf[:n])
			s.dwrites.Add(1)
		case op < 95:
			ops := []blkq.Op{blkq.OpWrite, blkq.OpWrite, blkq.OpRead, blkq.OpDiscard}
			s.directSubmit(w, r, task, ops[r.IntN(len(ops))], base, size, buf)
		case op < 98:
			s.directSubmit(w, r, task, blkq.OpFlush, base, size, buf)
		default:
			// Queue.Flush, with a context that is done already or never:
			// its bio is not the soak's to follow through a take-back.
			ctx, cancel := context.WithCancel(context.Background())
			if r.IntN(2) == 0 {
				cancel()
			}
			err := s.q.Flush(blkq.WithTask(ctx, task))
			if cancel(); err != nil && !(errorsIsCtx(err) && ctx.Err() != nil) {
				s.fail("direct %d: flush: %v", w, err)
			}
			s.dflushes.Add(1)
		}
	}
}

// randomDeadline returns a context that ends within 0..300 µs, or never.
func (s *soak) randomDeadline(r *rand.Rand) (context.Context, context.CancelFunc) {
	if r.IntN(3) == 0 {
		return context.WithCancel(context.Background())
	}
	return context.WithTimeout(context.Background(), time.Duration(r.IntN(300))*time.Microsecond)
}

// directSubmit submits one bio of op with a context that may end while it
// sleeps for a request, and checks the Submit contract: a context error
// means the bio ended once with it and did nothing; nil means it ends
// once, and its data is then the model's.
func (s *soak) directSubmit(w int, r *rand.Rand, task *blkq.Task, op blkq.Op, base, size int64, buf []byte) {
	sectors := 1 + r.Int64N(64)
	off := r.Int64N(size/blkq.SectorSize-sectors+1) * blkq.SectorSize
	n := sectors * blkq.SectorSize
	b := &blkq.Bio{Op: op, Sector: uint64(base+off) / blkq.SectorSize, Sectors: uint32(sectors)}
	if op == blkq.OpFlush {
		b.Sector, b.Sectors, b.Flags = 0, 0, blkq.FlagSync
	} else if op != blkq.OpDiscard {
		b.Buf = buf[:n]
		if op == blkq.OpWrite {
			fillRandom(r, b.Buf)
		}
	}
	done := make(chan error, 2)
	b.EndIO = func(_ *blkq.Bio, err error) {
		s.directEnds.Add(1)
		done <- err
	}
	ctx, cancel := s.randomDeadline(r)
	if r.IntN(4) == 0 {
		cancel() // cancelled before the call
	}
	s.directBios.Add(1)
	err := s.q.Submit(blkq.WithTask(ctx, task), b)
	cancel()
	s.dsubmits.Add(1)
	if err != nil {
		if !errorsIsCtx(err) {
			s.fail("direct %d: Submit returned %v, not a context error", w, err)
		}
		select {
		case end := <-done:
			if !errors.Is(end, err) {
				s.fail("direct %d: Submit returned %v but the bio ended with %v", w, err, end)
			}
		default:
			s.fail("direct %d: Submit returned %v before the bio ended", w, err)
			return
		}
		s.led.forget(b)
		s.dcancelled.Add(1)
		return
	}
	if end := <-done; end != nil {
		s.fail("direct %d: %v of %d sectors at %d ended with %v", w, op, sectors, base+off, end)
		return
	}
	switch op {
	case blkq.OpWrite:
		copy(s.model[base+off:], b.Buf)
	case blkq.OpDiscard:
		clear(s.model[base+off : base+off+n])
	case blkq.OpRead:
		s.compare("Submit read", 1000+w, base+off, b.Buf)
	}
}

// flipper changes a random tunable every FlipEvery until the soak stops.
func (s *soak) flipper() {
	r := s.newRand(3, 0)
	t := time.NewTicker(s.cfg.FlipEvery)
	defer t.Stop()
	pick := func(v ...string) string { return v[r.IntN(len(v))] }
	num := func(lo, hi int) string { return fmt.Sprint(lo + r.IntN(hi-lo+1)) }
	for !s.stop.Load() {
		<-t.C
		var name, value string
		switch r.IntN(12) {
		case 0:
			name, value = "scheduler", pick("none", "mq-deadline", "mq-deadline", "linus")
		case 1:
			name, value = "nomerges", pick("0", "1", "2")
		case 2:
			name, value = "nr_requests", pick("4", "8", "16", "32", "64", "128", "256")
		case 3:
			name, value = "read_ahead_kb", pick("0", "4", "16", "128", "512")
		case 4:
			name, value = "max_sectors_kb", pick("4", "8", "64", "128", "512", "1280")
		case 5:
			name, value = "alloc", pick("fair", "legacy", "fair-nobatch", "fair-wakeall", "blk-mq")
		case 6:
			name, value = "iosched/fifo_batch", num(1, 32)
		case 7:
			name, value = "iosched/writes_starved", num(0, 4)
		case 8:
			name, value = pick("iosched/read_expire", "iosched/write_expire"), num(1, 500)
		case 9:
			name, value = "iosched/front_merges", pick("0", "1")
		case 10:
			name, value = pick("iosched/read_latency", "iosched/write_latency"), num(0, 2048)
		case 11:
			name, value = pick("iosched/seek_cost", "iosched/max_bomb_segments"), num(1, 16)
		}
		err := s.q.SetAttr(name, value)
		switch {
		case err == nil:
			s.flips.Add(1)
		case errors.Is(err, syscall.ENOENT):
			s.skipped.Add(1) // another scheduler's tunable
		case name == "nr_requests" && errors.Is(err, syscall.EINVAL):
			s.skipped.Add(1) // blk-mq without a scheduler: more tags than the device's depth
		default:
			s.fail("flip %s=%s: %v", name, value, err)
		}
	}
}

// poller reads every statistic and attribute while the soak runs and
// checks the queue's invariants.
func (s *soak) poller() {
	for !s.stop.Load() {
		st := s.stats.Snapshot()
		if st.InFlight < 0 {
			s.fail("disk stats: in flight %d", st.InFlight)
		}
		s.stats.Flush(s.clk.Now())
		_ = s.stats.Stat()
		for _, a := range s.q.Attrs() {
			if _, err := s.q.Attr(a); err != nil && !errors.Is(err, syscall.ENOENT) {
				s.fail("attr %s: %v", a, err)
			}
		}
		if err := s.q.Check(false); err != nil {
			s.fail("while running: %v", err)
		}
		_ = s.c.Stats()
		s.polls.Add(1)
		time.Sleep(time.Millisecond)
	}
}
