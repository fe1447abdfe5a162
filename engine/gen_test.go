package engine

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLFSRFullPeriod: each register of 3 to 22 bits steps through all
// 2^w − 1 nonzero states before it repeats (the taps are maximal), and
// an lfsr over n blocks hands out each block exactly once per pass, the
// same order again after reset.
func TestLFSRFullPeriod(t *testing.T) {
	for w := uint64(3); w <= 22; w++ {
		l := newLFSR(1<<w-1, 0)
		if l.width != w {
			t.Fatalf("n=2^%d-1: width %d", w, l.width)
		}
		first := l.s
		period := uint64(0)
		for {
			l.step()
			period++
			if l.s == first || period > l.mask {
				break
			}
		}
		if period != l.mask {
			t.Errorf("%d-bit register: period %d, want %d", w, period, l.mask)
		}
	}
	for _, n := range []uint64{1, 2, 3, 7, 8, 100, 1000, 4096, 5000} {
		l := newLFSR(n, n*7919)
		var order []uint64
		seen := make([]bool, n)
		for {
			b, ok := l.next()
			if !ok {
				break
			}
			if b >= n || seen[b] {
				t.Fatalf("n=%d: block %d out of range or twice", n, b)
			}
			seen[b] = true
			order = append(order, b)
		}
		if uint64(len(order)) != n {
			t.Fatalf("n=%d: %d blocks in a pass", n, len(order))
		}
		l.reset()
		for i := range order {
			if b, _ := l.next(); b != order[i] {
				t.Fatalf("n=%d: pass 2 differs at %d", n, i)
			}
		}
	}
}

// TestRandMap: setRun stops at the first done block and at the end,
// nextFree finds the next free block and wraps, and a full map reports
// it, across chunk boundaries.
func TestRandMap(t *testing.T) {
	n := uint64(mapChunkBits*2 + 100)
	m := newRandMap(n)
	if got := m.setRun(10, 5); got != 5 {
		t.Fatalf("setRun(10,5) = %d", got)
	}
	if got := m.setRun(8, 5); got != 2 {
		t.Fatalf("setRun(8,5) over done 10.. = %d, want 2", got)
	}
	if got := m.setRun(n-3, 10); got != 3 {
		t.Fatalf("setRun at the end = %d, want 3", got)
	}
	if b, ok := m.nextFree(8); !ok || b != 15 {
		t.Fatalf("nextFree(8) = %d %v, want 15", b, ok)
	}
	if b, ok := m.nextFree(n - 2); !ok || b != 0 {
		t.Fatalf("nextFree past the last free block = %d %v, want a wrap to 0", b, ok)
	}
	for b := uint64(0); b < n; {
		b += max(m.setRun(b, mapChunkBits), 1)
	}
	if !m.full() || m.done != n {
		t.Fatalf("map not full after setting all: done %d of %d", m.done, n)
	}
	if _, ok := m.nextFree(5); ok {
		t.Fatal("nextFree on a full map found a block")
	}
	m.reset()
	if m.full() || m.isSet(10) {
		t.Fatal("reset left blocks done")
	}
}

// genIOs runs a job's generator by itself over one file region of size
// bytes and returns a pass (at most max I/Os).
func genIOs(t *testing.T, body string, size int64, limit int) []ioRec {
	t.Helper()
	jf := parse(t, "[j]\n"+body+"\n")
	f := &fileRegion{size: size, fileSize: size, end: size}
	g := newGenerator(jf.Jobs[0], rand.New(rand.NewPCG(1, 2)), []*fileRegion{f})
	var ios []ioRec
	for len(ios) < limit {
		io, ok := g.next()
		if !ok {
			break
		}
		ios = append(ios, ioRec{off: io.offset, n: io.length})
	}
	return ios
}

// TestRandomPassCoversRegion: with the random map, random I/O of
// variable sizes (bsrange, bssplit) covers a 64 MiB region exactly, no
// byte twice, nothing shorter than the smallest block, and the pass
// then ends; with norandommap blocks repeat.
func TestRandomPassCoversRegion(t *testing.T) {
	const size = 64 << 20
	for _, body := range []string{
		"rw=randread\nbsrange=4k-64k",
		"rw=randwrite\nbssplit=4k/60:16k/30:128k/10",
		"rw=randread\nbs=8k\nrandom_generator=tausworthe64",
		"rw=randread\nbs=4k\nrandom_generator=lfsr",
		"rw=randread\nbs=4k\nrandom_generator=lfsr\nnorandommap=1", // fio's t0021: lfsr needs no map
		"rw=randrw\nbsrange=4k-16k",
	} {
		ios := genIOs(t, body, size, 1<<22)
		if err := coverage(ios, size, 4096); err != nil {
			t.Errorf("%s: %v", strings.ReplaceAll(body, "\n", " "), err)
		}
	}
	ios := genIOs(t, "rw=randread\nbs=4k\nnorandommap", 1<<20, 256)
	seen := map[int64]bool{}
	for _, io := range ios {
		seen[io.off] = true
	}
	if len(ios) != 256 || len(seen) == 256 {
		t.Errorf("norandommap: %d I/Os on %d distinct blocks, want 256 I/Os with repeats", len(ios), len(seen))
	}
}

