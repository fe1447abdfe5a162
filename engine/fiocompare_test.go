package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// Side by side with Debian's fio 3.33: the same job through fio and
// through blkq. Sequential offsets are deterministic in both and must be
// equal; random ones are compared by the statistics fio's generators
// give them (shares, hottest block, moments), and by exact properties
// (each block once, no overlap, whole coverage) that fio's own iolog
// shows too.

// TestFioSequentialOffsets: for sequential jobs blkq issues exactly the
// offsets and lengths fio's iolog records: holes end the pass at the
// region's end (rw=read:64k from offset=100m), a hole that carries the
// position past the file size wraps as fio wraps (rw=read:4k), no I/O is
// shorter than the block size at the end of a file (filesize=30k bs=4k),
// and percentage offsets and sizes are rounded as fio rounds them.
func TestFioSequentialOffsets(t *testing.T) {
	for _, body := range []string{
		"rw=read:64k\noffset=100m\nsize=128m\nbs=4k",
		"rw=read:64k\nsize=1m\nbs=4k",
		"rw=read:4k\nsize=1m\nbs=4k",
		"rw=read\nfilesize=30k\nbs=4k",
		"rw=write\nfilesize=30k\nbs=4k",
		"rw=read\nfilesize=1001k\noffset=10%\nbs=8k",
		"rw=read\nfilesize=1001k\noffset=10%\nbs=8k\noffset_align=1k",
		"rw=read\nfilesize=1001k\noffset=10%\nsize=33%\nbs=8k",
		"rw=read\nfilesize=1m\nsize=30k\nbs=4k",
		"rw=read\nsize=256k\nio_size=600k\nbs=16k",
		"rw=read:-8k\nsize=64k\nbs=4k\nio_size=96k",
	} {
		t.Run(body, func(t *testing.T) {
			var layout int64
			if strings.Contains(body, "%") {
				layout = 1001 << 10
			}
			// fio runs on a file of its own on disk: its null engine
			// lets the last I/O run past a 30 KiB file, which fio on a
			// file never does. The 228 MiB file fio would first write
			// out; there the null engine, whose holes are the same,
			// stands in.
			engine := "psync"
			if strings.Contains(body, "offset=100m") {
				engine = "null"
			}
			want, _ := fioIOs(t, engine, body, layout)
			got := blkqIOs(t, "null", body, 1)
			if len(want) == 0 {
				t.Fatal("fio issued nothing")
			}
			if !sameOffsets(got, want) {
				t.Errorf("blkq issued %d I/Os %s, fio %d %s", len(got), sketch(got), len(want), sketch(want))
			}
		})
	}
}

func sameOffsets(a, b []ioRec) bool {
	return slices.EqualFunc(a, b, func(x, y ioRec) bool { return x.off == y.off && x.n == y.n })
}

// sketch shows the first and last I/Os of a list.
func sketch(ios []ioRec) string {
	if len(ios) <= 6 {
		return fmt.Sprint(offsLens(ios))
	}
	return fmt.Sprintf("%v ... %v", offsLens(ios[:3]), offsLens(ios[len(ios)-3:]))
}

func offsLens(ios []ioRec) [][2]int64 {
	var out [][2]int64
	for _, io := range ios {
		out = append(out, [2]int64{io.off, io.n})
	}
	return out
}

