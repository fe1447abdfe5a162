package engine

// Each fio example in testdata/fio-3.33 has a point: an order (sequential
// passes, zones, stonewalled phases), a distribution (uniform random
// offsets, a read/write mix), a rate, a verify. TestCorpusCapped only
// checks that every example runs; the tests here run an example
// unmodified (capped in size or time, on a simulated device) and check
// that its point shows in the I/O blkq issued. The I/O is read from the
// queue's Q events (direct jobs: the job's own bios) or, for buffered
// jobs, whose bios the page cache reshapes, from the job's write_iolog,
// added to the parsed job as a user would add it to the file.
//
// The examples whose point is an option modelled elsewhere have their
// test beside that option: flow.fio (flow), dedupe-global.fio (buffer
// contents), steadystate.fio (steady state), cmdprio-*.fio (priorities),
// enospc-pressure.fio (errors). null.fio and numa.fio have no such point
// (the null engine's speed; NUMA placement, inert in blkq), nor has
// nbd.fio, which blkq does not run.

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// queued is one Q event: a bio as its job submitted it.
type queued struct {
	at     blkq.Time
	pid    int
	op     blkq.Op
	off    int64 // bytes
	length int64 // bytes
}

// completion is one C event.
type completion struct {
	at  blkq.Time
	pid int
}

// exampleRun is an example's run: its report and the queue's Q and C
// events.
type exampleRun struct {
	res  *Result
	q    []queued
	c    []completion
	pids map[string][]int // job name → its clones' PIDs, in report order
}

// runExample runs the corpus example name with opt, after edit (nil: none)
// has changed the parsed job file, in a temporary working directory
// (where its logs go), and fails the test on any job error.
func runExample(t *testing.T, name string, opt Options, edit func(*fio.JobFile)) *exampleRun {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	jf, err := fio.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(jf)
	}
	er := &exampleRun{pids: map[string][]int{}}
	opt.Tracers = append(opt.Tracers, blkq.TracerFunc(func(e *blkq.Event) {
		switch e.Action {
		case 'Q':
			er.q = append(er.q, queued{at: e.Time, pid: e.PID, op: e.Op,
				off: int64(e.Sector) << blkq.SectorShift, length: int64(e.Sectors) << blkq.SectorShift})
		case 'C':
			er.c = append(er.c, completion{at: e.Time, pid: e.PID})
		}
	}))
	er.res, err = Run(jf, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, js := range er.res.Run.Jobs {
		if js.Error != 0 {
			t.Fatalf("job %s: error %d %s", js.Name, js.Error, js.ErrorText)
		}
		er.pids[js.Name] = append(er.pids[js.Name], js.PID)
	}
	return er
}

// ofPID returns the Q events of the job with process id pid.
func (er *exampleRun) ofPID(pid int) []queued {
	var qs []queued
	for _, q := range er.q {
		if q.pid == pid {
			qs = append(qs, q)
		}
	}
	return qs
}

// span returns the first Q and the last C of the jobs with the given PIDs.
func (er *exampleRun) span(pids []int) (first, last blkq.Time) {
	in := map[int]bool{}
	for _, p := range pids {
		in[p] = true
	}
	first = -1
	for _, q := range er.q {
		if in[q.pid] && (first < 0 || q.at < first) {
			first = q.at
		}
	}
	for _, c := range er.c {
		if in[c.pid] && c.at > last {
			last = c.at
		}
	}
	return first, last
}

// timedOp is an iolog I/O line with its time, µs since its job started.
type timedOp struct {
	usec int64
	iologOp
}

// readClonesIolog returns the read, write and trim lines of an iolog, in
// order, which several clones may have appended to (each with its own
// header).
func readClonesIolog(t *testing.T, path string) []timedOp {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ios []timedOp
	for n, line := range strings.Split(string(data), "\n") {
		fs := strings.Fields(line)
		if len(fs) != 5 || fs[2] == "sync" || fs[2] == "datasync" {
			continue // a header, add, open, close, a sync
		}
		us, err0 := strconv.ParseInt(fs[0], 10, 64)
		off, err1 := strconv.ParseInt(fs[3], 10, 64)
		length, err2 := strconv.ParseInt(fs[4], 10, 64)
		if err0 != nil || err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: %q", path, n+1, line)
		}
		ios = append(ios, timedOp{us, iologOp{file: fs[1], act: fs[2], off: off, n: length}})
	}
	return ios
}

