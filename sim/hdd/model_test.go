package hdd

import (
	"math"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

// roundParams is a disk with round numbers, for values computed by hand:
// 6000 rpm is 10 ms a revolution; 5.12e6 bytes/s × 10 ms / 512 is 100
// sectors a track, so a sector passes in 100 µs; 100000 sectors make 1000
// cylinders, a full stroke of 999 and a third of it 333. A track-to-track
// seek of 1 ms lets exactly 10 sectors pass, so the derived skew is 10.
// A command costs 0.1 ms of overhead, 0.5 ms on a miss (the defaults); the
// interface moves a sector in 50 µs (twice the media rate) and the drive
// reads ahead 50 sectors (half a track) beyond the last read.
var roundParams = Params{
	Capacity:        100_000,
	RPM:             6000,
	TrackToTrack:    time.Millisecond,
	AvgSeek:         5 * time.Millisecond,
	FullStroke:      10 * time.Millisecond,
	MediaRate:       5.12e6,
	CommandOverhead: 100 * time.Microsecond,
	MissOverhead:    400 * time.Microsecond,
	BusRate:         10.24e6,
	ReadAheadBytes:  50 * 512,
}

// bare returns p without command overhead and read-ahead buffer: the bare
// mechanism.
func bare(p Params) Params {
	p.CommandOverhead, p.MissOverhead, p.ReadAheadBytes = -1, -1, -1
	return p
}

func mustModel(t testing.TB, p Params) *Model {
	t.Helper()
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGeometry(t *testing.T) {
	m := mustModel(t, roundParams)
	if m.SectorsPerTrack() != 100 || m.Cylinders() != 1000 || m.TrackSkew() != 10 || m.Revolution() != 10*time.Millisecond {
		t.Fatalf("round disk: spt %d cyls %d skew %d rev %v", m.SectorsPerTrack(), m.Cylinders(), m.TrackSkew(), m.Revolution())
	}
	// Defaults: 150e6 B/s × 8.3333 ms / 512 = 2441.4 → 2441 sectors a
	// track; 1048576000 / 2441 = 429568 full tracks and 512 sectors on a
	// 429569th. 0.8 ms × 2441 / 8.3333 ms = 234.3 sectors pass during a
	// track-to-track seek → skew 235.
	d := mustModel(t, Params{})
	if d.SectorsPerTrack() != 2441 || d.Cylinders() != 429569 || d.TrackSkew() != 235 || d.Revolution() != 8333333 {
		t.Fatalf("default disk: spt %d cyls %d skew %d rev %v", d.SectorsPerTrack(), d.Cylinders(), d.TrackSkew(), d.Revolution())
	}
	if d.Params().Capacity != 1048576000 || d.Params().Depth != 1 {
		t.Fatalf("default params %+v", d.Params())
	}
	if d.Cylinder(2440) != 0 || d.Cylinder(2441) != 1 || d.Cylinder(1048575999) != 429568 {
		t.Fatal("Cylinder")
	}
}

func TestSeek(t *testing.T) {
	m := mustModel(t, roundParams)
	for _, c := range []struct {
		d    uint64
		want time.Duration
	}{
		{0, 0},                       // no movement
		{1, time.Millisecond},        // track to track
		{333, 5 * time.Millisecond},  // a third of the stroke: average
		{999, 10 * time.Millisecond}, // full stroke
	} {
		if got := m.Seek(c.d); got != c.want {
			t.Errorf("round disk: Seek(%d) = %v, want %v", c.d, got, c.want)
		}
	}
	d := mustModel(t, Params{})
	if got := d.Seek(1); got != 800*time.Microsecond {
		t.Errorf("default Seek(1) = %v, want 800µs", got)
	}
	if got := d.Seek(d.Cylinders() - 1); got != 16*time.Millisecond {
		t.Errorf("default full stroke = %v, want 16ms", got)
	}
	// The average point is at 429568/3 = 143189.33 cylinders, between two
	// whole distances.
	if got := d.Seek(143189); got > 8500*time.Microsecond || got < 8499*time.Microsecond {
		t.Errorf("default Seek(143189) = %v, want just under 8.5ms", got)
	}
	prev := time.Duration(0)
	for dist := uint64(0); dist < d.Cylinders(); dist += 997 {
		s := d.Seek(dist)
		if s < prev {
			t.Fatalf("seek curve decreases at %d: %v < %v", dist, s, prev)
		}
		prev = s
	}
}

func TestSeekSmallDisks(t *testing.T) {
	p := roundParams
	p.Capacity = 300 // 3 cylinders: full stroke 2, a line
	m := mustModel(t, p)
	if m.Seek(1) != time.Millisecond || m.Seek(2) != 10*time.Millisecond {
		t.Errorf("3 cylinders: Seek(1) %v Seek(2) %v", m.Seek(1), m.Seek(2))
	}
	p.Capacity = 150 // 2 cylinders: only track to track
	m = mustModel(t, p)
	if m.Seek(1) != time.Millisecond {
		t.Errorf("2 cylinders: Seek(1) %v", m.Seek(1))
	}
}

func TestRotationalWait(t *testing.T) {
	m := mustModel(t, roundParams)
	ms := time.Millisecond
	for _, c := range []struct {
		at     blkq.Time
		sector uint64
		want   time.Duration
	}{
		// Sector 25 of track 0 starts a quarter turn in: 2.5 ms from 0.
		{0, 25, 2500 * time.Microsecond},
		// Track 1 is skewed by 10 sectors: sector 125 is at 35/100.
		{0, 125, 3500 * time.Microsecond},
		// Track 7: (0 + 7×10) = 70/100.
		{0, 700, 7 * ms},
		// On time, and 1 ns early.
		{blkq.Time(2500 * time.Microsecond), 25, 0},
		{blkq.Time(2500*time.Microsecond) - 1, 25, 1},
		// 1 ns late: nearly a whole revolution.
		{blkq.Time(2500*time.Microsecond) + 1, 25, 10*ms - 1},
		// Time wraps every revolution.
		{blkq.Time(1234*10*ms + 500*time.Microsecond), 25, 2 * ms},
	} {
		if got := m.RotationalWait(c.at, c.sector); got != c.want {
			t.Errorf("RotationalWait(%d, %d) = %v, want %v", c.at, c.sector, got, c.want)
		}
	}
	d := mustModel(t, Params{})
	// Sector 1000 of track 0: 1000/2441 of 8.3333 ms = 3413901.4 ns,
	// rounded up.
	if got := d.RotationalWait(0, 1000); got != 3413902 {
		t.Errorf("default RotationalWait(0, 1000) = %d ns, want 3413902", got)
	}
}

func TestService(t *testing.T) {
	m := mustModel(t, roundParams)
	ms, us := time.Millisecond, time.Microsecond
	for _, c := range []struct {
		name            string
		now             blkq.Time
		head, sector    uint64
		n               uint32
		seek, rot, xfer time.Duration
		newHead         uint64
	}{
		// Every miss spends 0.5 ms on overhead first, during which the
		// platter turns 5 sectors.
		// Head on the right track; at 0.5 ms the platter is at 5/100,
		// sector 25 at 25: 2 ms; 8 sectors × 100 µs.
		{"zero distance", 0, 0, 25, 8, 0, 2 * ms, 800 * us, 0},
		// Seek 1 ms; by then (1.5 ms) the platter is at 15/100, sector
		// 125 at 35: 2 ms more.
		{"one track", 0, 0, 125, 8, ms, 2 * ms, 800 * us, 1},
		// Full stroke 10 ms = a whole revolution, ending at 10.5 ms, angle
		// 5; sector 99925 is on track 999 at (25 + 999×10 mod 100) =
		// 15/100: 1 ms.
		{"full stroke", 0, 0, 99925, 8, 10 * ms, ms, 800 * us, 999},
		// The seek begins at 9.5 ms, angle 95: sectors 95..104 cross into
		// track 1: 10 sectors plus the 10-sector skew gap = 2 ms; the head
		// ends on track 1.
		{"track crossing", blkq.Time(9000 * us), 0, 95, 10, 0, 0, 2 * ms, 1},
		// A read of no sectors only positions: from angle 5 to sector 300
		// at (0 + 3×10) = 30: 2.5 ms.
		{"no data", 0, 3, 300, 0, 0, 2500 * us, 0, 3},
	} {
		cost, st := m.Service(c.now, State{Head: c.head}, blkq.OpRead, c.sector, c.n)
		want := Cost{Overhead: 500 * us, Seek: c.seek, Rotate: c.rot, Transfer: c.xfer, Served: Miss}
		if cost != want || st.Head != c.newHead {
			t.Errorf("%s: got %+v head %d, want %+v head %d", c.name, cost, st.Head, want, c.newHead)
		}
	}
	// Without overhead the first case waits the 2.5 ms from angle 0.
	b := mustModel(t, bare(roundParams))
	if cost, _ := b.Service(0, State{}, blkq.OpRead, 25, 8); cost != (Cost{Rotate: 2500 * us, Transfer: 800 * us}) {
		t.Errorf("bare disk: %+v", cost)
	}
}

func TestTransferDefaults(t *testing.T) {
	d := mustModel(t, Params{})
	for _, c := range []struct {
		name   string
		sector uint64
		n      uint32
		want   time.Duration
	}{
		// 4 KiB = 8 sectors of a 2441-sector, 8.3333 ms track:
		// 8 × 8333333.3 / 2441 = 27311.2 ns.
		{"4KiB", 0, 8, 27311},
		// 1 MiB = 2048 sectors within track 0: 6991670.1 ns.
		{"1MiB", 0, 2048, 6991670},
		// 1 MiB from sector 1000 runs onto track 1: 2048 + 235 skew
		// sectors = 7793936.9 ns.
		{"1MiB across a track", 1000, 2048, 7793936},
	} {
		if got := d.Transfer(c.sector, c.n); got != c.want {
			t.Errorf("%s: Transfer = %d ns, want %d", c.name, got, c.want)
		}
	}
	// Reaching track 1's first sector from track 0 at t = 0: a 0.8 ms
	// seek, then the 235-sector skew (802266.8 ns from angle 0) leaves
	// 2266.8 ns to wait, rounded up.
	seek, rot := d.position(0, 0, 2441)
	if seek != 800*time.Microsecond || rot != 2267 {
		t.Errorf("track 1 start: seek %v rot %d ns, want 800µs 2267 ns", seek, rot)
	}
}

// TestSequentialStream reads a long run of small requests back to back on
// the bare mechanism (no overhead, no buffer): no request may wait more
// than a sector's time, and the total time is what the media rate and one
// skew gap per track imply.
func TestSequentialStream(t *testing.T) {
	for _, p := range []Params{bare(roundParams), bare(Params{})} {
		m := mustModel(t, p)
		spt := m.SectorsPerTrack()
		now := blkq.Time(m.RotationalWait(0, 0)) // 0: sector 0 is at angle 0
		var st State
		tracks := uint64(50)
		for s := uint64(0); s < tracks*spt; s += 8 {
			n := uint32(min(8, tracks*spt-s))
			cost, next := m.Service(now, st, blkq.OpRead, s, n)
			// Crossing onto a new track between requests, the seek ends
			// up to a sector before the skewed first sector arrives.
			if cost.Rotate > m.Revolution()/time.Duration(spt) {
				t.Fatalf("spt %d: sector %d waits %v", spt, s, cost.Rotate)
			}
			now += blkq.Time(cost.Total())
			st = next
		}
		// tracks × spt sectors plus (tracks-1) skew gaps of TrackSkew
		// sectors each.
		secs := tracks*spt + (tracks-1)*m.TrackSkew()
		want := float64(secs) * float64(m.Revolution()) / float64(spt)
		if math.Abs(float64(now)-want) > float64(tracks*spt/8) { // ≤ 1 ns per request
			t.Errorf("spt %d: %d tracks took %d ns, want %.0f", spt, tracks, now, want)
		}
		t.Logf("spt %d: sequential %.1f MB/s", spt, float64(tracks*spt*512)/float64(now)*1e3)
	}
}

// TestNoSkew checks the plain layout (TrackSkew < 0): every track starts
// at angle 0 and running onto the next track costs a whole revolution.
func TestNoSkew(t *testing.T) {
	p := roundParams
	p.TrackSkew = -1
	m := mustModel(t, p)
	if m.TrackSkew() != 0 || m.RotationalWait(0, 125) != 2500*time.Microsecond {
		t.Fatalf("skew %d, wait %v", m.TrackSkew(), m.RotationalWait(0, 125))
	}
	// 95..104: 10 sectors + 100 (a revolution) = 11 ms.
	if got := m.Transfer(95, 10); got != 11*time.Millisecond {
		t.Fatalf("crossing without skew: %v", got)
	}
}

func TestValidate(t *testing.T) {
	for _, p := range []Params{
		{RPM: -1},
		{AvgSeek: 20 * time.Millisecond},     // above full stroke
		{TrackToTrack: 9 * time.Millisecond}, // above average
		{MediaRate: 100},                     // < 1 sector a track
		{MediaRate: -1},
		{TrackSkew: 5000}, // ≥ sectors per track
		{Depth: -2},
		{CommandOverhead: 2 * time.Second},
		{MissOverhead: time.Hour},
		{BusRate: -1},
		{BusRate: 2e12},
		{CacheSegments: -1},
		{CacheSegments: MaxCacheSegments + 1},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: no error", p)
		} else if _, err2 := NewModel(p); err2 == nil {
			t.Errorf("%+v: NewModel accepted it", p)
		}
	}
	if err := DefaultParams().Validate(); err != nil {
		t.Fatal(err)
	}
	// Negative overheads and read-ahead mean none.
	if err := bare(Params{}).Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestRandomReadIOPS serves random 4 KiB reads over the whole default disk
// at queue depth 1, straight from the model: overhead 0.5 ms, seek ≈ 8.0 ms
// on average (the mean of the fitted curve over random distances is a
// little under its value at the mean distance), rotation ≈ 4.17 ms,
// transfer 27 µs, so about 79 IOPS. The read-ahead after each read costs
// nothing: the next read stops it.
func TestRandomReadIOPS(t *testing.T) {
	m := mustModel(t, Params{})
	rng := sim.NewRNG(2002)
	const n = 20000
	var now blkq.Time
	var st State
	var seekSum, rotSum time.Duration
	blocks := m.Params().Capacity / 8
	for range n {
		s := rng.Uint64N(blocks) * 8
		cost, next := m.Service(now, st, blkq.OpRead, s, 8)
		if cost.Served != Miss {
			t.Fatalf("random read of sector %d: %v", s, cost.Served)
		}
		seekSum += cost.Seek
		rotSum += cost.Rotate
		now += blkq.Time(cost.Total())
		st = next
	}
	iops := n / time.Duration(now).Seconds()
	t.Logf("random 4 KiB reads, QD1: %.1f IOPS (mean seek %v, mean rotation %v)",
		iops, seekSum/n, rotSum/n)
	if iops < 70 || iops > 90 {
		t.Errorf("%.1f IOPS, want 70..90", iops)
	}
	if r := rotSum / n; r < 4050*time.Microsecond || r > 4280*time.Microsecond {
		t.Errorf("mean rotational latency %v, want ≈ 4.17ms", r)
	}
}

func BenchmarkService(b *testing.B) {
	m := mustModel(b, Params{})
	rng := sim.NewRNG(1)
	var now blkq.Time
	var st State
	for range b.N {
		cost, next := m.Service(now, st, blkq.OpRead, rng.Uint64N(m.Params().Capacity-8), 8)
		now += blkq.Time(cost.Total())
		st = next
	}
}