// TestFioRandomCoverage: a pass of random I/O with the random map
// (fio's default), with lfsr, and with variable block sizes (bsrange,
// bssplit) covers the region exactly once, no I/O overlapping another
// and none shorter than the smallest block, in fio's iolog and in blkq's;
// with lfsr both do each block exactly once.
func TestFioRandomCoverage(t *testing.T) {
	const size = 1 << 20
	for _, body := range []string{
		"rw=randread\nsize=1m\nbs=4k",
		"rw=randread\nsize=1m\nbs=4k\nrandom_generator=lfsr",
		"rw=randwrite\nsize=1m\nbs=4k\nrandom_generator=tausworthe64",
		"rw=randread\nsize=1m\nbsrange=4k-16k",
		"rw=randwrite\nsize=1m\nbssplit=4k/50:8k/30:64k/20",
		"rw=randread\nfilesize=30k\nbs=4k",
	} {
		t.Run(body, func(t *testing.T) {
			fioRun, _ := fioIOs(t, "psync", body, 0)
			blkqRun := blkqIOs(t, "null", body, 7)
			region := int64(size)
			if body == "rw=randread\nfilesize=30k\nbs=4k" {
				region = 28 << 10 // seven whole blocks: no 2 KiB tail
			}
			for name, ios := range map[string][]ioRec{"fio": fioRun, "blkq": blkqRun} {
				if err := coverage(ios, region, 4096); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
			if len(fioRun) != len(blkqRun) && !slices.Contains([]string{"bsrange", "bssplit"}, kindOf(body)) {
				t.Errorf("fio did %d I/Os, blkq %d", len(fioRun), len(blkqRun))
			}
			if kindOf(body) == "bsrange" || kindOf(body) == "bssplit" {
				t.Logf("%s: fio %d I/Os, blkq %d", kindOf(body), len(fioRun), len(blkqRun))
			}
		})
	}
}

func kindOf(body string) string {
	for _, k := range []string{"bsrange", "bssplit"} {
		if strings.Contains(body, k) {
			return k
		}
	}
	return ""
}

// TestFioDistributions: the offset histograms of random_distribution
// match fio's on the same job: each zone's share of the I/Os within 2
// percentage points (zoned, zoned_abs), the hottest block's share of the
// hits within 10 % (zipf, pareto; normal: its hottest 1 %).
func TestFioDistributions(t *testing.T) {
	if raceEnabled {
		// 1.8 million I/Os through fio and blkq compare statistics, not
		// goroutines: test.sh runs this in its plain pass.
		t.Skip("a statistical comparison; run without -race")
	}
	const n = 100000
	zoneCuts := func(cuts ...int64) []int64 { return cuts }
	for _, tc := range []struct {
		body string
		cuts []int64 // zones by byte offset; nil: compare the hottest block
	}{
		// 16 MiB is 4096 blocks: the zones start at blocks 0, 5% and 20%
		// of 4096, rounded down as fio rounds them.
		{"random_distribution=zoned:50/5:30/15:20/80", zoneCuts(0, 204*4096, 819*4096, 16<<20)},
		{"random_distribution=zoned:10/50:90/50", zoneCuts(0, 8<<20, 16<<20)},
		{"random_distribution=zoned_abs:60/1m:30/3m:10/12m", zoneCuts(0, 1<<20, 4<<20, 16<<20)},
		{"random_distribution=zipf:0.5", nil},
		{"random_distribution=zipf:1.2", nil},
		{"random_distribution=pareto:0.9", nil},
		{"random_distribution=pareto:0.3", nil},
		// normal's hottest block alone gets a hundred-odd hits, too few
		// to compare at 10 %: its hottest 1 % of blocks is compared.
		{"random_distribution=normal:5", nil},
		{"random_distribution=normal:0", nil},
	} {
		t.Run(tc.body, func(t *testing.T) {
			body := fmt.Sprintf("rw=randread\nsize=16m\nbs=4k\nio_size=%d\n%s", n*4096, tc.body)
			fioRun, _ := fioIOs(t, "null", body, 0)
			blkqRun := blkqIOs(t, "null", body, 3)
			if len(fioRun) != n || len(blkqRun) != n {
				t.Fatalf("fio did %d I/Os, blkq %d, want %d", len(fioRun), len(blkqRun), n)
			}
			if tc.cuts == nil {
				top := 1
				if strings.Contains(tc.body, "normal") {
					top = 4096 / 100
				}
				f, b := hottest(fioRun, top), hottest(blkqRun, top)
				t.Logf("hottest %d block(s): fio %.2f%% of the hits, blkq %.2f%%", top, 100*f, 100*b)
				if math.Abs(b-f) > 0.10*f {
					t.Errorf("hottest %d block(s) take %.2f%% in blkq, %.2f%% in fio: more than 10%% apart", top, 100*b, 100*f)
				}
				return
			}
			f, b := shares(fioRun, tc.cuts), shares(blkqRun, tc.cuts)
			t.Logf("zone shares: fio %s, blkq %s", pcts(f), pcts(b))
			for i := range f {
				if math.Abs(f[i]-b[i]) > 0.02 {
					t.Errorf("zone %d: blkq %.1f%%, fio %.1f%%: more than 2 points apart", i, 100*b[i], 100*f[i])
				}
			}
		})
	}
}

func pcts(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += "/"
		}
		s += fmt.Sprintf("%.1f", 100*x)
	}
	return s + " %"
}

