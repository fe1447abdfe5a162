package engine

import (
	"bytes"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// stopAfter returns a Stop channel and a tracer that closes it at the
// n-th queue event: an interruption in the middle of a run, wherever its
// wall-clock moment falls.
func stopAfter(n int) (<-chan struct{}, blkq.Tracer) {
	stop := make(chan struct{})
	var once sync.Once
	seen := 0
	return stop, blkq.TracerFunc(func(*blkq.Event) {
		seen++
		if seen >= n {
			once.Do(func() { close(stop) })
		}
	})
}

// endless is a job that would run for 1000 hours of virtual time.
const endless = "[w]\nrw=randwrite\nbs=4k\nioengine=libaio\niodepth=8\nsize=256m\ntime_based\nruntime=1000h\n"

// TestStopEndsSimulatedRunWithReport: closing Options.Stop in the middle
// of a simulated run ends it at its next event with the report of what
// ran: I/O done, every bio ended (Run's own invariant check), Interrupted.
func TestStopEndsSimulatedRunWithReport(t *testing.T) {
	stop, tr := stopAfter(20000)
	res, err := Run(parse(t, endless+"direct=1\n"), Options{Stop: stop, Tracers: []blkq.Tracer{tr}})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if !res.Interrupted {
		t.Fatal("Result.Interrupted is false")
	}
	if js.Write.IOs == 0 || res.Elapsed >= 1000*time.Hour {
		t.Fatalf("%d writes in %v: want some, and less than the 1000 h runtime", js.Write.IOs, res.Elapsed)
	}
	if js.Error != 0 {
		t.Fatalf("an interrupted job reports err=%d: %s", js.Error, js.ErrorText)
	}
	t.Logf("stopped after %d writes, %v of virtual time", js.Write.IOs, res.Elapsed)
}

// TestStopWritesBackSimulatedPageCache: an interrupted buffered run on a
// simulated disk writes back every dirty page before it ends (an
// uninterrupted one leaves them dirty, as fio does).
func TestStopWritesBackSimulatedPageCache(t *testing.T) {
	stop, tr := stopAfter(5000)
	res, err := Run(parse(t, endless+"direct=0\n"), Options{Stop: stop, Tracers: []blkq.Tracer{tr}})
	if err != nil {
		t.Fatal(err)
	}
	pc := res.PageCache
	if !res.Interrupted || pc == nil {
		t.Fatalf("interrupted %v, page cache %v", res.Interrupted, pc)
	}
	if pc.DirtyAtEnd != 0 {
		t.Fatalf("%d pages left dirty after an interrupted run", pc.DirtyAtEnd)
	}
	written := pc.WrittenFlusher + pc.WrittenThrottle + pc.WrittenSync
	pages := int64(res.Run.Jobs[0].Write.Bytes) / 4096
	if written == 0 || written > pages {
		t.Fatalf("%d pages written back for %d pages written: want 1..%d", written, pages, pages)
	}
	// The disk wrote every page written back (4 KiB each, merged or not).
	if got := int64(res.Disk.Sectors[blkq.OpWrite]) / 8; got != written {
		t.Fatalf("the disk wrote %d pages, the cache wrote back %d", got, written)
	}
	t.Logf("%d pages dirtied, %d written back (max dirty %d)", pages, written, pc.MaxDirty)
}

// TestStopBeforeRunRunsNothing: a run whose Stop is already closed ends at
// once: every job is cancelled before it starts, and the report is empty.
func TestStopBeforeRunRunsNothing(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	for _, dev := range []string{"sim:hdd", "null", "file:" + filepath.Join(t.TempDir(), "f")} {
		res, err := Run(parse(t, endless+"direct=0\n[r]\nrw=read\nbs=4k\nsize=1m\nstartdelay=1s\n"), Options{Device: dev, Stop: stop})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		for _, js := range res.Run.Jobs {
			if n := js.Read.IOs + js.Write.IOs; n != 0 || !res.Interrupted {
				t.Fatalf("%s: job %s did %d I/Os (interrupted %v): want none", dev, js.Name, n, res.Interrupted)
			}
		}
	}
}

// TestStopBufferedFileRunKeepsData: a buffered run on a real file that is
// interrupted writes back the buffer cache, and the read-back check finds
// every sector the run wrote holding what it wrote.
func TestStopBufferedFileRunKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	stop, tr := stopAfter(3000)
	job := "[w]\nrw=randwrite\nbs=4k\nsize=32m\nioengine=psync\ndirect=0\ntime_based\nruntime=1h\nnumjobs=4\n"
	res, err := Run(parse(t, job), Options{Device: "file:" + path, Stop: stop, Tracers: []blkq.Tracer{tr}})
	if err != nil {
		t.Fatal(err)
	}
	var wrote uint64
	for _, js := range res.Run.Jobs {
		wrote += js.Write.Bytes
	}
	if !res.Interrupted || wrote == 0 || res.Verified == 0 {
		t.Fatalf("interrupted %v, %d bytes written, %d sectors verified", res.Interrupted, wrote, res.Verified)
	}
	if uint64(res.Verified)*512 > wrote {
		t.Fatalf("%d sectors verified, more than the %d bytes written", res.Verified, wrote)
	}
	t.Logf("%d bytes written, %d sectors read back and checked", wrote, res.Verified)
}