// withIolog makes every job of jf write its iolog to io.log in the
// working directory.
func withIolog(jf *fio.JobFile) {
	for _, j := range jf.Jobs {
		j.Logs.WriteIolog = "io.log"
	}
}

// checkStreams checks that ios (one direction's I/Os of n clones reading
// or writing one file) are n interleaved sequential passes from offset 0:
// each I/O starts where an earlier one of its stream ended.
func checkStreams(t *testing.T, what string, ios []timedOp, n int) {
	t.Helper()
	next := map[int64]int{0: n} // offset → how many streams continue there
	for i, io := range ios {
		if next[io.off] == 0 {
			t.Fatalf("%s: I/O %d at %d continues no stream (expected one of %v)", what, i, io.off, keys(next))
		}
		next[io.off]--
		if next[io.off] == 0 {
			delete(next, io.off)
		}
		next[io.off+io.n]++
	}
}

func keys(m map[int64]int) []int64 {
	var ks []int64
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks[:min(len(ks), 8)]
}

// TestExampleSequentialPasses: fio-seq-read, fio-seq-write and fio-seq-RW
// (four buffered libaio clones of one file, time-based) read and write in
// sequential passes from the file's start, each direction of each clone
// its own pass (fio keeps the last offset per direction); fio-seq-RW
// mixes 60 % reads (rwmixread=60) within 3 σ.
func TestExampleSequentialPasses(t *testing.T) {
	for _, c := range []struct {
		name      string
		bs        int64
		readShare float64 // -1: one direction only
	}{
		{"fio-seq-read.fio", 256 << 10, -1},
		{"fio-seq-write.fio", 256 << 10, -1},
		{"fio-seq-RW.fio", 256 << 10, 0.6},
	} {
		t.Run(c.name, func(t *testing.T) {
			runExample(t, c.name, Options{SizeCap: 64 << 20, RuntimeCap: 500 * time.Millisecond}, withIolog)
			ios := readClonesIolog(t, "io.log")
			byOp := map[string][]timedOp{}
			for _, io := range ios {
				if io.n != c.bs {
					t.Fatalf("I/O of %d bytes; want bs=%d", io.n, c.bs)
				}
				byOp[io.act] = append(byOp[io.act], io)
			}
			for op, l := range byOp {
				checkStreams(t, op, l, 4)
			}
			if c.readShare >= 0 {
				checkShare(t, "read", len(byOp["read"]), len(ios), c.readShare)
			} else if len(byOp) != 1 {
				t.Fatalf("directions %v; want one", len(byOp))
			}
			t.Logf("%d I/Os", len(ios))
			if len(ios) < 100 {
				t.Fatalf("%d I/Os: too few to show the point", len(ios))
			}
		})
	}
}

// checkShare checks that k of n is share of them within 3 binomial σ.
func checkShare(t *testing.T, what string, k, n int, share float64) {
	t.Helper()
	sigma := math.Sqrt(share * (1 - share) / float64(n))
	if got := float64(k) / float64(n); math.Abs(got-share) > 3*sigma {
		t.Fatalf("%s share %.4f of %d I/Os; want %.2f ± %.4f (3 σ)", what, got, n, share, 3*sigma)
	}
}

// chiSquareUniform returns the chi-square statistic of offsets (bytes)
// falling into buckets equal parts of [0, size).
func chiSquareUniform(offsets []int64, size int64, buckets int) float64 {
	count := make([]float64, buckets)
	for _, o := range offsets {
		count[o*int64(buckets)/size]++
	}
	want := float64(len(offsets)) / float64(buckets)
	var chi float64
	for _, c := range count {
		chi += (c - want) * (c - want) / want
	}
	return chi
}