// TestFioPoissonArrivals: rate_process=poisson spaces I/Os by
// exponential gaps: the coefficient of variation of the gaps is within
// 0.05 of 1 in fio's draws and in blkq's arrivals, each with its mean
// (1/rate_iops) within 5 %; linear pacing has CV under 0.01 in blkq. As
// fio does before every rate sleep, blkq waits for the job's I/O in
// flight first (rate_ddir's quiesce), so an arrival comes one device
// latency after its draw and a gap carries the difference of two
// latencies: blkq's side runs at 400 IOPS, whose mean gap of 2.5 ms is
// 25 times sim:ssd's latency (at 4000 IOPS the latencies took its CV to
// 1.045).
func TestFioPoissonArrivals(t *testing.T) {
	const body = "rw=randread\nsize=64m\nbs=4k\nrate_iops=%d\nrate_process=poisson\nnumber_ios=4000\niodepth=64"
	fioGaps := fioPoissonGaps(t, fmt.Sprintf(body, 4000))
	if len(fioGaps) < 3900 {
		t.Fatalf("fio printed %d gaps, want about 4000", len(fioGaps))
	}
	blkqRun := blkqIOs(t, "sim:ssd", fmt.Sprintf(body, 400), 5)
	var blkqGaps []float64
	for i := 1; i < len(blkqRun); i++ {
		blkqGaps = append(blkqGaps, float64(blkqRun[i].at-blkqRun[i-1].at)/1e3)
	}
	fm, fcv := moments(fioGaps)
	bm, bcv := moments(blkqGaps)
	t.Logf("gaps: fio mean %.1f µs CV %.3f (%d), blkq mean %.1f µs CV %.3f (%d)", fm, fcv, len(fioGaps), bm, bcv, len(blkqGaps))
	for name, cv := range map[string]float64{"fio": fcv, "blkq": bcv} {
		if math.Abs(cv-1) > 0.05 {
			t.Errorf("%s: CV %.3f, want within 0.05 of 1", name, cv)
		}
	}
	if math.Abs(bm-2500) > 0.05*2500 || math.Abs(fm-250) > 0.05*250 {
		t.Errorf("mean gap: fio %.1f µs (want 250, 1/4000 s), blkq %.1f µs (want 2500, 1/400 s), within 5%%", fm, bm)
	}
	lin := blkqIOs(t, "sim:ssd", "rw=randread\nsize=64m\nbs=4k\nrate_iops=400\nnumber_ios=400\niodepth=64", 5)
	var linGaps []float64
	for i := 1; i < len(lin); i++ {
		linGaps = append(linGaps, float64(lin[i].at-lin[i-1].at))
	}
	if _, cv := moments(linGaps); cv > 0.01 {
		t.Errorf("linear pacing: CV %.3f, want under 0.01", cv)
	}
}

