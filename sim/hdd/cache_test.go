package hdd

import (
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/simtest"
)

const (
	us = time.Microsecond
	ms = time.Millisecond
)

// afterFirstRead is the round disk after a read of sectors 25..32 from
// time 0 (see TestService, "zero distance"): 0.5 ms overhead, 2 ms wait,
// 0.8 ms transfer, ending at 3.3 ms with the head at the start of sector 33
// (angle 33). The read-ahead reads 33..82 (50 sectors) from then into the
// first segment: sector x is in the buffer at 3.3 ms + (x - 33) × 0.1 ms,
// all of it at 8.3 ms. The other segments are empty.
func afterFirstRead(t *testing.T, m *Model) State {
	t.Helper()
	cost, st := m.Service(0, State{}, blkq.OpRead, 25, 8)
	want := State{Head: 0, Segs: segs(Cache{Start: 25, From: 33, Stop: 83, At: blkq.Time(3300 * us)})}
	if cost.Total() != 3300*us || st != want {
		t.Fatalf("first read: %+v, state %+v, want 3.3ms, %+v", cost, st, want)
	}
	return st
}

// segs returns a State's segments: cs, most recently used first, then
// empty ones.
func segs(cs ...Cache) [MaxCacheSegments]Cache {
	var s [MaxCacheSegments]Cache
	copy(s[:], cs)
	return s
}

// used returns the non-empty segments of s, for messages.
func used(s [MaxCacheSegments]Cache) []Cache {
	n := len(s)
	for n > 0 && s[n-1] == (Cache{}) {
		n--
	}
	return s[:n]
}

type serviceCase struct {
	name   string
	now    time.Duration
	op     blkq.Op
	sector uint64
	n      uint32
	cost   Cost
	head   uint64
	segs   []Cache // the segments Service leaves, most recently used first
}

func runCases(t *testing.T, m *Model, st State, cases []serviceCase) {
	t.Helper()
	for _, c := range cases {
		cost, got := m.Service(blkq.Time(c.now), st, c.op, c.sector, c.n)
		if cost != c.cost || got.Head != c.head || got.Segs != segs(c.segs...) {
			t.Errorf("%s:\n got %+v head %d segments %+v\nwant %+v head %d segments %+v",
				c.name, cost, got.Head, used(got.Segs), c.cost, c.head, c.segs)
		}
	}
}

func TestCacheHit(t *testing.T) {
	m := mustModel(t, roundParams)
	st := afterFirstRead(t, m)
	runCases(t, m, st, []serviceCase{
		// At 4.5 ms the read-ahead has read 33..44. 33..40 is a hit:
		// 0.1 ms overhead, then 8 sectors over the interface at 50 µs:
		// 0.4 ms. The head stays with the read-ahead, which now runs to
		// 50 sectors beyond this read: 91. The segment starts at 33.
		{name: "sequential hit", now: 4500 * us, op: blkq.OpRead, sector: 33, n: 8,
			cost: Cost{Overhead: 100 * us, Transfer: 400 * us, Served: Hit},
			segs: []Cache{{Start: 33, From: 33, Stop: 91, At: blkq.Time(3300 * us)}}},
		// Reading the first read's own data again is a hit too; 25 + 8 +
		// 50 = 83 does not move the read-ahead's end.
		{name: "re-read", now: 4500 * us, op: blkq.OpRead, sector: 25, n: 8,
			cost: Cost{Overhead: 100 * us, Transfer: 400 * us, Served: Hit},
			segs: []Cache{{Start: 25, From: 33, Stop: 83, At: blkq.Time(3300 * us)}}},
	})

	// The default disk: a 4 KiB hit costs 0.1 ms + 4096 B / 300 MB/s =
	// 100000 + 13653.3 ns, rounded down.
	d := mustModel(t, Params{})
	cost, st := d.Service(0, State{}, blkq.OpRead, 0, 8)
	now := blkq.Time(cost.Total() + ms) // the read-ahead has read 1 ms on
	if cost, _ := d.Service(now, st, blkq.OpRead, 8, 8); cost != (Cost{Overhead: 100 * us, Transfer: 13653, Served: Hit}) {
		t.Errorf("default disk, 4 KiB hit: %+v, want 113653 ns", cost)
	}
}