// TestExampleUniformRandom: fio-rand-read, fio-rand-write and fio-rand-RW
// spread their 4 KiB I/Os uniformly over the file (chi-square over 16
// equal parts below 37.7, p = 0.001 at 15 degrees of freedom), few in
// sequence, and fio-rand-RW reads 60 % of them within 3 σ.
func TestExampleUniformRandom(t *testing.T) {
	const size = 64 << 20
	for _, c := range []struct {
		name      string
		readShare float64
		runtime   time.Duration // enough for 2000 I/Os: reads wait for the disk
	}{
		{"fio-rand-read.fio", 1, 15 * time.Second},
		{"fio-rand-write.fio", 0, 200 * time.Millisecond},
		{"fio-rand-RW.fio", 0.6, 15 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			runExample(t, c.name, Options{SizeCap: size, RuntimeCap: c.runtime}, withIolog)
			ios := readClonesIolog(t, "io.log")
			t.Logf("%d I/Os", len(ios))
			if len(ios) < 2000 {
				t.Fatalf("%d I/Os: too few to show the point", len(ios))
			}
			var offs []int64
			reads, inSequence := 0, 0
			for i, io := range ios {
				if io.n != 4096 || io.off%4096 != 0 || io.off >= size {
					t.Fatalf("I/O %d: %d bytes at %d; want 4 KiB blocks of the first %d bytes", i, io.n, io.off, size)
				}
				offs = append(offs, io.off)
				if io.act == "read" {
					reads++
				}
				if i > 0 && io.off == ios[i-1].off+4096 {
					inSequence++
				}
			}
			switch c.readShare {
			case 1, 0:
				if want := int(c.readShare) * len(ios); reads != want {
					t.Fatalf("%d reads of %d I/Os; want %d", reads, len(ios), want)
				}
			default:
				checkShare(t, "read", reads, len(ios), c.readShare)
			}
			if chi := chiSquareUniform(offs, size, 16); chi > 37.7 {
				t.Fatalf("chi-square %.1f over 16 parts of the file; want < 37.7 (uniform)", chi)
			}
			if inSequence > len(ios)/100 {
				t.Fatalf("%d of %d I/Os follow the one before: not random", inSequence, len(ios))
			}
		})
	}
}

// TestExampleFixedRate: fixed-rate-submission holds its reads at
// rate_iops=1000: 1000 IOPS in the report, and the I/Os are issued 1 ms
// apart on average.
func TestExampleFixedRate(t *testing.T) {
	er := runExample(t, "fixed-rate-submission.fio", Options{RuntimeCap: 3 * time.Second}, nil)
	js := er.res.Run.Jobs[0]
	if iops := float64(js.Read.IOs) / (float64(js.Read.Runtime) / 1e9); iops < 995 || iops > 1005 {
		t.Fatalf("%.1f IOPS (%d reads in %d ns); want 1000 ± 5", iops, js.Read.IOs, js.Read.Runtime)
	}
	if n := len(er.q); n < 2 {
		t.Fatalf("%d bios", n)
	}
	gap := float64(er.q[len(er.q)-1].at-er.q[0].at) / float64(len(er.q)-1)
	if gap < 0.995e6 || gap > 1.005e6 {
		t.Fatalf("mean gap between submissions %.0f ns; want 1 ms ± 0.5 %%", gap)
	}
}

