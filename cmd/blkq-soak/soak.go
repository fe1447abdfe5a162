package main

// The soak: the whole library under load for a given time, checked as it
// goes and at the end.
//
//   - 256 (Workers) goroutines read, write and discard through a bcache
//     over a queue on a file: device, read-ahead on. Each owns a run of
//     Pages pages and keeps a model of its bytes (the runs are disjoint, so
//     each model is exact), but runs are adjacent, so read-ahead started by
//     one worker's sequential reads reads its neighbours' pages: the case
//     where a discard racing a neighbour's read-ahead could bring old data
//     back. Every read is checked against the model, byte for byte.
//   - Direct (16) goroutines use the queue's blocking API on a region of
//     their own past a gap: ReadAt and WriteAt, and Submit of writes,
//     reads, discards and flushes with contexts that time out at random, so
//     that some bios are taken back while asleep in request allocation. A
//     bio whose Submit returned the context's error must have ended with it
//     and changed nothing; one whose Submit returned nil must end once.
//   - One goroutine flips a random tunable every FlipEvery (1 ms): the
//     scheduler (none, mq-deadline, linus), nomerges, nr_requests,
//     read_ahead_kb, max_sectors_kb, the allocation policy and the
//     schedulers' own tunables. Another polls every statistic and
//     attribute and checks the queue's invariants.
//   - A ledger (ledger.go) follows every bio and request in the event
//     stream: none completes twice, none is lost.
//
// At the end the cache is closed (written back), the queue must be idle,
// and the whole device is read back through the queue, past the cache,
// and compared with the models: what the write-back left on the device is
// what the workers last wrote, and nothing discarded came back.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/device"
)

// config sets up a soak. Zero fields take the defaults of defaultConfig.
type config struct {
	Duration      time.Duration // how long the workers run
	Dir           string        // where the device file is made (removed at the end)
	Workers       int           // goroutines going through the cache
	Direct        int           // goroutines using the queue's blocking API
	Pages         int           // pages (4 KiB) each goroutine owns
	CachePages    int           // the cache's capacity
	FlipEvery     time.Duration // tunable flip interval
	Seed          uint64
	Progress      io.Writer // a line per ProgressEvery, if set
	ProgressEvery time.Duration
}

func defaultConfig() config {
	return config{Duration: 10 * time.Minute, Dir: os.TempDir(), Workers: 256, Direct: 16, Pages: 64,
		CachePages: 4096, FlipEvery: time.Millisecond, Seed: 1, ProgressEvery: time.Minute}
}

// result is what a soak counted. Failures lists what went wrong (the
// first maxProblems of each kind); a soak passed when it is empty.
type result struct {
	Elapsed   time.Duration // start to the last worker's stop
	Closing   time.Duration // the cache's Close (write-back) until the queue is idle
	Verifying time.Duration // the device read-back

	Reads, Writes, Discards, Syncs, Invalidates     int64 // cache workers
	DReads, DWrites, DSubmits, DCancelled, DFlushes int64 // direct workers
	BytesChecked                                    int64
	Mismatches                                      int64

	Flips, FlipsSkipped, Polls int64

	BiosQueued, BiosCompleted, BiosDropped, BiosTakenBack, BiosNotQueued int64
	RequestsIssued, RequestsCompleted                                    int64
	RequestsEndedOff                                                     int64 // flush sequences that ended off the device (an fsync's request)
	Lost, Duplicated                                                     int64
	DirectBios, DirectEnds                                               int64

	Cache bcache.Stats
	Disk  blkq.DiskStats

	Failures []string
}

const pageSize = bcache.PageSize

// soak is one run's shared state.
type soak struct {
	cfg   config
	q     *blkq.Queue
	clk   blkq.Clock
	c     *bcache.Cache
	led   *ledger
	stats *blkq.DiskStats
	model []byte // the whole device as the workers last left it
	baseB int64  // byte offset of the direct workers' region

	stop atomic.Bool

	reads, writes, discards, syncs, invalidates atomic.Int64
	dreads, dwrites, dsubmits, dcancelled       atomic.Int64
	dflushes, checked, mismatches               atomic.Int64
	flips, skipped, polls                       atomic.Int64
	directBios, directEnds                      atomic.Int64

	mu       sync.Mutex
	failures []string
}

// fail records a failure (the first 4*maxProblems of them), and shows it
// at once on the progress writer, so that a long soak tells as it goes.
func (s *soak) fail(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.failures) < 4*maxProblems {
		msg := fmt.Sprintf(format, args...)
		s.failures = append(s.failures, msg)
		if s.cfg.Progress != nil {
			fmt.Fprintf(s.cfg.Progress, "blkq-soak: FAIL: %s\n", msg)
		}
	}
}