func TestCachePartialHit(t *testing.T) {
	m := mustModel(t, roundParams)
	st := afterFirstRead(t, m)
	runCases(t, m, st, []serviceCase{
		// 41..60 starts in what is read (33..44 at 4.5 ms) and ends
		// beyond: the interface could finish at 4.5 + 0.1 + 20 × 0.05 =
		// 5.6 ms, but the read-ahead reads sector 60 only by 3.3 + 28 ×
		// 0.1 = 6.1 ms. No seek and no rotational wait: 1.6 ms in all,
		// where a miss would cost 0.5 ms + a wait of 9.1 ms + 2 ms. The
		// read-ahead runs on to 61 + 50 = 111.
		{name: "reading ahead", now: 4500 * us, op: blkq.OpRead, sector: 41, n: 20,
			cost: Cost{Overhead: 100 * us, Transfer: 1500 * us, Served: PartialHit},
			segs: []Cache{{Start: 41, From: 33, Stop: 111, At: blkq.Time(3300 * us)}}},
		// By 9 ms the read-ahead has filled its window (83, at 8.3 ms)
		// and stopped, the head on track 0. 80..87 restarts it at 83
		// once the command is decoded: at 9.1 ms the platter is at
		// angle 91, so sector 83 comes round after 9.2 ms, at 18.3 ms,
		// and 83..87 are read by 18.8 ms: 9.8 ms in all (here no better
		// than a miss: 0.5 + 8.5 + 0.8 ms).
		{name: "window full", now: 9000 * us, op: blkq.OpRead, sector: 80, n: 8,
			cost: Cost{Overhead: 100 * us, Transfer: 9700 * us, Served: PartialHit},
			segs: []Cache{{Start: 80, From: 83, Stop: 138, At: blkq.Time(18300 * us)}}},
	})
}

func TestCacheMiss(t *testing.T) {
	m := mustModel(t, roundParams)
	st := afterFirstRead(t, m)
	// A miss at 4.5 ms stops the read-ahead when its seek begins, at 5
	// ms (angle 50), by when it has read 33..49: that segment keeps
	// [25, 50), and the new read's segment (an empty one) comes before
	// it.
	kept := Cache{Start: 25, From: 50, Stop: 50, At: blkq.Time(3300 * us)}
	runCases(t, m, st, []serviceCase{
		// Beyond the read-ahead's end (83) on the same track: no seek,
		// wait from angle 50 to 90: 4 ms; the read ends at 9.8 ms at the
		// start of sector 98, where its own read-ahead begins.
		{name: "ahead", now: 4500 * us, op: blkq.OpRead, sector: 90, n: 8,
			cost: Cost{Overhead: 500 * us, Rotate: 4 * ms, Transfer: 800 * us, Served: Miss},
			segs: []Cache{{Start: 90, From: 98, Stop: 148, At: blkq.Time(9800 * us)}, kept}},
		// Before the segment: from angle 50 back round to 0: 5 ms.
		{name: "behind", now: 4500 * us, op: blkq.OpRead, sector: 0, n: 8,
			cost: Cost{Overhead: 500 * us, Rotate: 5 * ms, Transfer: 800 * us, Served: Miss},
			segs: []Cache{{Start: 0, From: 8, Stop: 58, At: blkq.Time(10800 * us)}, kept}},
		// Track 1: the head seeks from where the read-ahead left it
		// (track 0): 1 ms, to angle 60, where sector 150 (50 + skew 10)
		// starts: no wait.
		{name: "next track", now: 4500 * us, op: blkq.OpRead, sector: 150, n: 8, head: 1,
			cost: Cost{Overhead: 500 * us, Seek: ms, Transfer: 800 * us, Served: Miss},
			segs: []Cache{{Start: 150, From: 158, Stop: 208, At: blkq.Time(6800 * us)}, kept}},
	})

	// Without a read-ahead buffer a sequential read is a miss and, 0.5 ms
	// of overhead after the last ended, has just missed its sector: it
	// waits 9.5 ms, nearly a revolution.
	p := roundParams
	p.ReadAheadBytes = -1
	nb := mustModel(t, p)
	cost, st := nb.Service(0, State{}, blkq.OpRead, 25, 8)
	if st.Segs != segs() {
		t.Errorf("no buffer: segments %+v", used(st.Segs))
	}
	if cost, _ := nb.Service(blkq.Time(cost.Total()), st, blkq.OpRead, 33, 8); cost != (Cost{Overhead: 500 * us, Rotate: 9500 * us, Transfer: 800 * us}) {
		t.Errorf("no buffer, sequential read: %+v", cost)
	}
}