// TestSequentialPassEnds: a pass ends at the last whole block that fits
// in the file (filesize=30k bs=4k: seven reads, no 2 KiB one), and a
// hole ends it where the next I/O would start past the region.
func TestSequentialPassEnds(t *testing.T) {
	ios := genIOs(t, "rw=read\nbs=4k", 30<<10, 100)
	if len(ios) != 7 || ios[6].off != 24<<10 || ios[6].n != 4096 {
		t.Errorf("30 KiB file: %v, want 7 reads of 4 KiB ending at 28 KiB", offsLens(ios))
	}
	ios = genIOs(t, "rw=read:64k\nbs=4k", 1<<20, 100)
	if len(ios) != 16 || ios[15].off != 15*68<<10 {
		t.Errorf("rw=read:64k over 1 MiB: %d reads, last %v, want 16, the last at %d", len(ios), ios[len(ios)-1], 15*68<<10)
	}
	ios = genIOs(t, "rw=read\nbsrange=4k-12k", 30<<10, 100)
	var total int64
	for _, io := range ios {
		if io.n < 4096 || io.off+io.n > 30<<10 {
			t.Errorf("bsrange I/O %v is short or past the file", io)
		}
		total += io.n
	}
	if total > 30<<10 || total < 26<<10 {
		t.Errorf("bsrange over 30 KiB: %d bytes", total)
	}
}

// TestFioSuiteHoles is fio's test t0007 (t/jobs/t0007-37cf9e3c.fio, in
// our words): 1 MiB reads with 512 KiB holes over 128 MiB read 85 MiB
// (fio's run-fio-tests.py wants io_kbytes 87040): the 86th read would
// run past the file, so the pass ends there.
func TestFioSuiteHoles(t *testing.T) {
	res := run(t, "[foo]\nsize=128mb\nrw=read:512k\nbs=1m\nnorandommap\ndirect=1\n", Options{})
	if kb := res.Run.Jobs[0].Read.Bytes / 1024; kb != 87040 {
		t.Errorf("read %d KiB, want 87040 as fio", kb)
	}
}

