package engine

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
)

// wbLog records the write-back's Q events, writes and flushes, as
// "pid op page flags".
type wbLog struct {
	mu  sync.Mutex
	out []string
}

func (l *wbLog) Trace(e *blkq.Event) {
	if e.Action != 'Q' || (e.Op != blkq.OpWrite && e.Op != blkq.OpFlush) {
		return
	}
	l.mu.Lock()
	l.out = append(l.out, fmt.Sprintf("%d %v %d %v", e.PID, e.Op, e.Sector/(bcache.PageSize>>blkq.SectorShift), e.Flags))
	l.mu.Unlock()
}

// goroutinePID returns the pid of event e if it is a goroutine task's
// (blkq.NewGoroutineTask numbers them from 1<<20 on), else -1.
func goroutinePID(e string) int {
	var pid int
	if fmt.Sscanf(e, "%d", &pid); pid > 1<<20 {
		return pid
	}
	return -1
}

// TestSameWritebackOnSimAndFile: one buffered writer of 1024 pages with
// fsync=300 and end_fsync through a 1024-page cache whose background and
// hard thresholds are both 204 pages, on sim:hdd (no data, virtual time)
// and on a file (data, real goroutines). The thresholds being equal, the
// writer that passes them takes the oldest batch itself before the
// flusher can run, and the flusher then finds the cache under its
// threshold: the run's decisions do not depend on the clock, and the
// write-back events are the same on both devices, bio for bio. Each time
// 205 pages are dirty the writer writes the 32 oldest and waits (three
// times per fsync period: at writes 205, 237, 269 of each 300); each fsync
// writes the 204 pages left dirty of its file, REQ_SYNC, and flushes; the
// end_fsync writes the last 124.
func TestSameWritebackOnSimAndFile(t *testing.T) {
	const job = "[w]\nioengine=psync\ndirect=0\nbs=4k\nrw=write\nsize=4m\nfsync=300\nend_fsync=1\n"
	runOn := func(device string) ([]string, *CacheStats) {
		var log wbLog
		res := run(t, job, Options{Device: device, CachePages: 1024, DirtyBackgroundRatio: 0.2, DirtyRatio: 0.2,
			Tracers: []blkq.Tracer{&log}})
		return log.out, res.PageCache
	}
	simEv, simPC := runOn("sim:hdd")
	fileEv, filePC := runOn("file:" + filepath.Join(t.TempDir(), "dev"))
	// The file's cache is closed after the run, by the blocking API (a
	// goroutine's task): nothing is left to write, and its flush is its
	// only event.
	if n := len(fileEv); n > 0 && fileEv[n-1] == fmt.Sprintf("%d %v 0 %v", goroutinePID(fileEv[n-1]), blkq.OpFlush, blkq.FlagSync) {
		fileEv = fileEv[:n-1]
	}
	if fmt.Sprint(simEv) != fmt.Sprint(fileEv) {
		n := 0
		for n < min(len(simEv), len(fileEv)) && simEv[n] == fileEv[n] {
			n++
		}
		t.Fatalf("write-back differs from event %d (of %d on sim:hdd, %d on the file):\nsim:hdd %v\nfile    %v",
			n, len(simEv), len(fileEv), simEv[n:min(n+5, len(simEv))], fileEv[n:min(n+5, len(fileEv))])
	}
	for _, pc := range []*CacheStats{simPC, filePC} {
		if pc.WrittenThrottle != 9*32 || pc.WrittenSync != 3*204+124 || pc.WrittenFlusher != 0 || pc.Throttled != 9 || pc.DirtyAtEnd != 0 {
			t.Errorf("page cache %+v: want 288 pages written by the throttled writer in 9 writes, 736 by its syncs", pc.Stats)
		}
		if len(pc.Syncs) != 4 {
			t.Fatalf("%d syncs, want 4", len(pc.Syncs))
		}
		for i, s := range pc.Syncs {
			if want := map[bool]int{true: 124, false: 204}[i == 3]; s.DirtyAtCall != want || s.Written != want {
				t.Errorf("sync %d: %+v, want %d pages dirty at the call, all written by it", i, s, want)
			}
		}
	}
	var flushes, syncWrites, throttled int
	for _, e := range simEv {
		var pid, page int
		var op, flags string
		fmt.Sscanf(e, "%d %s %d %s", &pid, &op, &page, &flags)
		switch {
		case pid == bcache.DefaultFlusherPID:
			t.Errorf("the flusher wrote: %s", e)
		case op == blkq.OpFlush.String():
			flushes++
		case flags == blkq.FlagSync.String():
			syncWrites++
		default:
			throttled++
		}
	}
	if flushes != 4 || syncWrites != 736 || throttled != 288 {
		t.Errorf("%d flushes, %d sync writes, %d throttled writes: want 4, 736, 288", flushes, syncWrites, throttled)
	}
}

