package hdd

import (
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// TestReachedMatchesSearch checks reached's closed form against the
// bisection over heldAt that defines it, on disks of several geometries
// (track skews and so track-switch gaps of 0 to most of a track, slow and
// fast spindles), read-aheads starting anywhere on a track and running
// over many tracks, at times before, during and after the run.
func TestReachedMatchesSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	params := []Params{
		{},
		{TrackSkew: -1},
		{RPM: 5400, MediaRate: 60e6},
		{RPM: 15000, MediaRate: 300e6, TrackToTrack: 200 * time.Microsecond},
		{TrackSkew: 1},
	}
	checked := 0
	for _, p := range params {
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		for range 20000 {
			from := rng.Uint64N(m.p.Capacity / 2)
			n := 1 + rng.Uint64N(4*m.spt)
			if rng.IntN(4) == 0 {
				n = 1 + rng.Uint64N(8)
			}
			c := Cache{Start: from, From: from, Stop: from + n, At: blkq.Time(rng.Int64N(1e12))}
			end := m.heldAt(c, c.Stop)
			var at blkq.Time
			switch rng.IntN(4) {
			case 0: // around one sector's boundary
				k := rng.Uint64N(n + 1)
				at = m.heldAt(c, c.From+k) + blkq.Time(rng.Int64N(3)-1)
			case 1:
				at = c.At + blkq.Time(rng.Int64N(int64(end-c.At)+2))
			case 2:
				at = end + blkq.Time(rng.Int64N(1e9))
			default:
				at = c.At - blkq.Time(rng.Int64N(100))
			}
			got := m.reached(c, at)
			want := c.From
			if at > c.At {
				want = c.From + m.reachedSearch(c, at, n)
			}
			if got != want {
				t.Fatalf("params %+v: reached(%+v, %d) = %d, bisection %d", p, c, at, got, want)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// TestAngleAtMatchesDivision checks angleAt's remainder by a constant
// against the 128-bit remainder it stands for, at times of either sign,
// up to the largest.
func TestAngleAtMatchesDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	for _, p := range []Params{{}, {RPM: 5400, MediaRate: 60e6}, {RPM: 1_000_000, MediaRate: 1e9}} {
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 100000 {
			var tm blkq.Time
			switch i % 3 {
			case 0:
				tm = blkq.Time(rng.Int64N(1e13))
			case 1:
				tm = blkq.Time(rng.Int64())
			default:
				tm = -blkq.Time(rng.Int64())
			}
			u := uint64(tm)
			if tm < 0 {
				u = uint64(-tm)
			}
			hi, lo := bits.Mul64(u, m.perNs)
			_, want := bits.Div64(hi, lo, m.perRev)
			if tm < 0 && want != 0 {
				want = m.perRev - want
			}
			if got := m.angleAt(tm); got != want {
				t.Fatalf("rpm %d: angleAt(%d) = %d, want %d", m.p.RPM, tm, got, want)
			}
		}
	}
}