// TestFioStridedZones: zonemode=strided goes round its zones until the
// job has done its size, as fio does: with zonesize=1m zoneskip=8m over
// 64 MiB fio reads the zones at 0, 9, ..., 63 MiB eight times over (1024
// reads of 64 KiB), and blkq (libaio on the simulated disk) issues the
// same offsets in the same order; a block size that does not divide the
// zone, an offset, loops and writes too. Random I/O draws within the
// zone: each zone's turn reads each of its blocks once, zone after zone
// in fio's order.
func TestFioStridedZones(t *testing.T) {
	for _, body := range []string{
		"rw=read\nbs=64k\nzonemode=strided\nzonesize=1m\nzoneskip=8m\nsize=64m",
		"rw=read\nbs=48k\nzonemode=strided\nzonesize=100k\nzoneskip=28k\nsize=1m",
		"rw=write\nbs=4k\nzonemode=strided\nzonesize=64k\nzoneskip=192k\nsize=1m\noffset=256k",
		"rw=read\nbs=16k\nzonemode=strided\nzonesize=128k\nzoneskip=128k\nsize=1m\nloops=2",
		"rw=read\nbs=64k\nzonemode=strided\nzonesize=1m\nzoneskip=8m\nsize=64m\nio_size=16m",
	} {
		t.Run(body, func(t *testing.T) {
			want, _ := fioIOs(t, "null", body, 0)
			got := blkqIOs(t, "sim:hdd", body, 1)
			if len(want) == 0 {
				t.Fatal("fio issued nothing")
			}
			if !sameOffsets(got, want) {
				t.Errorf("blkq issued %d I/Os %s, fio %d %s", len(got), sketch(got), len(want), sketch(want))
			}
		})
	}
	const body = "rw=randread\nbs=64k\nzonemode=strided\nzonesize=1m\nzoneskip=8m\nsize=64m"
	want, _ := fioIOs(t, "null", body, 0)
	got := blkqIOs(t, "sim:hdd", body, 1)
	if len(got) != len(want) || len(want) != 1024 {
		t.Fatalf("randread: blkq issued %d I/Os, fio %d; want 1024", len(got), len(want))
	}
	// Each turn of 16 reads is one zone's 16 blocks, each once.
	zones := func(ios []ioRec) []int64 {
		var out []int64
		for i := 0; i < len(ios); i += 16 {
			z := ios[i].off >> 20
			seen := map[int64]bool{}
			for _, io := range ios[i : i+16] {
				if io.off>>20 != z || seen[io.off] {
					t.Fatalf("turn %d: read at %d is not a fresh block of zone %d MiB", i/16, io.off, z)
				}
				seen[io.off] = true
			}
			out = append(out, z)
		}
		return out
	}
	if f, b := zones(want), zones(got); !slices.Equal(f, b) {
		t.Errorf("randread zones: blkq %v, fio %v", b, f)
	}
}

// TestFioValuesAsFio: values that fio 3.33 reads in its own way run as
// fio runs them. A size is the number and its unit, whatever follows
// (bs=4k- and bs=4k-8k are 4 KiB, bs=1024.7 is 1 KiB, number_ios=100x is
// 100): the same offsets as fio's. bssplit's shares may add up to more than 100 (4k/50:8k/60 is
// half and half), are looked up smallest first (4k/60:8k/20 gives 8 KiB
// 20%), a share of 0 takes the rest (4k/0:8k/50), an empty entry ends
// the list, and the one entry without a share beside shares over 100
// takes every I/O: each block size's share of the I/O within 2 points of
// fio's. random_distribution=zipf:0 is a uniform draw without the random
// map (about 1 - 1/e of the blocks touched by as many draws), and zipf
// and pareto without a parameter take fio's defaults (1.1 and 0.2: the
// hottest block's share within 10% of fio's).
func TestFioValuesAsFio(t *testing.T) {
	for _, body := range []string{
		"rw=read\nsize=1m\nbs=4k-",
		"rw=read\nsize=1m\nbs=4k-8k,16k",
		"rw=write\nsize=1m\nbs=8kx\nnumber_ios=100x",
		"rw=read\nsize=1m\nbs=1024.7",
	} {
		t.Run(body, func(t *testing.T) {
			want, _ := fioIOs(t, "null", body, 0)
			got := blkqIOs(t, "null", body, 1)
			if len(want) == 0 || !sameOffsets(got, want) {
				t.Errorf("blkq issued %d I/Os %s, fio %d %s", len(got), sketch(got), len(want), sketch(want))
			}
		})
	}
	bsShares := func(ios []ioRec) map[int64]float64 {
		m := map[int64]float64{}
		for _, io := range ios {
			m[io.n] += 1 / float64(len(ios))
		}
		return m
	}
	for _, split := range []string{"4k/50:8k/60", "4k/60:8k/20", "4k/0:8k/50", "4k/50:8k/60:16k", "4k/50::8k/50", "4k/-5:8k/x"} {
		t.Run("bssplit="+split, func(t *testing.T) {
			body := "rw=read\nsize=64m\nbssplit=" + split
			f, b := bsShares(fioIOs0(t, body)), bsShares(blkqIOs(t, "null", body, 1))
			t.Logf("shares: fio %v, blkq %v", f, b)
			for bs := range mapsUnion(f, b) {
				if math.Abs(f[bs]-b[bs]) > 0.02 {
					t.Errorf("%d-byte I/Os: blkq %.1f%%, fio %.1f%%", bs, 100*b[bs], 100*f[bs])
				}
			}
		})
	}
	const n = 4096 // draws over 4096 blocks
	body := fmt.Sprintf("rw=randread\nsize=16m\nbs=4k\nio_size=%d\nrandom_distribution=zipf:0", n*4096)
	for name, ios := range map[string][]ioRec{"fio": fioIOs0(t, body), "blkq": blkqIOs(t, "null", body, 1)} {
		seen := map[int64]bool{}
		for _, io := range ios {
			seen[io.off] = true
		}
		got, want := float64(len(seen))/n, 1-1/math.E
		t.Logf("zipf:0: %s touched %.1f%% of the blocks", name, 100*got)
		if len(ios) != n || math.Abs(got-want) > 0.02 {
			t.Errorf("zipf:0: %s did %d I/Os touching %.1f%% of the blocks; want %d touching %.1f%% (uniform, no random map)", name, len(ios), 100*got, n, 100*want)
		}
	}
	for _, dist := range []string{"zipf", "pareto"} {
		body := fmt.Sprintf("rw=randread\nsize=16m\nbs=4k\nio_size=%d\nrandom_distribution=%s", 100000*4096, dist)
		f, b := hottest(fioIOs0(t, body), 1), hottest(blkqIOs(t, "null", body, 3), 1)
		t.Logf("%s: hottest block fio %.2f%%, blkq %.2f%%", dist, 100*f, 100*b)
		if math.Abs(b-f) > 0.10*f {
			t.Errorf("%s without a parameter: hottest block %.2f%% in blkq, %.2f%% in fio", dist, 100*b, 100*f)
		}
	}
}

