package hdd

import (
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/simtest"
)

var _ blkq.Device = (*Device)(nil)

func TestDeviceFIFO(t *testing.T) {
	l := sim.NewLoop()
	d := New(l, roundParams)
	got := simtest.Record(l, d)
	if d.Name() != "sim:hdd" || d.Capacity() != 100_000 || d.Depth() != 1 {
		t.Fatalf("name %q capacity %d depth %d", d.Name(), d.Capacity(), d.Depth())
	}
	// Three requests at once (as if the queue ignored the depth): served
	// in arrival order, each from where the last left the head.
	a, b, c := simtest.Read(125, 8), simtest.Read(25, 8), simtest.Read(99925, 8)
	inIssue := true
	d.Attach(func(rq *blkq.Request, err error) {
		if inIssue {
			t.Error("complete called from inside Issue")
		}
		*got = append(*got, simtest.Completion{Rq: rq, At: l.Now(), Err: err})
	})
	d.Issue(a)
	d.Issue(b)
	d.Issue(c)
	inIssue = false
	l.Run()
	// Each is a miss: 0.5 ms of overhead (5 sectors' turn) before its
	// seek, while the read-ahead of the one before runs on 5 sectors
	// along its own track.
	// a: overhead → 0.5 ms, seek 1 ms → 1.5 ms, angle 15; sector 125 at
	//    35: wait 2 ms; + 0.8 ms = 4.3 ms, head on track 1 at angle 43.
	// b: overhead → 4.8 ms (read-ahead at 138, track 1); seek back 1 ms →
	//    5.8 ms, angle 58; sector 25 at 25: wait 6.7 ms → 12.5 ms; +0.8 →
	//    13.3 ms, head on 0.
	// c: overhead → 13.8 ms (read-ahead at 38, track 0); seek 999 = 10 ms
	//    → 23.8 ms, angle 38; sector 99925 at 15: wait 7.7 ms → 31.5 ms;
	//    +0.8 → 32.3 ms.
	// The overhead only takes time the rotational wait would have.
	want := []blkq.Time{4_300_000, 13_300_000, 32_300_000}
	if len(*got) != 3 {
		t.Fatalf("%d completions", len(*got))
	}
	for i, w := range want {
		g := (*got)[i]
		if g.Rq != []*blkq.Request{a, b, c}[i] || g.At != w || g.Err != nil {
			t.Errorf("completion %d: %+v, want at %d", i, g, w)
		}
	}
	if d.Head() != 999 {
		t.Errorf("head on %d", d.Head())
	}
}

func TestDeviceFlushDiscard(t *testing.T) {
	l := sim.NewLoop()
	d := New(l, roundParams)
	got := simtest.Record(l, d)
	rd := simtest.Read(25, 8)
	fl := &blkq.Request{Op: blkq.OpFlush}
	dc := &blkq.Request{Op: blkq.OpDiscard, Sector: 50000, Sectors: 1000}
	d.Issue(rd)
	d.Issue(fl)
	d.Issue(dc)
	l.Run()
	// The read (0.5 ms overhead, wait from angle 5 to 25: 2 ms, 0.8 ms)
	// ends at 3.3 ms; flush and discard then cost only the 0.1 ms command
	// overhead each and do not move the head. The discard is far from the
	// read-ahead segment [25, 83), which stays.
	for i, w := range []blkq.Time{3_300_000, 3_400_000, 3_500_000} {
		if g := (*got)[i]; g.At != w || g.Err != nil {
			t.Errorf("completion %d (%s) at %d err %v, want at %d", i, g.Rq.Op, g.At, g.Err, w)
		}
	}
	if len(*got) != 3 || (*got)[1].Rq != fl || (*got)[2].Rq != dc || d.Head() != 0 {
		t.Fatalf("completions %v, head %d", *got, d.Head())
	}
	if s := d.State().Segs; s[0].Start != 25 || s[0].Stop != 83 || s[1] != (Cache{}) {
		t.Errorf("segments %+v, want [25, 83) alone", used(s))
	}
}