// TestSimWritebackEndFsync: four buffered sequential writers on sim:hdd
// dirty 64 MiB each, four times the hard threshold of a 16 MiB cache: the
// flusher and the throttled writers write back, dirty pages never exceed
// the hard threshold by more than one write per writer, and after
// end_fsync every page reached the disk exactly once.
func TestSimWritebackEndFsync(t *testing.T) {
	const cachePages = 4096 // 16 MiB
	res := run(t, "[global]\nioengine=psync\nbs=4k\ndirect=0\nrw=write\nsize=64m\nend_fsync=1\n[w]\nnumjobs=4\n",
		Options{CachePages: cachePages})
	pc := res.PageCache
	if pc == nil {
		t.Fatal("no page cache in a buffered simulated run")
	}
	const pages = 4 * 64 << 20 / bcache.PageSize
	if got := int64(res.Disk.Sectors[blkq.OpWrite]) / 8; got != pages {
		t.Fatalf("disk wrote %d pages, want every dirtied page once: %d", got, pages)
	}
	if pc.WrittenFlusher+pc.WrittenThrottle+pc.WrittenSync != pages {
		t.Fatalf("write-back %+v does not add up to %d pages", *pc, pages)
	}
	if rp := res.Run.PageCache; rp == nil || rp.WrittenFlusher != pc.WrittenFlusher || rp.WrittenThrottle != pc.WrittenThrottle || rp.WrittenSync != pc.WrittenSync {
		t.Fatalf("report's page cache %+v, engine's %+v", rp, *pc)
	}
	if pc.WrittenFlusher == 0 || pc.WrittenThrottle == 0 || pc.Throttled == 0 {
		t.Fatalf("want both the flusher and throttled writers to write back: %+v", *pc)
	}
	ratio, n := bcache.DefaultDirtyRatio, cachePages
	hard := int(ratio * float64(n))
	if pc.MaxDirty > hard+4 {
		t.Fatalf("max dirty %d pages, hard threshold %d (+1 page per writer)", pc.MaxDirty, hard)
	}
	for _, js := range res.Run.Jobs {
		if js.SyncOps == nil || js.SyncOps.IOs != 1 {
			t.Fatalf("job %s: want one end_fsync, got %v", js.Name, js.SyncOps)
		}
	}
}