// TestExample1mbsClients: 1mbs_clients starts a reader every 4 s
// (startdelay), each held at rate=1250 bytes/s (fio 3.33 reads a bare
// rate in bytes/s: the example's "1024kb/s" is from when it meant KiB),
// which at 4 KiB blocks is one read every 3.3 s.
func TestExample1mbsClients(t *testing.T) {
	er := runExample(t, "1mbs_clients.fio", Options{RuntimeCap: 12 * time.Second}, func(jf *fio.JobFile) {
		for _, j := range jf.Jobs {
			j.Logs.WriteIolog = j.Name + ".iolog"
		}
	})
	for i, name := range []string{"file1", "file2", "file3", "file4"} {
		pids := er.pids[name]
		if len(pids) != 1 {
			t.Fatalf("job %s: %d clones", name, len(pids))
		}
		// Buffered: the job's first read reaches the disk as the page
		// cache's read of it, at once.
		qs := er.ofPID(pids[0])
		if len(qs) == 0 {
			t.Fatalf("job %s: nothing reached the disk", name)
		}
		if want := blkq.Time(4*i) * blkq.Time(time.Second); qs[0].at < want || qs[0].at > want+blkq.Time(time.Millisecond) {
			t.Errorf("job %s: first read at %v; want %v (startdelay)", name, time.Duration(qs[0].at), time.Duration(want))
		}
		// 12 s at 1250 B/s is 15,000 bytes: fio issues a read as soon as
		// the bytes so far are within the rate, so 4 reads, at 0, 3.3,
		// 6.6 and 9.8 s (fio 3.33: 16 KiB, 1365 B/s).
		ios := readClonesIolog(t, name+".iolog")
		if len(ios) != 4 {
			t.Errorf("job %s: %d reads in 12 s; want 4", name, len(ios))
		}
		for k := 1; k < len(ios); k++ {
			gap := time.Duration(ios[k].usec-ios[k-1].usec) * time.Microsecond
			if want := 4096 * time.Second / 1250; gap < want-time.Millisecond || gap > want+time.Millisecond {
				t.Errorf("job %s: reads %v apart; want %v", name, gap, want)
			}
		}
	}
}

// TestExampleZoneProfile: disk-zone-profile reads 256 MiB zones 2 GiB
// apart (zonemode=strided, zonesize=256m, zoneskip=2g), each zone in
// order from its start, in 64 KiB reads.
func TestExampleZoneProfile(t *testing.T) {
	const zone, skip = 256 << 20, 2 << 30
	er := runExample(t, "disk-zone-profile.fio", Options{RuntimeCap: 5 * time.Second}, nil)
	zones := map[int64]int64{} // zone → the next offset expected in it
	last := int64(-1)
	for i, q := range er.q {
		if q.op != blkq.OpRead || q.length != 64<<10 {
			t.Fatalf("bio %d: op %v, %d bytes; want 64 KiB reads", i, q.op, q.length)
		}
		z := q.off / (zone + skip)
		if q.off-z*(zone+skip) >= zone {
			t.Fatalf("bio %d at %d: in the %d GiB skipped after zone %d", i, q.off, skip>>30, z)
		}
		want, seen := zones[z]
		if !seen {
			if z <= last {
				t.Fatalf("zone %d starts after zone %d", z, last)
			}
			want, last = z*(zone+skip), z
		}
		if q.off != want {
			t.Fatalf("bio %d at %d; want %d, the next in zone %d", i, q.off, want, z)
		}
		zones[z] = q.off + q.length
	}
	if len(zones) < 2 {
		t.Fatalf("%d zones read in 5 s; want at least 2 to show the skip", len(zones))
	}
	t.Logf("%d bios over %d zones", len(er.q), len(zones))
}

// TestExampleDepths: aio-read's four jobs keep 4, 32, 8 and 16 reads in
// flight (direct libaio): in the report's I/O depths only the iodepth-1
// reads that fill the queue at the start are below the job's iodepth, and
// none is above it.
func TestExampleDepths(t *testing.T) {
	er := runExample(t, "aio-read.fio", Options{SizeCap: 16 << 20}, nil)
	for _, js := range er.res.Run.Jobs {
		b := report.DepthBucket(js.IODepth)
		var total uint64
		for k, n := range js.IODepthHist {
			total += n
			if k > b && n > 0 {
				t.Errorf("job %s (iodepth=%d): %d I/Os at depth bucket %d", js.Name, js.IODepth, n, k)
			}
		}
		if below := total - js.IODepthHist[b]; below != uint64(js.IODepth-1) {
			t.Errorf("job %s (iodepth=%d): %d of its %d I/Os below its depth; want %d", js.Name, js.IODepth, below, total, js.IODepth-1)
		}
	}
}