func TestCacheWrite(t *testing.T) {
	m := mustModel(t, roundParams)
	st := afterFirstRead(t, m)
	// A write is a miss: it stops the read-ahead at 5 ms, having read
	// 33..49.
	runCases(t, m, st, []serviceCase{
		// Into the segment [25, 50): it is dropped. From angle 50 to 40:
		// 9 ms.
		{name: "overlapping", now: 4500 * us, op: blkq.OpWrite, sector: 40, n: 8,
			cost: Cost{Overhead: 500 * us, Rotate: 9 * ms, Transfer: 800 * us, Served: Miss}},
		// Elsewhere: the segment keeps [25, 50), no read-ahead running.
		{name: "elsewhere", now: 4500 * us, op: blkq.OpWrite, sector: 60, n: 8,
			cost: Cost{Overhead: 500 * us, Rotate: ms, Transfer: 800 * us, Served: Miss},
			segs: []Cache{{Start: 25, From: 50, Stop: 50, At: blkq.Time(3300 * us)}}},
	})
	_, st = m.Service(blkq.Time(4500*us), st, blkq.OpWrite, 60, 8) // ends at 6.8 ms
	runCases(t, m, st, []serviceCase{
		// 30..37 is still held: a hit, which restarts the read-ahead at
		// the segment's end, 50, to 38 + 50 = 88, the head being idle.
		// At 7.1 ms, once the command is decoded, the platter is at
		// angle 71: sector 50 comes round at 15 ms.
		{name: "hit after a write", now: 7 * ms, op: blkq.OpRead, sector: 30, n: 8,
			cost: Cost{Overhead: 100 * us, Transfer: 400 * us, Served: Hit},
			segs: []Cache{{Start: 30, From: 50, Stop: 88, At: blkq.Time(15 * ms)}}},
	})
}

func TestCommandOverhead(t *testing.T) {
	m := mustModel(t, roundParams)
	st := afterFirstRead(t, m)
	runCases(t, m, st, []serviceCase{
		// A flush has no write cache to empty: 0.1 ms, nothing changes.
		{name: "flush", now: 4500 * us, op: blkq.OpFlush,
			cost: Cost{Overhead: 100 * us, Served: NoData}, segs: used(st.Segs)},
		// A discard away from the segment changes nothing either.
		{name: "discard elsewhere", now: 4500 * us, op: blkq.OpDiscard, sector: 5000, n: 100,
			cost: Cost{Overhead: 100 * us, Served: NoData}, segs: used(st.Segs)},
		// One into it drops it.
		{name: "discard overlapping", now: 4500 * us, op: blkq.OpDiscard, sector: 0, n: 30,
			cost: Cost{Overhead: 100 * us, Served: NoData}},
	})
	// The default disk: 0.1 ms a command, 0.5 ms a miss.
	d := mustModel(t, Params{})
	if cost, _ := d.Service(0, State{}, blkq.OpFlush, 0, 0); cost.Total() != 100*us {
		t.Errorf("default flush: %+v", cost)
	}
	if cost, _ := d.Service(0, State{}, blkq.OpWrite, 0, 8); cost.Overhead != 500*us || cost.Served != Miss {
		t.Errorf("default write: %+v", cost)
	}
	// Negative overheads mean none.
	b := mustModel(t, bare(roundParams))
	if cost, _ := b.Service(0, State{}, blkq.OpFlush, 0, 0); cost != (Cost{Served: NoData}) {
		t.Errorf("bare flush: %+v", cost)
	}
}