// run runs a soak.
func run(cfg config) (*result, error) {
	d := defaultConfig()
	if cfg.Duration <= 0 || cfg.Workers < 0 || cfg.Direct < 0 || cfg.Pages < 0 || cfg.CachePages < 0 || cfg.FlipEvery < 0 {
		return nil, fmt.Errorf("soak: bad configuration %+v", cfg)
	}
	if cfg.Dir == "" {
		cfg.Dir = d.Dir
	}
	if cfg.Workers == 0 {
		cfg.Workers = d.Workers
	}
	if cfg.Pages == 0 {
		cfg.Pages = d.Pages
	}
	if cfg.CachePages == 0 {
		cfg.CachePages = d.CachePages
	}
	if cfg.FlipEvery == 0 {
		cfg.FlipEvery = d.FlipEvery
	}
	if cfg.ProgressEvery == 0 {
		cfg.ProgressEvery = d.ProgressEvery
	}
	f, err := os.CreateTemp(cfg.Dir, "blkq-soak-*.img")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)

	const gapPages = 256 // past the farthest read-ahead of region A's last worker
	pagesA := int64(cfg.Workers * cfg.Pages)
	baseB := (pagesA + gapPages) * pageSize
	size := baseB + int64(cfg.Direct*cfg.Pages)*pageSize
	dev, err := device.OpenFile(path, device.FileOptions{Size: size, Depth: 8})
	if err != nil {
		return nil, err
	}
	defer dev.Close()
	clk := blkq.NewRealClock()
	q, err := blkq.New(dev, clk, blkq.Config{Scheduler: "mq-deadline", NrRequests: 32, ReadAheadKB: 128})
	if err != nil {
		return nil, err
	}
	defer q.Close()
	s := &soak{cfg: cfg, q: q, clk: clk, led: newLedger(), stats: &blkq.DiskStats{}, model: make([]byte, size), baseB: baseB}
	q.AddTracer(s.led)
	q.AddTracer(s.stats)
	c, err := bcache.New(q, bcache.Config{Pages: cfg.CachePages, ReadAheadKB: 128})
	if err != nil {
		return nil, err
	}
	s.c = c

	start := time.Now()
	deadline := start.Add(cfg.Duration)
	var workers sync.WaitGroup
	for w := range cfg.Workers {
		workers.Go(func() { s.cacheWorker(w, deadline) })
	}
	for w := range cfg.Direct {
		workers.Go(func() { s.directWorker(w, deadline) })
	}
	var side sync.WaitGroup
	side.Go(s.flipper)
	side.Go(s.poller)
	if cfg.Progress != nil {
		side.Go(func() { s.progress(start) })
	}
	stuck := time.AfterFunc(cfg.Duration+2*time.Minute, func() {
		fmt.Fprintf(os.Stderr, "blkq-soak: FAIL: the workers have not stopped 2 minutes past the deadline (a hang); %v\n", q.Check(true))
		buf := make([]byte, 1<<24)
		os.Stderr.Write(buf[:runtime.Stack(buf, true)])
		os.Remove(path)
		os.Exit(1)
	})
	workers.Wait()
	stuck.Stop()
	s.stop.Store(true)
	side.Wait()
	elapsed := time.Since(start)

	t := time.Now()
	if err := c.Close(); err != nil {
		s.fail("cache close (write-back): %v", err)
	}
	s.waitIdle()
	closing := time.Since(t)
	t = time.Now()
	s.verifyDevice()
	s.waitIdle()
	verifying := time.Since(t)
	if err := q.Check(false); err != nil {
		s.fail("at the end: %v", err)
	}
	r := s.result(elapsed)
	r.Closing, r.Verifying = closing, verifying
	return r, nil
}

// waitIdle waits for the queue to hold nothing (bounded: a stuck queue is
// a failure, not a hang).
func (s *soak) waitIdle() {
	for t := time.Now(); s.q.Check(true) != nil; time.Sleep(time.Millisecond) {
		if time.Since(t) > time.Minute {
			s.fail("a minute after the workers stopped: %v", s.q.Check(true))
			return
		}
	}
}

// verifyDevice reads the whole device through the queue (past the cache)
// and compares it with the models.
func (s *soak) verifyDevice() {
	buf := make([]byte, 1<<20)
	for off := int64(0); off < int64(len(s.model)); off += int64(len(buf)) {
		n := min(int64(len(buf)), int64(len(s.model))-off)
		if _, err := s.q.ReadAt(buf[:n], off); err != nil {
			s.fail("read-back at %d: %v", off, err)
			return
		}
		s.compare("device read-back", -1, off, buf[:n])
	}
}