// TestExampleVerifyAfterWrite: basic-verify writes its region in random
// 4 KiB blocks and then reads every block back once (verify=crc32c, no
// backlog: all reads after the last write).
func TestExampleVerifyAfterWrite(t *testing.T) {
	er := runExample(t, "basic-verify.fio", Options{SizeCap: 4 << 20}, nil)
	written := map[int64]int{}
	var lastWrite blkq.Time
	for _, q := range er.q {
		if q.op == blkq.OpWrite {
			written[q.off]++
			lastWrite = q.at
		}
	}
	if len(written) != 1024 {
		t.Fatalf("%d blocks written; want the 1024 of 4 MiB", len(written))
	}
	read := map[int64]int{}
	for _, q := range er.q {
		if q.op == blkq.OpRead {
			if q.at < lastWrite {
				t.Fatalf("a verify read at %v, before the last write at %v", time.Duration(q.at), time.Duration(lastWrite))
			}
			read[q.off]++
		}
	}
	for off, n := range written {
		if n != 1 || read[off] != 1 {
			t.Fatalf("block at %d written %d times, read back %d times; want once each", off, n, read[off])
		}
	}
	if len(read) != len(written) {
		t.Fatalf("%d blocks read; want the %d written", len(read), len(written))
	}
}

// TestExampleCrossStripeVerify: each of cross-stripe-verify's 30 jobs
// writes 16 KiB every 128 KiB (rw=write:112k) from 120 KiB past its
// 124 GiB offset_increment, and with verify_backlog=1 reads each block
// back before writing the next.
func TestExampleCrossStripeVerify(t *testing.T) {
	er := runExample(t, "cross-stripe-verify.fio", Options{SizeCap: 1 << 20}, nil)
	pids := er.pids["write-verify"]
	if len(pids) != 30 {
		t.Fatalf("%d jobs; want 30", len(pids))
	}
	for n, pid := range pids {
		qs := er.ofPID(pid)
		if len(qs) == 0 || len(qs)%2 != 0 {
			t.Fatalf("job %d: %d bios; want writes and their verify reads", n, len(qs))
		}
		next := int64(n)*124<<30 + 120<<10
		for k := 0; k < len(qs); k += 2 {
			w, r := qs[k], qs[k+1]
			if w.op != blkq.OpWrite || r.op != blkq.OpRead || w.off != r.off || w.length != 16<<10 || r.length != 16<<10 {
				t.Fatalf("job %d, bios %d-%d: %v %d+%d then %v %d+%d; want a 16 KiB write and its read", n, k, k+1, w.op, w.off, w.length, r.op, r.off, r.length)
			}
			if w.off != next && k > 0 {
				// loops=2 starts the second pass from the job's offset.
				if w.off != int64(n)*124<<30+120<<10 {
					t.Fatalf("job %d: write at %d; want %d", n, w.off, next)
				}
			}
			if k == 0 && w.off != next {
				t.Fatalf("job %d: first write at %d; want %d", n, w.off, next)
			}
			next = w.off + 128<<10
		}
	}
}

// checkStonewalls checks that each group of jobs starts after every job
// of the group before it has completed its last I/O.
func checkStonewalls(t *testing.T, er *exampleRun, groups [][]string) {
	t.Helper()
	var prevEnd blkq.Time
	for g, names := range groups {
		var pids []int
		for _, name := range names {
			pids = append(pids, er.pids[name]...)
		}
		first, last := er.span(pids)
		if first < 0 {
			t.Fatalf("group %v issued nothing", names)
		}
		if g > 0 && first < prevEnd {
			t.Fatalf("group %v started at %v, before the group before it ended at %v", names, time.Duration(first), time.Duration(prevEnd))
		}
		prevEnd = last
	}
}

// TestExampleTiobench: tiobench-example's four phases (write, randwrite,
// read, randread; 4 clones each) run one after the other (stonewall).
func TestExampleTiobench(t *testing.T) {
	er := runExample(t, "tiobench-example.fio", Options{SizeCap: 1 << 20}, nil)
	for _, name := range []string{"f1", "f2", "f3", "f4"} {
		if n := len(er.pids[name]); n != 4 {
			t.Fatalf("job %s: %d clones; want 4 (numjobs=4)", name, n)
		}
	}
	checkStonewalls(t, er, [][]string{{"f1"}, {"f2"}, {"f3"}, {"f4"}})
}