// TestReadAheadRuns checks the read-ahead's bookkeeping: what it has read
// by a time, where it leaves the head, and that a stream of sequential hits
// keeps it reading without a pause.
func TestReadAheadRuns(t *testing.T) {
	m := mustModel(t, roundParams)
	c := Cache{Start: 0, From: 95, Stop: 120, At: 0}
	// 95..99 (0.5 ms), the 10-sector skew gap (1 ms), then track 1.
	for _, x := range []struct {
		at   time.Duration
		want uint64
	}{{0, 95}, {499 * us, 99}, {500 * us, 100}, {1499 * us, 100}, {1500 * us, 100}, {1600 * us, 101}, {9 * ms, 120}} {
		if got := m.reached(c, blkq.Time(x.at)); got != x.want {
			t.Errorf("reached at %v = %d, want %d", x.at, got, x.want)
		}
	}
	st := State{Segs: segs(c)}
	m.stop(&st, blkq.Time(1600*us))
	if st.Head != 1 || st.Segs != segs(Cache{Start: 0, From: 101, Stop: 101}) {
		t.Errorf("stopped at 1.6 ms: head %d, segments %+v", st.Head, used(st.Segs))
	}
	st = State{Segs: segs(c)}
	m.settle(&st, blkq.Time(9*ms))
	if st.Head != 1 || st.Segs[0].From != 120 {
		t.Errorf("settled: head %d, segments %+v", st.Head, used(st.Segs))
	}

	// 2-sector reads every 0.2 ms consume the media's 0.1 ms a sector
	// exactly: after the first, every one is a partial hit waiting for
	// its last sector, and the read-ahead keeps its start.
	_, st = m.Service(0, State{}, blkq.OpRead, 25, 8) // ends at 3.3 ms
	now := blkq.Time(3300 * us)
	for s := uint64(33); s < 333; s += 2 {
		cost, next := m.Service(now, st, blkq.OpRead, s, 2)
		if cost.Served == Miss || next.Segs[0].From != 33 || next.Segs[0].At != blkq.Time(3300*us) {
			t.Fatalf("sector %d at %v: %+v, %+v", s, time.Duration(now), cost, next)
		}
		now += blkq.Time(cost.Total())
		st = next
	}
	// 300 sectors from 33 cross 3 track boundaries: 330 sectors' time.
	if now != blkq.Time(3300*us+33*ms) {
		t.Errorf("stream ended at %v, want 36.3ms", time.Duration(now))
	}
}

// seqMBps reads total bytes sequentially from sector 0, n sectors a request,
// at queue depth 1, issuing each request as the last completes, and returns
// the steady throughput in MB/s (1e6 bytes): that of the requests after the
// first, whose seek and rotational wait are the same for every size.
func seqMBps(p Params, n uint32, total uint64) float64 {
	l := sim.NewLoop()
	d := New(l, p)
	next := uint64(0)
	end := total / 512
	var first blkq.Time
	issue := func() {
		d.Issue(simtest.Read(next, n))
		next += uint64(n)
	}
	d.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			panic(err)
		}
		if rq.Sector == 0 {
			first = l.Now()
		}
		if next < end {
			issue()
		}
	})
	issue()
	l.Run()
	return float64(total-uint64(n)*512) / float64(l.Now()-first) * 1e3
}

// TestDeviceSequentialSizes is why the buffer is there: sequential 4 KiB
// reads at queue depth 1 pay the command overhead per 4 KiB, and so run
// far below the media rate; 64 KiB requests pay it per 64 KiB, inside the
// time the media takes to read them, and run at the media rate. Without a
// buffer each 4 KiB read would wait nearly a revolution. Random reads are
// unaffected by the buffer.
func TestDeviceSequentialSizes(t *testing.T) {
	const total = 32 << 20
	m := mustModel(t, Params{})
	// The media rate of a sequential stream: a track's sectors per
	// revolution, stretched by the skew gap.
	spt, skew := m.SectorsPerTrack(), m.TrackSkew()
	media := float64(spt*512) / (float64(m.Revolution()) * float64(spt+skew) / float64(spt)) * 1e3

	mb4 := seqMBps(Params{}, 8, total)
	// One stream uses one segment: the others change nothing.
	if one := seqMBps(Params{CacheSegments: 1}, 8, total); one != mb4 {
		t.Errorf("4 KiB sequential: %.3f MB/s with one segment, %.3f with four", one, mb4)
	}
	mb16 := seqMBps(Params{}, 32, total)
	mb64 := seqMBps(Params{}, 128, total)
	mb1m := seqMBps(Params{}, 2048, total)
	noBuf := seqMBps(Params{ReadAheadBytes: -1}, 8, 1<<20)
	iops, _ := driver(1, Params{}, 5000)
	t.Logf("sequential reads at QD1: 4 KiB %.1f MB/s, 16 KiB %.1f, 64 KiB %.1f, 1 MiB %.1f (media %.1f); 4 KiB without read-ahead %.2f MB/s",
		mb4, mb16, mb64, mb1m, media, noBuf)
	t.Logf("random 4 KiB reads at QD1: %.1f IOPS", iops)

	// 4 KiB: 100000 + 13653 ns a request (all hits but the first): 36.0 MB/s.
	if mb4 < 35 || mb4 > 37 {
		t.Errorf("4 KiB sequential: %.1f MB/s, want ≈ 36", mb4)
	}
	if mb4 > mb64/2 {
		t.Errorf("4 KiB sequential %.1f MB/s is not clearly below 64 KiB's %.1f", mb4, mb64)
	}
	// Within 1%: the run is not a whole number of tracks, so it has not
	// quite one skew gap a track.
	if mb64 < 0.99*media || mb1m < 0.99*media || mb64 > 1.01*media || mb1m > 1.01*media {
		t.Errorf("64 KiB %.1f MB/s, 1 MiB %.1f MB/s, want near the media's %.1f", mb64, mb1m, media)
	}
	if noBuf > 1 {
		t.Errorf("4 KiB sequential without read-ahead: %.2f MB/s, want < 1 (a revolution each)", noBuf)
	}
	if iops < 70 || iops > 90 {
		t.Errorf("random QD1: %.1f IOPS, want 70..90", iops)
	}
}