// TestSimWritebackUnderThreshold: writes that stay under the background
// threshold are absorbed: nothing reaches the disk without a sync, each
// write completes after its copy into the cache (1000 ns for 4 KiB at
// CopyNsPerKiB 250), and a read of a dirty page is a cache hit.
func TestSimWritebackUnderThreshold(t *testing.T) {
	res := run(t, "[global]\nfilename=data\n[w]\nioengine=psync\nbs=4k\ndirect=0\nrw=write\nsize=1m\n[r]\nstonewall\nioengine=psync\nbs=4k\ndirect=0\nrw=randread\nsize=1m\n", Options{})
	pc := res.PageCache
	if res.Disk.Sectors[blkq.OpWrite] != 0 || pc.WrittenFlusher+pc.WrittenThrottle+pc.WrittenSync != 0 {
		t.Fatalf("1 MiB under a 6.4 MiB background threshold reached the disk: %+v", *pc)
	}
	if w := res.Run.Jobs[0].Write; w.Lat.Max() != 1000 || w.Lat.Min() != 1000 {
		t.Fatalf("buffered writes took %d-%d ns, want 1000 (a copy into the cache)", w.Lat.Min(), w.Lat.Max())
	}
	if pc.ReadHits != 256 || res.Disk.IOs[blkq.OpRead] != 0 {
		t.Fatalf("read hits %d, disk reads %d: want all 256 reads served from dirty pages", pc.ReadHits, res.Disk.IOs[blkq.OpRead])
	}
}

// TestSimWritebackFsyncBound: fsync=64 on a writer while three others
// keep dirtying: each sync returns, having written at most what was dirty
// at its call.
func TestSimWritebackFsyncBound(t *testing.T) {
	res := run(t, "[global]\nioengine=psync\nbs=4k\ndirect=0\nrw=randwrite\nsize=32m\nnumber_ios=4096\n[s]\nfsync=64\n[w]\nnumjobs=3\n",
		Options{CachePages: 2048})
	pc := res.PageCache
	js := res.Run.Jobs[0]
	if js.SyncOps == nil || js.SyncOps.IOs != 4096/64 {
		t.Fatalf("syncs %v, want 64", js.SyncOps)
	}
	if len(pc.Syncs) != 64 || pc.WrittenSync == 0 {
		t.Fatalf("%d syncs recorded, %d pages written by syncs", len(pc.Syncs), pc.WrittenSync)
	}
	for i, s := range pc.Syncs {
		if s.Written > s.DirtyAtCall {
			t.Fatalf("sync %d wrote %d pages, %d were dirty at its call", i, s.Written, s.DirtyAtCall)
		}
	}
}

// TestSimWritebackSmallFileTimeBased: a time_based buffered writer that
// rewrites a file smaller than the dirty limits never waits for the disk,
// yet its runtime passes and the run ends (the copy costs virtual time).
func TestSimWritebackSmallFileTimeBased(t *testing.T) {
	res := run(t, "[w]\nioengine=psync\ndirect=0\nrw=randwrite\nbs=4k\nsize=8m\ntime_based\nruntime=200ms\nend_fsync=1\n", Options{})
	js := res.Run.Jobs[0]
	if js.Runtime < 200e6 || js.Write.IOs == 0 {
		t.Fatalf("runtime %d ns, %d writes", js.Runtime, js.Write.IOs)
	}
}

// TestSimWritebackFsyncRedirtied: a random writer rewrites a 10 MiB file
// ten times over in one pass (norandommap: the pass never runs out of
// blocks, so end_fsync comes once, at the end, as in fio); pages under
// write-back are redirtied, and end_fsync must write their newer data
// too: nothing is left dirty, the sync wrote every page dirty at its
// call, and it ended with a cache flush.
func TestSimWritebackFsyncRedirtied(t *testing.T) {
	res := run(t, "[w]\nioengine=psync\ndirect=0\nrw=randwrite\nbs=4k\nsize=10m\nio_size=100m\nnorandommap\nend_fsync=1\n", Options{})
	pc := res.PageCache
	if pc.DirtyAtEnd != 0 {
		t.Fatalf("%d pages left dirty after end_fsync", pc.DirtyAtEnd)
	}
	last := pc.Syncs[len(pc.Syncs)-1]
	if last.Written != last.DirtyAtCall {
		t.Fatalf("end_fsync wrote %d of the %d pages dirty at its call", last.Written, last.DirtyAtCall)
	}
	if res.Disk.IOs[blkq.OpFlush] != 1 {
		t.Fatalf("%d flushes, want end_fsync's one", res.Disk.IOs[blkq.OpFlush])
	}
}

