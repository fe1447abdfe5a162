package engine

import (
	"fmt"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// TestKernelRuns: the memory a replay gives a bio from the kernel's
// splits of it, under blkq's default limits (max_sectors_kb 1280, 128
// segments of 64 KiB, 512-byte blocks): a piece cut before max_sectors_kb
// ended at the 128th segment, so it is 127 one-page runs and the rest of
// the piece; after the last piece, one run. Splits at max_sectors_kb, or
// none that segments explain, leave the bio contiguous (nil).
func TestKernelRuns(t *testing.T) {
	clk := blkq.NewRealClock()
	dev := device.NewNull(clk, 1<<24, 1)
	defer dev.Close()
	q, err := blkq.New(dev, clk, blkq.Config{})
	if err != nil {
		t.Fatal(err)
	}
	pages := func(last uint32, rest ...uint32) string {
		runs := make([]uint32, 0, 130)
		for range 127 {
			runs = append(runs, 8)
		}
		return fmt.Sprint(append(append(runs, last), rest...))
	}
	for _, c := range []struct {
		op      blkq.Op
		sectors uint32
		splits  []uint32
		want    string
	}{
		{blkq.OpRead, 2080, []uint32{1024}, pages(8, 1056)},                                                           // read-2m: pages all apart
		{blkq.OpRead, 2040, []uint32{1032}, pages(16, 1008)},                                                          // two pages side by side
		{blkq.OpWrite, 5000, []uint32{2560, 1024}, fmt.Sprint(append([]uint32{2560}, append(pagesList(8), 1416)...))}, // at max_sectors_kb, then by segments
		{blkq.OpRead, 5120, []uint32{2560}, "[]"},                                                                     // at max_sectors_kb: blkq's own
		{blkq.OpRead, 8192, []uint32{3000}, "[]"},                                                                     // beyond blkq's limit
		{blkq.OpRead, 2048, []uint32{512}, "[]"},                                                                      // too short for 128 pages
		{blkq.OpRead, 4096, []uint32{1024 + 200}, "[]"},                                                               // its last run more than a segment
		{blkq.OpDiscard, 2080, []uint32{1024}, "[]"},                                                                  // no pages
	} {
		got := fmt.Sprint(kernelRuns(q, &ReplayRecord{Op: c.op, Sectors: c.sectors, Splits: c.splits}))
		if got != c.want {
			t.Errorf("%v of %d sectors split %v: runs %s, want %s", c.op, c.sectors, c.splits, got, c.want)
		}
	}
}

// pagesList is 127 one-page runs and a last run of last sectors.
func pagesList(last uint32) []uint32 {
	runs := make([]uint32, 0, 128)
	for range 127 {
		runs = append(runs, 8)
	}
	return append(runs, last)
}

// TestReplayTakesTheKernelsSegmentSplits: replaying read-2m (fio's 2 MiB
// reads, which reach the queue as bios of about 1 MiB that Linux cut at
// their 128th physical segment) on sim:trace, the bios cut where the
// trace's X events say give the kernel's 64 X and 128 requests of its
// sizes; the same records without their splits, contiguous memory, give
// no X and 64 requests (the model's gap, without the trace's word).
func TestReplayTakesTheKernelsSegmentSplits(t *testing.T) {
	const name = "read-2m-qd2-batch2-nomerges0-nr256"
	recs := ktraceRecords(t, name)
	count := func(recs []ReplayRecord) (x, d int, sizes map[uint32]int) {
		sizes = map[uint32]int{}
		opt := Options{Device: "sim:trace", ServiceTimes: ktraceTimes(t, name), Alloc: "blk-mq", NrRequests: 256}
		opt.Tracers = []blkq.Tracer{blkq.TracerFunc(func(e *blkq.Event) {
			switch e.Action {
			case 'X':
				x++
			case 'D':
				d++
				sizes[e.Sectors]++
			}
		})}
		if _, err := Replay("ktrace", recs, opt, ReplayOptions{Timing: "trace"}); err != nil {
			t.Fatal(err)
		}
		return x, d, sizes
	}
	x, d, sizes := count(recs)
	kernel := map[uint32]int{1024: 48, 1032: 32, 992: 16, 1056: 16, 1008: 16} // the trace's D lines
	if x != 64 || d != 128 || fmt.Sprint(sizes) != fmt.Sprint(kernel) {
		t.Fatalf("with the kernel's splits: %d X, %d D of sizes %v; want 64, 128 and %v", x, d, sizes, kernel)
	}
	for i := range recs {
		recs[i].Splits = nil
	}
	if x, d, _ := count(recs); x != 0 || d != 64 {
		t.Fatalf("without them: %d X and %d D, want 0 and 64", x, d)
	}
}