// TestPositioner checks that the NCQ shortcut charges what Service does.
func TestPositioner(t *testing.T) {
	m := mustModel(t, roundParams)
	rng := sim.NewRNG(7)
	ops := []blkq.Op{blkq.OpRead, blkq.OpRead, blkq.OpWrite, blkq.OpFlush, blkq.OpDiscard}
	var st State
	var now blkq.Time
	served := map[Served]int{}
	for i := range 5000 {
		op := ops[rng.Uint64N(uint64(len(ops)))]
		// Mostly near the last request, so that the buffer serves some.
		s := st.Segs[0].Start + rng.Uint64N(200)
		if i%3 == 0 {
			s = rng.Uint64N(m.Params().Capacity - 100)
		}
		s = min(s, m.Params().Capacity-100)
		n := uint32(rng.Uint64N(40))
		cost, next := m.Service(now, st, op, s, n)
		p := m.positioner(now, st)
		if w := p.wait(op, s); w != cost.Seek+cost.Rotate {
			t.Fatalf("%d: %s of %d at %d: positioner %v, Service %+v", i, op, n, s, w, cost)
		}
		served[cost.Served]++
		now += blkq.Time(cost.Total()) + blkq.Time(rng.Uint64N(uint64(2*ms)))
		st = next
	}
	if served[Miss] < 500 || served[Hit] < 50 || served[PartialHit] < 50 || served[NoData] < 500 {
		t.Errorf("served %v: not all paths tried", served)
	}
}

// segParams is the round disk with three segments.
func segParams() Params {
	p := roundParams
	p.CacheSegments = 3
	return p
}