// compare checks got, read at byte offset off, against the model.
func (s *soak) compare(what string, worker int, off int64, got []byte) bool {
	s.checked.Add(int64(len(got)))
	want := s.model[off : off+int64(len(got))]
	if bytes.Equal(got, want) {
		return true
	}
	s.mismatches.Add(1)
	i := 0
	for got[i] == want[i] {
		i++
	}
	j := len(got)
	for got[j-1] == want[j-1] {
		j--
	}
	allZero := !bytes.ContainsFunc(want[i:j], func(r rune) bool { return r != 0 })
	s.fail("%s (worker %d): %d bytes at %d: bytes %d..%d (page %d) differ: got %x..., want %x...%s",
		what, worker, len(got), off, off+int64(i), off+int64(j), (off+int64(i))/pageSize,
		got[i:min(i+8, j)], want[i:min(i+8, j)], map[bool]string{true: " (the model holds zeros: discarded, or never written, and old data came back)", false: ""}[allZero])
	return false
}

func (s *soak) progress(start time.Time) {
	t := time.NewTicker(s.cfg.ProgressEvery)
	defer t.Stop()
	for !s.stop.Load() {
		select {
		case <-t.C:
		case <-time.After(100 * time.Millisecond):
			continue
		}
		fmt.Fprintf(s.cfg.Progress, "blkq-soak: %v: reads=%d writes=%d discards=%d direct=%d flips=%d mismatches=%d failures=%d\n",
			time.Since(start).Round(time.Second), s.reads.Load(), s.writes.Load(), s.discards.Load(),
			s.dreads.Load()+s.dwrites.Load()+s.dsubmits.Load(), s.flips.Load(), s.mismatches.Load(), len(s.snapshotFailures()))
	}
}

func (s *soak) snapshotFailures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

func (s *soak) result(elapsed time.Duration) *result {
	lost := s.led.settle()
	l := s.led
	l.mu.Lock()
	defer l.mu.Unlock()
	r := &result{Elapsed: elapsed,
		Reads: s.reads.Load(), Writes: s.writes.Load(), Discards: s.discards.Load(), Syncs: s.syncs.Load(), Invalidates: s.invalidates.Load(),
		DReads: s.dreads.Load(), DWrites: s.dwrites.Load(), DSubmits: s.dsubmits.Load(), DCancelled: s.dcancelled.Load(), DFlushes: s.dflushes.Load(),
		BytesChecked: s.checked.Load(), Mismatches: s.mismatches.Load(),
		Flips: s.flips.Load(), FlipsSkipped: s.skipped.Load(), Polls: s.polls.Load(),
		BiosQueued: l.queued, BiosCompleted: l.completed, BiosDropped: l.dropped, BiosTakenBack: l.forgotten, BiosNotQueued: l.notQueued,
		RequestsIssued: l.rqIssued, RequestsCompleted: l.rqCompleted, RequestsEndedOff: l.seqEnded,
		Lost: lost, Duplicated: l.duplicates,
		DirectBios: s.directBios.Load(), DirectEnds: s.directEnds.Load(),
		Cache: s.c.Stats(), Disk: s.stats.Snapshot(),
	}
	r.Failures = s.snapshotFailures()
	for _, p := range l.problems {
		r.Failures = append(r.Failures, "ledger: "+p)
	}
	if r.DirectEnds != r.DirectBios {
		r.Failures = append(r.Failures, fmt.Sprintf("direct bios: %d submitted, %d EndIO calls", r.DirectBios, r.DirectEnds))
	}
	if got := r.BiosCompleted + r.BiosDropped + r.BiosTakenBack + r.Lost; got != r.BiosQueued && r.Duplicated == 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("bios: %d queued but %d completed + %d dropped + %d taken back + %d lost", r.BiosQueued, r.BiosCompleted, r.BiosDropped, r.BiosTakenBack, r.Lost))
	}
	if r.BiosDropped != r.Cache.ReadAheadDropped {
		r.Failures = append(r.Failures, fmt.Sprintf("read-ahead drops: the queue's events show %d, the cache counted %d", r.BiosDropped, r.Cache.ReadAheadDropped))
	}
	var ios uint64
	for _, n := range r.Disk.IOs {
		ios += n
	}
	// Each request the disk statistics count ended once: at the device,
	// or (an fsync's, whose flush request the device served) off it.
	if r.Disk.InFlight != 0 || int64(ios) != r.RequestsCompleted+r.RequestsEndedOff {
		r.Failures = append(r.Failures, fmt.Sprintf("disk stats: in flight %d, %d requests completed without error of %d completed and %d ended off the device",
			r.Disk.InFlight, ios, r.RequestsCompleted, r.RequestsEndedOff))
	}
	if r.Mismatches > 0 {
		r.Failures = append(r.Failures, fmt.Sprintf("%d reads differed from the model", r.Mismatches))
	}
	return r
}

// errorsIsCtx reports whether err is a context's error.
func errorsIsCtx(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// newRand returns the random source of goroutine kind/i.
func (s *soak) newRand(kind, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s.cfg.Seed, kind<<32|i))
}

// fillRandom fills p with random bytes.
func fillRandom(r *rand.Rand, p []byte) {
	for i := 0; i < len(p); i += 8 {
		v := r.Uint64()
		for k := 0; k < 8 && i+k < len(p); k++ {
			p[i+k] = byte(v >> (8 * k))
		}
	}
}