// TestSimWritebackFsyncPerFile: fsync is per file. A job with fsync=16 on
// a 64 KiB file beside a heavy writer on another file writes only its own
// pages (at most its file's 16) at each sync.
func TestSimWritebackFsyncPerFile(t *testing.T) {
	res := run(t, "[global]\nioengine=psync\ndirect=0\nbs=4k\n[a]\nfilename=fa\nrw=write\nsize=12m\n[b]\nfilename=fb\nrw=randwrite\nsize=64k\nio_size=1m\nfsync=16\n", Options{})
	pc := res.PageCache
	if len(pc.Syncs) != 16 {
		t.Fatalf("%d syncs, want 16", len(pc.Syncs))
	}
	for i, s := range pc.Syncs {
		if s.Written > 16 || s.Waited > 16 {
			t.Fatalf("sync %d wrote %d and waited for %d pages: want only job b's (at most 16)", i, s.Written, s.Waited)
		}
	}
}

// TestSimWritebackSharedFileManyWriters: 100 writers on one shared file
// redirty each other's pages while they are under write-back, so at times
// every dirty page is being written: the flusher must idle then, not spin
// (this hung), and the run must end.
func TestSimWritebackSharedFileManyWriters(t *testing.T) {
	res := run(t, "[w]\nrw=write\nbs=64k\nsize=16m\ndirect=0\nioengine=psync\nnumjobs=100\nfilename=shared\n", Options{})
	if res.PageCache.WrittenFlusher == 0 {
		t.Fatal("no write-back")
	}
}

// TestSimWritebackThinktimeAsync: a buffered libaio writer still thinks
// between writes (1 ms after each of 256 writes of 1 µs).
func TestSimWritebackThinktimeAsync(t *testing.T) {
	res := run(t, "[w]\ndirect=0\nsize=1m\nbs=4k\nrw=write\nioengine=libaio\niodepth=4\nthinktime=1000\n", Options{})
	if rt := res.Run.Jobs[0].Runtime; rt < 256e6 || rt > 257e6 {
		t.Fatalf("runtime %d ns, want about 256 ms of thinking", rt)
	}
}

// TestSimWritebackFsyncWholeFile: fsync covers the whole file, not only
// the job's part of it: b's end_fsync on a shared file writes a's pages too.
func TestSimWritebackFsyncWholeFile(t *testing.T) {
	res := run(t, "[global]\nioengine=psync\ndirect=0\nbs=4k\nfilename=shared\nsize=2m\n[a]\nrw=write\nsize=1m\n[b]\nstartdelay=1\nrw=write\nsize=4k\nend_fsync=1\n", Options{})
	if pc := res.PageCache; pc.DirtyAtEnd != 0 || pc.WrittenSync != 256 {
		t.Fatalf("b's fsync wrote %d pages, %d left dirty: want all 256 of the file", pc.WrittenSync, pc.DirtyAtEnd)
	}
}

// TestSimCopiesFollowEachOther: a job's page-cache copies do not overlap,
// however many I/Os it has in flight: 4 MiB at iodepth 256 through
// io_uring take at least 4 MiB × 250 ns/KiB.
func TestSimCopiesFollowEachOther(t *testing.T) {
	res := run(t, "[w]\nioengine=io_uring\ndirect=0\nbs=4k\nsize=4m\nrw=write\niodepth=256\n", Options{})
	if rt := res.Run.Jobs[0].Runtime; rt < 4096*CopyNsPerKiB {
		t.Fatalf("runtime %d ns: the copies overlapped", rt)
	}
}

// TestSimReadAheadSmallFile: a reader going round a file smaller than the
// read-ahead window reads it from the disk once, then from the cache.
func TestSimReadAheadSmallFile(t *testing.T) {
	res := run(t, "[j]\nioengine=psync\ndirect=0\nsize=8k\nbs=4k\nrw=read\ntime_based\nruntime=200ms\n", Options{})
	if ios := res.Disk.IOs[blkq.OpRead]; ios > 3 || res.Run.Jobs[0].Blkq.DroppedReadAhead != 0 {
		t.Fatalf("%d disk reads, %d read-ahead dropped: want the 8 KiB read once", ios, res.Run.Jobs[0].Blkq.DroppedReadAhead)
	}
}