// fioIOs0 is fioIOs on fio's null engine with no file laid out.
func fioIOs0(t *testing.T, body string) []ioRec {
	t.Helper()
	ios, _ := fioIOs(t, "null", body, 0)
	return ios
}

func mapsUnion(a, b map[int64]float64) map[int64]bool {
	out := map[int64]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// TestFioNullEngineFileEnd: fio 3.33's null engine gives a file no end
// unless size= gives it one, so without size= a pass ends only at the
// region's end: filesize=30k bs=4k reads 8 blocks (the last at 28672,
// running 2 KiB past the region; on a file fio and blkq read 7), and a
// hole never wraps (rw=read:4k reads each block once); with size= the
// file ends where size= says, as on a file. blkq's null engine issues
// fio's offsets in each case.
func TestFioNullEngineFileEnd(t *testing.T) {
	for _, body := range []string{
		"rw=read\nfilesize=30k\nbs=4k",
		"rw=write\nfilesize=30k\nbs=4k",
		"rw=read:4k\nfilesize=30k\nbs=4k",
		"rw=read:4k\nfilesize=1m\nbs=4k",
		"rw=read\nsize=30k\nbs=4k",
		"rw=read:4k\nsize=1m\nbs=4k",
		"rw=read\nfilesize=30k\nbs=4k\nloops=2",
		"rw=randread\nfilesize=30k\nbs=4k",
	} {
		t.Run(body, func(t *testing.T) {
			want, _ := fioIOs(t, "null", body, 0)
			got := blkqIOs(t, "null", "ioengine=null\n"+body, 1)
			if len(want) == 0 {
				t.Fatal("fio issued nothing")
			}
			if strings.Contains(body, "randread") {
				slices.SortFunc(want, func(a, b ioRec) int { return int(a.off - b.off) })
				slices.SortFunc(got, func(a, b ioRec) int { return int(a.off - b.off) })
			}
			if !sameOffsets(got, want) {
				t.Errorf("blkq issued %d I/Os %s, fio %d %s", len(got), sketch(got), len(want), sketch(want))
			}
		})
	}
}