// TestSkewedDistributions: without fio, the generators' statistics
// against their laws: zipf's hottest block takes 1/ζ(n, θ) of the hits,
// zoned's zones their shares, normal's hits cluster (its hottest block
// well above uniform's 1/n).
func TestSkewedDistributions(t *testing.T) {
	const blocks, draws = 4096, 200000
	for _, theta := range []float64{0.5, 1.2} {
		ios := genIOs(t, "rw=randread\nbs=4k\nrandom_distribution=zipf:"+ftoa(theta), blocks*4096, draws)
		var zeta float64
		for i := 1; i <= blocks; i++ {
			zeta += math.Pow(float64(i), -theta)
		}
		want, got := 1/zeta, hottest(ios, 1)
		if math.Abs(got-want) > 0.1*want {
			t.Errorf("zipf:%v: hottest block %.3f%% of hits, law %.3f%%", theta, 100*got, 100*want)
		}
	}
	ios := genIOs(t, "rw=randread\nbs=4k\nrandom_distribution=zoned:50/5:30/15:20/80", blocks*4096, draws)
	sh := shares(ios, []int64{0, 204 * 4096, 819 * 4096, blocks * 4096})
	for i, want := range []float64{0.5, 0.3, 0.2} {
		if math.Abs(sh[i]-want) > 0.01 {
			t.Errorf("zoned: zone %d has %.1f%%, want %.0f%%", i, 100*sh[i], 100*want)
		}
	}
	ios = genIOs(t, "rw=randread\nbs=4k\nrandom_distribution=normal:5", blocks*4096, draws)
	if h := hottest(ios, 1); h < 5.0/blocks {
		t.Errorf("normal: hottest block %.4f%% of hits, not clustered (uniform: %.4f%%)", 100*h, 100.0/blocks)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// TestThinktimeVariants: on the simulated SSD, each stall lasts
// thinktime (or thinktime_spin when longer), comes every
// thinktime_blocks I/Os counted at completion or at issue, or every
// thinktime_iotime of issuing.
func TestThinktimeVariants(t *testing.T) {
	runtime := func(extra string) time.Duration {
		res := run(t, "[j]\nrw=read\nbs=4k\nsize=1m\ndirect=1\nioengine=libaio\niodepth=8\n"+extra+"\n", Options{Device: "sim:ssd"})
		return time.Duration(res.Run.Jobs[0].Runtime)
	}
	base := runtime("")
	for _, tc := range []struct {
		extra  string
		stalls int
		each   time.Duration
	}{
		{"thinktime=1000\nthinktime_blocks=16", 16, time.Millisecond},
		{"thinktime=1000\nthinktime_blocks=16\nthinktime_blocks_type=issue", 16, time.Millisecond},
		{"thinktime=1000\nthinktime_spin=3000\nthinktime_blocks=64", 4, 3 * time.Millisecond},
		{"thinktime=2000\nthinktime_iotime=1ms", 4, 2 * time.Millisecond},
	} {
		got := runtime(tc.extra)
		lo := time.Duration(tc.stalls-1) * tc.each
		hi := time.Duration(tc.stalls)*tc.each + 3*base
		t.Logf("%s: %v (no thinktime: %v)", strings.ReplaceAll(tc.extra, "\n", " "), got, base)
		if got < lo || got > hi {
			t.Errorf("%s: runtime %v, want %v..%v", strings.ReplaceAll(tc.extra, "\n", " "), got, lo, hi)
		}
	}
}

// TestThinktimeToTheEndOfRuntimeOnWallClock: on the null device (the
// wall clock) a job with thinktime=100ms and a runtime of 550 ms issues
// one I/O per stall, never two closer than the thinktime, and so at most
// six, as fio does; the stall that the runtime's end cuts short ends the
// job. Its timer could fire before the runtime's own and the job went on
// issuing, each stall cut to nothing: hundreds of I/Os microseconds apart
// in its last milliseconds.
func TestThinktimeToTheEndOfRuntimeOnWallClock(t *testing.T) {
	for range 3 { // a race with the runtime's timer: try it more than once
		ios := blkqIOs(t, "null", "rw=randread\nbs=4k\nsize=1g\ntime_based\nruntime=550ms\nthinktime=100ms", 1)
		if len(ios) == 0 || len(ios) > 6 {
			t.Fatalf("%d I/Os in 550 ms with a 100 ms thinktime: want 1..6", len(ios))
		}
		for i := 1; i < len(ios); i++ {
			if gap := time.Duration(ios[i].at - ios[i-1].at); gap < 100*time.Millisecond {
				t.Fatalf("I/Os %d and %d issued %v apart, within the 100 ms thinktime", i-1, i, gap)
			}
		}
	}
}

// TestRateMin: a job that cannot reach rate_min fails as fio fails it
// (check_min_rate, EIO) after fio's 2 s of settling; one that can runs on.
func TestRateMin(t *testing.T) {
	res, err := Run(parse(t, "[j]\nrw=randread\nbs=4k\ndirect=1\nioengine=libaio\nfilename=/dev/sdb\nruntime=10\ntime_based\nrate_min=10m\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if js.Error != 5 || !strings.Contains(js.ErrorText, "check_min_rate") || js.Runtime > 4e9 || js.Runtime < 2e9 {
		t.Errorf("rate_min=10m on random disk reads: error %d %q after %d ns, want EIO from check_min_rate after 2-4 s", js.Error, js.ErrorText, js.Runtime)
	}
	ok := run(t, "[j]\nrw=read\nbs=64k\ndirect=1\nioengine=libaio\nsize=64m\nrate_min=1m\n", Options{})
	if ok.Run.Jobs[0].Error != 0 {
		t.Errorf("rate_min=1m on sequential reads failed: %s", ok.Run.Jobs[0].ErrorText)
	}
}

// TestTinyRegions: every distribution and generator on regions of one
// to three blocks stays inside them and ends (no spinning draw).
func TestTinyRegions(t *testing.T) {
	for _, dist := range []string{"random_distribution=normal:50", "random_distribution=zipf:0.5", "random_distribution=pareto:0.5",
		"random_distribution=zoned:50/50:50/50", "random_generator=lfsr", "random_generator=tausworthe64", "norandommap"} {
		for blocks := int64(1); blocks <= 3; blocks++ {
			for _, io := range genIOs(t, "rw=randread\nbs=4k\n"+dist, blocks*4096, 5000) {
				if io.off < 0 || io.off+io.n > blocks*4096 {
					t.Fatalf("%s over %d blocks: I/O %v outside", dist, blocks, io)
				}
			}
		}
	}
}