// TestSimPageCacheReadHitsCountReadsOnly: a writer dirties 1 MiB (256
// pages, below the background threshold, so they stay dirty) twice over;
// a reader then reads it back in random 8 KiB reads (random: a sequential
// reader's read-ahead goes to the disk). The page cache's read hits
// are the 256 pages the reads found, in pages as the section counts:
// neither the 128 reads nor the writer's rewrites of dirty pages.
func TestSimPageCacheReadHitsCountReadsOnly(t *testing.T) {
	res := run(t, `[global]
filename=shared
size=1m
[writer]
rw=write
bs=4k
loops=2
[reader]
stonewall
rw=randread
bs=8k
`, Options{})
	if res.PageCache == nil || res.Run.PageCache == nil {
		t.Fatal("no page cache statistics")
	}
	if got := res.Run.Jobs[1].Read.IOs; got != 128 {
		t.Fatalf("reader did %d reads, want 128", got)
	}
	if got := res.Run.PageCache.ReadHits; got != 256 {
		t.Errorf("read hits = %d, want the 256 pages read from the cache", got)
	}
}

// TestRunReadAheadDroppedIsCounted: buffered sequential readers that find
// the read pool short have read-ahead dropped: counted per job and in the
// page cache section, and no job fails for it.
func TestRunReadAheadDroppedIsCounted(t *testing.T) {
	res := run(t, `[global]
rw=read
bs=4k
size=4m
[reader]
numjobs=16
`, Options{NrRequests: 4})
	var jobs int64
	for _, js := range res.Run.Jobs {
		jobs += int64(js.Blkq.DroppedReadAhead)
	}
	if jobs == 0 {
		t.Fatal("no read-ahead dropped: the test shows nothing")
	}
	if got := res.Run.PageCache.ReadAheadDropped; got != jobs {
		t.Errorf("page cache read-ahead dropped=%d, the jobs' sum %d", got, jobs)
	}
}

// TestBufferedOnNullGoesThroughTheCache: on the null device buffered jobs
// go through the page cache too (page states only, on the wall clock):
// 1 MiB of writes under the background threshold reaches the device only
// at the fsync, which writes exactly those 256 pages, as the job's pid;
// its flush ends at the queue, as the null device has no write cache
// (null_blk's default); the report has the page cache section.
func TestBufferedOnNullGoesThroughTheCache(t *testing.T) {
	var log wbLog
	res := run(t, "[w]\nioengine=psync\ndirect=0\nbs=4k\nrw=write\nsize=1m\nend_fsync=1\n", Options{Device: "null", Tracers: []blkq.Tracer{&log}})
	pc := res.PageCache
	if pc == nil || res.Run.PageCache == nil {
		t.Fatal("no page cache on a buffered null run")
	}
	if pc.WrittenSync != 256 || pc.WrittenFlusher+pc.WrittenThrottle != 0 || len(pc.Syncs) != 1 || pc.Syncs[0].Written != 256 {
		t.Errorf("page cache %+v, syncs %+v: want the end_fsync to write the 256 pages", pc.Stats, pc.Syncs)
	}
	if got := res.Disk.Sectors[blkq.OpWrite]; got != 256*8 || res.Disk.IOs[blkq.OpFlush] != 0 {
		t.Errorf("device wrote %d sectors, %d flushes: want 2048 and 0", got, res.Disk.IOs[blkq.OpFlush])
	}
	pid := res.Run.Jobs[0].PID
	for _, e := range log.out {
		var p int
		if fmt.Sscanf(e, "%d", &p); p != pid {
			t.Fatalf("write-back by pid %d (%s), want the job's %d", p, e, pid)
		}
	}
}