func TestDeviceOutOfRange(t *testing.T) {
	l := sim.NewLoop()
	d := New(l, roundParams)
	got := simtest.Record(l, d)
	for _, rq := range []*blkq.Request{
		simtest.Read(100_000, 1),
		simtest.Read(99_999, 2),
		simtest.Read(1<<64-1, 2), // the end wraps around
		{Op: blkq.OpDiscard, Sector: 99_000, Sectors: 2000},
	} {
		d.Issue(rq)
	}
	d.Issue(simtest.Read(99_999, 1)) // the last sector is fine
	l.Run()
	if len(*got) != 5 {
		t.Fatalf("%d completions", len(*got))
	}
	for i, g := range (*got)[:4] {
		if g.Err == nil || !strings.Contains(g.Err.Error(), "capacity of 100000 sectors") ||
			!strings.Contains(g.Err.Error(), "sector") || g.At != 0 {
			t.Errorf("request %d: err %v at %d", i, g.Err, g.At)
		}
	}
	if e := (*got)[1].Err.Error(); e != "sim:hdd: read of 2 sectors at sector 99999 reaches beyond the capacity of 100000 sectors" {
		t.Errorf("message: %s", e)
	}
	if (*got)[4].Err != nil {
		t.Errorf("last sector: %v", (*got)[4].Err)
	}
}

// TestDeviceNCQ issues requests whose best order is not the arrival order.
func TestDeviceNCQ(t *testing.T) {
	l := sim.NewLoop()
	p := roundParams
	p.Depth = 4
	d := New(l, p)
	got := simtest.Record(l, d)
	// Head on track 0 at angle 0.
	far, mid, near := simtest.Read(60, 1), simtest.Read(30, 1), simtest.Read(110, 1)
	fl := &blkq.Request{Op: blkq.OpFlush}
	d.Issue(far)
	d.Issue(mid)
	d.Issue(near)
	d.Issue(fl)
	l.Run()
	// far went into service at once (the disk was idle when it came):
	// 0.5 ms overhead (angle 5), wait 5.5 ms, transfer 0.1 → 6.1 ms. Its
	// read-ahead then reads 61..110 (to 50 sectors beyond it) from 6.1
	// ms. Among mid, near and the flush, near (sector 110) is in that
	// segment and the flush needs no media: neither has a seek or a
	// rotational wait, and near came first. near waits for the read-ahead
	// to read 61..99, the 10-sector skew gap and 100..110: 60 sectors'
	// time, 6 ms → 12.1 ms. The flush costs its 0.1 ms overhead → 12.2
	// ms. mid is a miss: overhead to 12.7 ms, when the read-ahead (still
	// going, now to 161) has reached 117 on track 1: seek 1 ms to track 0
	// (13.7 ms, angle 37), wait 9.3 ms for sector 30, transfer 0.1 → 23.1
	// ms.
	order := []*blkq.Request{far, near, fl, mid}
	at := []blkq.Time{6_100_000, 12_100_000, 12_200_000, 23_100_000}
	for i, g := range *got {
		if g.Rq != order[i] || g.At != at[i] {
			t.Errorf("completion %d: %s sector %d at %d, want sector %d at %d",
				i, g.Rq.Op, g.Rq.Sector, g.At, order[i].Sector, at[i])
		}
	}
}

// driver keeps depth random 4 KiB reads in flight for n completions,
// issuing each new one from the completion callback as a queue would.
func driver(seed uint64, p Params, n int) (iops float64, trace []blkq.Time) {
	l := sim.NewLoop()
	d := New(l, p)
	rng := sim.NewRNG(seed).Split("driver")
	blocks := d.Capacity() / 8
	issue := func() { d.Issue(simtest.Read(rng.Uint64N(blocks)*8, 8)) }
	trace = simtest.ClosedLoop(l, d, n, issue)
	return float64(len(trace)) / time.Duration(l.Now()).Seconds(), trace
}

func TestDeviceRandomIOPS(t *testing.T) {
	qd1, a := driver(1, Params{}, 5000)
	_, b := driver(1, Params{}, 5000)
	if len(a) != len(b) {
		t.Fatal("runs differ")
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, completion %d at %d and %d", i, a[i], b[i])
		}
	}
	qd32, _ := driver(1, Params{Depth: 32}, 5000)
	t.Logf("random 4 KiB reads: QD1 %.1f IOPS, NCQ QD32 %.1f IOPS", qd1, qd32)
	if qd1 < 70 || qd1 > 90 {
		t.Errorf("QD1: %.1f IOPS", qd1)
	}
	if qd32 < 2*qd1 {
		t.Errorf("NCQ at depth 32 gives %.1f IOPS, not twice QD1's %.1f", qd32, qd1)
	}
}

func TestNewPanicsOnBadParams(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	New(sim.NewLoop(), Params{RPM: -5})
}

func BenchmarkDeviceQD32(b *testing.B) {
	b.ReportAllocs()
	driver(1, Params{Depth: 32}, b.N)
}