// TestCacheSegments follows the round disk's three segments through
// hits, misses and partial hits, each step from the state the last left.
func TestCacheSegments(t *testing.T) {
	m := mustModel(t, segParams())
	// Three segments, none reading ahead, the head on track 0: A holds
	// 0..19, B 120..139 and C 300..399; A is the most recently used, C
	// the least.
	a := Cache{Start: 0, From: 20, Stop: 20}
	b := Cache{Start: 120, From: 140, Stop: 140}
	c := Cache{Start: 300, From: 400, Stop: 400}
	st := State{Segs: segs(a, b, c)}

	step := func(sc serviceCase) {
		t.Helper()
		runCases(t, m, st, []serviceCase{sc})
		_, st = m.Service(blkq.Time(sc.now), st, sc.op, sc.sector, sc.n)
	}
	// A hit in the least recently used segment makes it the most
	// recently used. 300..307 is held, and its window (308 + 50 = 358)
	// is within what C holds: nothing to read. 0.1 ms + 8 × 50 µs.
	c1 := Cache{Start: 300, From: 400, Stop: 400}
	step(serviceCase{name: "hit in the LRU segment", now: 0, op: blkq.OpRead, sector: 300, n: 8,
		cost: Cost{Overhead: 100 * us, Transfer: 400 * us, Served: Hit},
		segs: []Cache{c1, a, b}})

	// A miss replaces the least recently used segment, now B. At 1 ms,
	// after the overhead, the platter is at angle 10; sector 60 comes
	// round 5 ms later; 60..67 are read by 6.8 ms, and the read-ahead
	// runs on from 68 at once.
	d := Cache{Start: 60, From: 68, Stop: 118, At: blkq.Time(6800 * us)}
	step(serviceCase{name: "miss", now: 500 * us, op: blkq.OpRead, sector: 60, n: 8,
		cost: Cost{Overhead: 500 * us, Rotate: 5 * ms, Transfer: 800 * us, Served: Miss},
		segs: []Cache{d, c1, a}})

	// 130..137 was in B, which is gone: a miss, which replaces A. Its
	// seek begins at 7.3 ms, when D's read-ahead stops having read
	// 68..72; D keeps 60..72. One track's seek (1 ms) to angle 83;
	// sector 130 is at (30 + skew 10) = 40: 5.7 ms; read by 14.8 ms,
	// when the head is at the start of 138.
	d1 := Cache{Start: 60, From: 73, Stop: 73, At: blkq.Time(6800 * us)}
	e := Cache{Start: 130, From: 138, Stop: 188, At: blkq.Time(14800 * us)}
	step(serviceCase{name: "miss evicts the LRU", now: 6800 * us, op: blkq.OpRead, sector: 130, n: 8, head: 1,
		cost: Cost{Overhead: 500 * us, Seek: ms, Rotate: 5700 * us, Transfer: 800 * us, Served: Miss},
		segs: []Cache{e, d1, c1}})

	// A hit in C needs no head: E's read-ahead runs on untouched, and C
	// is the most recently used again.
	c2 := Cache{Start: 308, From: 400, Stop: 400}
	step(serviceCase{name: "hit beside a running read-ahead", now: 15 * ms, op: blkq.OpRead, sector: 308, n: 8, head: 1,
		cost: Cost{Overhead: 100 * us, Transfer: 400 * us, Served: Hit},
		segs: []Cache{c2, e, d1}})

	// 70..77 starts in D but runs past what it holds (73): D needs the
	// head. At 15.6 ms, once the command is decoded, E's read-ahead
	// stops having read 138..145; the head seeks from track 1 to track
	// 0 (1 ms, to angle 66) and waits 0.7 ms for sector 73: D's
	// read-ahead restarts at 17.3 ms, to 78 + 50 = 128, and has read 77
	// by 17.8 ms. 2.3 ms in all, against 0.5 + 1 + 9.8 + 0.8 ms for a
	// miss.
	d2 := Cache{Start: 70, From: 73, Stop: 128, At: blkq.Time(17300 * us)}
	e1 := Cache{Start: 130, From: 146, Stop: 146, At: blkq.Time(14800 * us)}
	step(serviceCase{name: "partial hit takes the head", now: 15500 * us, op: blkq.OpRead, sector: 70, n: 8, head: 1,
		cost: Cost{Overhead: 100 * us, Transfer: 2200 * us, Served: PartialHit},
		segs: []Cache{d2, c2, e1}})
}