// TestStopReplay: an interrupted replay replays the records that arrived
// before the stop, ends them all, and reports them.
func TestStopReplay(t *testing.T) {
	for _, timing := range []string{"trace", "afap"} {
		stop, tr := stopAfter(2000)
		res, err := Replay("synthetic", synthetic(200000), Options{Stop: stop, Tracers: []blkq.Tracer{tr}}, ReplayOptions{Timing: timing, IODepth: 8})
		if err != nil {
			t.Fatalf("%s: %v", timing, err)
		}
		n := res.Run.Jobs[0].Read.IOs
		if !res.Interrupted || n == 0 || n >= 200000 {
			t.Fatalf("%s: interrupted %v after %d of 200000 records", timing, res.Interrupted, n)
		}
	}
}

// TestRunProgressLeavesNoGoroutine: Run with a progress writer leaves no
// goroutine behind (its progress line's ticker goroutine used to stay).
func TestRunProgressLeavesNoGoroutine(t *testing.T) {
	const job = "[r]\nrw=randread\nbs=4k\ndirect=1\nsize=1m\nnumber_ios=20\n"
	stop := make(chan struct{}) // never closed: the stop watcher must go too
	before := runtime.NumGoroutine()
	for range 10 {
		run(t, job, Options{Progress: &bytes.Buffer{}, Stop: stop})
		run(t, job, Options{Device: "null", Progress: &bytes.Buffer{}, Stop: stop})
	}
	var after int
	for range 100 { // goroutines that are ending may take a moment
		if after = runtime.NumGoroutine(); after <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Fatalf("%d goroutines before 20 runs, %d after:\n%s", before, after, buf[:runtime.Stack(buf, true)])
}

// TestProgressShowsVirtualTimeOfBufferedJobs: the status line of a
// buffered job that stays under the dirty limits (no queue events at all)
// is computed at the run's virtual clock advancing, not 0.0s throughout.
// (The line used to print that clock; it is fio's status line now, whose
// eta and share done come from it.)
func TestProgressShowsVirtualTimeOfBufferedJobs(t *testing.T) {
	old := progressEvery
	progressEvery = time.Millisecond
	var mu sync.Mutex
	var seen []blkq.Time
	statusClockSeen = func(now blkq.Time) {
		mu.Lock()
		seen = append(seen, now)
		mu.Unlock()
	}
	defer func() { progressEvery, statusClockSeen = old, nil }()
	var out syncBuffer
	// 4 MiB (under the flusher's threshold) rewritten for 1 s of virtual
	// time: a million copies of 1 µs each, far more wall time than the
	// line's period.
	job := "[w]\nrw=randwrite\nbs=4k\ndirect=0\nsize=4m\ntime_based\nruntime=1s\n"
	res := run(t, job, Options{Progress: &out})
	if res.Disk.IOs[blkq.OpWrite] != 0 {
		t.Fatalf("the job reached the disk (%d writes): the test wants one that does not", res.Disk.IOs[blkq.OpWrite])
	}
	mu.Lock()
	defer mu.Unlock()
	last := blkq.Time(-1)
	for _, v := range seen {
		if v < last || float64(v)/1e9 > res.Elapsed.Seconds()+0.05 {
			t.Fatalf("clock %v after %v (run %v)", v, last, res.Elapsed)
		}
		last = v
	}
	if len(seen) == 0 || last <= 0 || strings.Count(out.String(), "Jobs: ") != len(seen) || !strings.Contains(out.String(), "Jobs: 1 (f=1)") {
		t.Fatalf("%d status lines, the last at %v on the run's clock: want it past 0:\n%.300s", len(seen), last, out.String())
	}
	t.Logf("%d lines, the last at %v of %v", len(seen), last, res.Elapsed)
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine and the
// test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