// TestExampleSSDTest: ssd-test's four jobs run one after the other
// (stonewall), the sequential ones in order and the random ones not.
func TestExampleSSDTest(t *testing.T) {
	er := runExample(t, "ssd-test.fio", Options{SizeCap: 1 << 20}, nil)
	checkStonewalls(t, er, [][]string{{"seq-read"}, {"rand-read"}, {"seq-write"}, {"rand-write"}})
	for _, name := range []string{"seq-read", "rand-read", "seq-write", "rand-write"} {
		qs := er.ofPID(er.pids[name][0])
		inOrder := 0
		for k := 1; k < len(qs); k++ {
			if qs[k].off == qs[k-1].off+qs[k-1].length {
				inOrder++
			}
		}
		seq := !strings.HasPrefix(name, "rand")
		if len(qs) != 256 || (seq && inOrder != 255) || (!seq && inOrder > len(qs)/10) {
			t.Errorf("job %s: %d of %d bios follow the one before", name, inOrder, len(qs))
		}
	}
}

// TestExampleFsx: fsx reads and writes 4 KiB blocks of a 256 KiB file at
// random with norandommap: blocks repeat within a pass, and every I/O is
// inside the file.
func TestExampleFsx(t *testing.T) {
	er := runExample(t, "fsx.fio", Options{RuntimeCap: 10 * time.Second}, nil)
	seen := map[int64]int{}
	ops := map[blkq.Op]int{}
	for i, q := range er.q {
		if q.length != 4096 || q.off%4096 != 0 || q.off+q.length > 256<<10 {
			t.Fatalf("bio %d: %d bytes at %d; want 4 KiB blocks of 256 KiB", i, q.length, q.off)
		}
		ops[q.op]++
		if i < 64 {
			seen[q.off]++
		}
	}
	if len(er.q) < 1000 {
		t.Fatalf("%d bios", len(er.q))
	}
	if len(seen) == 64 {
		t.Fatalf("the first 64 I/Os touch 64 blocks: no repeat, as if a random map were kept")
	}
	checkShare(t, "read", ops[blkq.OpRead], len(er.q), 0.5)
}

// TestExampleExitWhat: in exitwhat.fio, slow1's end (1000 reads 2 ms
// apart) ends the fast1 clones running beside it (exitall with
// exit_what=stonewall), and slow2's end ends fast2 and runsnever
// (exit_what=all); the fast clones, held at 300 bytes/s, issue one read
// and one write each before that. fio 3.33 issues the same: 1000 reads,
// 3 and 3, then 6 reads and 1006 writes (slow2's 1000 writes among them).
func TestExampleExitWhat(t *testing.T) {
	er := runExample(t, "exitwhat.fio", Options{SizeCap: 16 << 20}, nil)
	ios := func(names ...string) (reads, writes uint64) {
		for _, js := range er.res.Run.Jobs {
			for _, n := range names {
				if js.Name == n {
					reads += js.Read.IOs
					writes += js.Write.IOs
				}
			}
		}
		return
	}
	for _, c := range []struct {
		names         []string
		reads, writes uint64
	}{
		{[]string{"slow1"}, 1000, 0},
		{[]string{"fast1"}, 3, 3},
		{[]string{"slow2", "fast2", "runsnever"}, 6, 1006},
	} {
		if r, w := ios(c.names...); r != c.reads || w != c.writes {
			t.Errorf("jobs %v: %d reads, %d writes; want %d, %d", c.names, r, w, c.reads, c.writes)
		}
	}
	// Each job ends with the slow job that ended it: their runtimes
	// agree (they started together).
	runtime := map[string][]int64{}
	for _, js := range er.res.Run.Jobs {
		runtime[js.Name] = append(runtime[js.Name], js.Runtime)
	}
	for slow, ended := range map[string][]string{"slow1": {"fast1"}, "slow2": {"fast2", "runsnever"}} {
		want := runtime[slow][0]
		if want < int64(2*time.Second) {
			t.Fatalf("%s ran %v; want over 2 s (1000 thinktimes of 2 ms)", slow, time.Duration(want))
		}
		for _, name := range ended {
			for _, rt := range runtime[name] {
				if d := rt - want; d < -int64(time.Millisecond) || d > int64(time.Millisecond) {
					t.Errorf("%s ran %v; want %v, as long as %s", name, time.Duration(rt), time.Duration(want), slow)
				}
			}
		}
	}
}