// TestCacheInvalidation checks that writes and discards drop every
// segment they overlap, the running one included, and no other.
func TestCacheInvalidation(t *testing.T) {
	m := mustModel(t, segParams())
	// E reads ahead 138..187 from 14.8 ms; D holds 60..72, C 300..399
	// (the state after "miss evicts the LRU" in TestCacheSegments).
	c := Cache{Start: 300, From: 400, Stop: 400}
	d := Cache{Start: 60, From: 73, Stop: 73, At: blkq.Time(6800 * us)}
	e := Cache{Start: 130, From: 138, Stop: 188, At: blkq.Time(14800 * us)}
	st := State{Head: 1, Segs: segs(e, d, c)}
	runCases(t, m, st, []serviceCase{
		// The write's seek begins at 15.5 ms, when E has read 138..144;
		// 65..134 overlaps D and what E holds, and both are dropped;
		// C stays. From track 1 to 0: 1 ms, to angle 65, where sector
		// 65 starts; 70 sectors and one skew gap: 8 ms.
		{name: "write over two segments", now: 15 * ms, op: blkq.OpWrite, sector: 65, n: 70, head: 1,
			cost: Cost{Overhead: 500 * us, Seek: ms, Transfer: 8 * ms, Served: Miss},
			segs: []Cache{c}},
		// A write that overlaps only what E would have read ahead: E
		// stops at 15.5 ms with 130..144, which the write (145..149)
		// misses, and keeps it. The head is then at the start of 145
		// (angle 55): no wait.
		{name: "write past the read-ahead's stop", now: 15 * ms, op: blkq.OpWrite, sector: 145, n: 5, head: 1,
			cost: Cost{Overhead: 500 * us, Transfer: 500 * us, Served: Miss},
			segs: []Cache{{Start: 130, From: 145, Stop: 145, At: blkq.Time(14800 * us)}, d, c}},
		// A discard of 0..99 drops D; E, which it does not overlap,
		// reads on.
		{name: "discard", now: 15 * ms, op: blkq.OpDiscard, sector: 0, n: 100, head: 1,
			cost: Cost{Overhead: 100 * us, Served: NoData},
			segs: []Cache{e, c}},
		// A discard into what E would read ahead stops it at once and
		// drops it, the head where E had taken it (track 1).
		{name: "discard into the read-ahead", now: 15 * ms, op: blkq.OpDiscard, sector: 180, n: 10, head: 1,
			cost: Cost{Overhead: 100 * us, Served: NoData},
			segs: []Cache{d, c}},
	})
}

// roundRobin reads 4 KiB at a time at queue depth 1 from streams extents of
// extent sectors laid end to end from sector 0, as the engine lays out fio's
// files: one request from each stream in turn, each issued as the last
// completes. Each stream reads its extent sequentially from its start, or
// at random 4 KiB blocks within it. It returns the total throughput in MB/s
// over n requests.
func roundRobin(p Params, streams int, extent uint64, random bool, n int) float64 {
	l := sim.NewLoop()
	d := New(l, p)
	rng := sim.NewRNG(3).Split("streams")
	next := make([]uint64, streams)
	for i := range next {
		next[i] = uint64(i) * extent
	}
	k, done := 0, 0
	issue := func() {
		i := k % streams
		k++
		s := next[i]
		if random {
			s = uint64(i)*extent + rng.Uint64N(extent/8)*8
		} else {
			next[i] += 8
		}
		d.Issue(simtest.Read(s, 8))
	}
	d.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			panic(err)
		}
		if done++; done < n {
			issue()
		}
	})
	issue()
	l.Run()
	return float64(n*4096) / float64(l.Now()) * 1e3
}

// TestDeviceInterleavedStreams is why the buffer has several segments: four
// sequential streams read in turn keep one segment each, and the read-ahead
// of the one that missed last runs while the others are served from the
// buffer, so together they read far faster than random reads over the same
// files. With one segment every read is a miss, and the streams are no
// faster than random reads; so too with more streams than segments, which
// least-recently-used replacement then evicts in turn (Zhu and Hu's finding,
// see Params.CacheSegments).
func TestDeviceInterleavedStreams(t *testing.T) {
	const n = 20000
	for _, ext := range []uint64{64 << 20 >> 9, 100 << 30 >> 9} { // 64 MiB and 100 GiB files
		seq := roundRobin(Params{}, 4, ext, false, n)
		rnd := roundRobin(Params{}, 4, ext, true, n)
		one := roundRobin(Params{CacheSegments: 1}, 4, ext, false, n)
		five := roundRobin(Params{}, 5, ext, false, n)
		t.Logf("%d MiB files, 4 KiB reads at QD1: 4 sequential streams %.2f MB/s, 4 random %.3f MB/s; one segment: 4 sequential %.3f MB/s; 5 sequential streams %.3f MB/s",
			ext>>11, seq, rnd, one, five)
		if seq < 10*rnd {
			t.Errorf("%d MiB files: 4 sequential streams %.2f MB/s, not clearly above 4 random %.3f MB/s", ext>>11, seq, rnd)
		}
		if one > 2*rnd || five > 2*rnd {
			t.Errorf("%d MiB files: one segment %.3f MB/s, 5 streams %.3f MB/s, want near random's %.3f", ext>>11, one, five, rnd)
		}
	}
}
