package hdd

import (
	"strings"
	"testing"
	"time"

	"blkq"
	"blkq/sim"
)

var _ blkq.Device = (*Device)(nil)

type completion struct {
	rq  *blkq.Request
	at  blkq.Time
	err error
}

func attach(l *sim.Loop, d *Device) *[]completion {
	var got []completion
	d.Attach(func(rq *blkq.Request, err error) {
		got = append(got, completion{rq, l.Now(), err})
	})
	return &got
}

func read(sector uint64, n uint32) *blkq.Request {
	return &blkq.Request{Op: blkq.OpRead, Sector: sector, Sectors: n}
}

func TestDeviceFIFO(t *testing.T) {
	l := sim.NewLoop()
	d := New(l, roundParams)
	got := attach(l, d)
	if d.Name() != "sim:hdd" || d.Capacity() != 100_000 || d.Depth() != 1 {
		t.Fatalf("name %q capacity %d depth %d", d.Name(), d.Capacity(), d.Depth())
	}
	// Three requests at once (as if the queue ignored the depth): served
	// in arrival order, each from where the last left the head.
	a, b, c := read(125, 8), read(25, 8), read(99925, 8)
	inIssue := true
	d.Attach(func(rq *blkq.Request, err error) {
		if inIssue {
			t.Error("complete called from inside Issue")
		}
		*got = append(*got, completion{rq, l.Now(), err})
	})
	d.Issue(a)
	d.Issue(b)
	d.Issue(c)
	inIssue = false
	l.Run()
	// a: seek 1 ms + wait 2.5 ms + 0.8 ms = 4.3 ms, head on track 1 at
	//    angle 43.
	// b: seek back 1 ms → 5.3 ms, angle 53; sector 25 at 25: wait 7.2 ms
	//    → 12.5 ms; +0.8 → 13.3 ms, head on 0.
	// c: seek 999 = 10 ms → 23.3 ms, angle 33; sector 99925 at 15: wait
	//    8.2 ms → 31.5 ms; +0.8 → 32.3 ms.
	want := []blkq.Time{4_300_000, 13_300_000, 32_300_000}
	if len(*got) != 3 {
		t.Fatalf("%d completions", len(*got))
	}
	for i, w := range want {
		g := (*got)[i]
		if g.rq != []*blkq.Request{a, b, c}[i] || g.at != w || g.err != nil {
			t.Errorf("completion %d: %+v, want at %d", i, g, w)
		}
	}
	if d.Head() != 999 {
		t.Errorf("head on %d", d.Head())
	}
}

func TestDeviceFlushDiscardFree(t *testing.T) {
	l := sim.NewLoop()
	d := New(l, roundParams)
	got := attach(l, d)
	rd := read(25, 8)
	fl := &blkq.Request{Op: blkq.OpFlush}
	dc := &blkq.Request{Op: blkq.OpDiscard, Sector: 50000, Sectors: 1000}
	d.Issue(rd)
	d.Issue(fl)
	d.Issue(dc)
	l.Run()
	// The read ends at 3.3 ms; flush and discard then take no time and do
	// not move the head.
	for i, g := range *got {
		if g.at != 3_300_000 || g.err != nil {
			t.Errorf("completion %d (%s) at %d err %v", i, g.rq.Op, g.at, g.err)
		}
	}
	if len(*got) != 3 || (*got)[1].rq != fl || (*got)[2].rq != dc || d.Head() != 0 {
		t.Fatalf("completions %v, head %d", *got, d.Head())
	}
}

func TestDeviceOutOfRange(t *testing.T) {
	l := sim.NewLoop()
	d := New(l, roundParams)
	got := attach(l, d)
	for _, rq := range []*blkq.Request{
		read(100_000, 1),
		read(99_999, 2),
		read(1<<64-1, 2), // the end wraps around
		{Op: blkq.OpDiscard, Sector: 99_000, Sectors: 2000},
	} {
		d.Issue(rq)
	}
	d.Issue(read(99_999, 1)) // the last sector is fine
	l.Run()
	if len(*got) != 5 {
		t.Fatalf("%d completions", len(*got))
	}
	for i, g := range (*got)[:4] {
		if g.err == nil || !strings.Contains(g.err.Error(), "capacity of 100000 sectors") ||
			!strings.Contains(g.err.Error(), "sector") || g.at != 0 {
			t.Errorf("request %d: err %v at %d", i, g.err, g.at)
		}
	}
	if e := (*got)[1].err.Error(); e != "sim:hdd: read of 2 sectors at sector 99999 reaches beyond the capacity of 100000 sectors" {
		t.Errorf("message: %s", e)
	}
	if (*got)[4].err != nil {
		t.Errorf("last sector: %v", (*got)[4].err)
	}
}

// TestDeviceNCQ issues requests whose best order is not the arrival order.
func TestDeviceNCQ(t *testing.T) {
	l := sim.NewLoop()
	p := roundParams
	p.Depth = 4
	d := New(l, p)
	got := attach(l, d)
	// Head on track 0 at angle 0. Sector 60 is 6 ms away, sector 30 is 3
	// ms, sector 110 (track 1, at 20) is 1 ms seek + 1 ms wait = 2 ms, and
	// a flush costs nothing.
	far, mid, near := read(60, 1), read(30, 1), read(110, 1)
	fl := &blkq.Request{Op: blkq.OpFlush}
	d.Issue(far)
	d.Issue(mid)
	d.Issue(near)
	d.Issue(fl)
	l.Run()
	// far went into service at once (the disk was idle when it came);
	// after it (6.1 ms, angle 61, track 0) the flush is free, then: mid
	// (sector 30) is 6.9 ms away, near (track 1, angle 61 + 10 after the
	// seek, sector at 20) 1 ms + 4.9 ms = 5.9 ms: near first, ending at
	// 12.1 ms (angle 21), then mid: seek 1 ms (angle 31), wait 9.9 ms,
	// transfer 0.1 → 23.1 ms.
	order := []*blkq.Request{far, fl, near, mid}
	at := []blkq.Time{6_100_000, 6_100_000, 12_100_000, 23_100_000}
	for i, g := range *got {
		if g.rq != order[i] || g.at != at[i] {
			t.Errorf("completion %d: %s sector %d at %d, want sector %d at %d",
				i, g.rq.Op, g.rq.Sector, g.at, order[i].Sector, at[i])
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
	issue := func() { d.Issue(read(rng.Uint64N(blocks)*8, 8)) }
	done := 0
	d.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			panic(err)
		}
		trace = append(trace, l.Now())
		if done++; done < n {
			issue()
		}
	})
	for range d.Depth() {
		issue()
	}
	l.Run()
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
