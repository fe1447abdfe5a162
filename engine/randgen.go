package engine

import (
	"math"
	"math/rand/v2"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Random offsets as fio 3.33 picks them. A random I/O starts on a block
// of the smallest block size, drawn by random_generator:
//
//   - tausworthe (fio's default) and tausworthe64 draw uniformly with 32
//     and 64 bits of resolution (block = blocks·r/2^bits); unless
//     norandommap is set, a block already done moves to the next free one
//     (randmap.go), the I/O is cut short at the first done block, and the
//     pass ends when the map is full;
//   - lfsr walks the blocks in a shift register's order (lfsr.go), each
//     once per pass, with no map.
//
// random_distribution other than random draws the block from its law
// (zoned: a zone by its access share, then uniformly within it; zipf,
// pareto, normal: distrib.go) and, as in fio, turns the map off.
// rw=randread:N issues N-1 sequential I/Os, continuing from the last
// one, between random ones (the first N-1 included); those do not mark
// the map.

// randState is a file's random-offset state.
type randState struct {
	rng    *rand.Rand // the file's offset draws
	blocks uint64     // the region's blocks of the smallest block size
	rmap   *randMap   // nil: norandommap, lfsr or a non-uniform law
	lfsr   *lfsr
	skew   *skewed
}

func (r *randState) reset() {
	if r.rmap != nil {
		r.rmap.reset()
	}
	if r.lfsr != nil {
		r.lfsr.reset()
	}
}

// initRandom prepares f's random state for the job.
func (g *generator) initRandom(f *fileRegion) {
	j := g.job
	r := &f.rand
	size := f.size
	if g.strided() {
		size = g.zoneRange() // fio draws within the zone (zone.go)
	}
	r.blocks = uint64(size / g.minBS)
	if !g.random || r.blocks == 0 {
		return
	}
	switch dist := j.RandomDistribution; {
	case dist.Kind == "zipf" || dist.Kind == "pareto" || dist.Kind == "normal":
		r.skew = newSkewed(dist, r.blocks, r.rng)
	case dist.Kind == "zoned" || dist.Kind == "zoned_abs":
	case j.RandomGenerator == "lfsr":
		r.lfsr = newLFSR(r.blocks, r.rng.Uint64())
	case !j.NoRandomMap:
		r.rmap = newRandMap(r.blocks)
	}
}

// uniform draws a block in [0, n) from rng as fio's tausworthe
// generators do.
func (g *generator) uniform(rng *rand.Rand, n uint64) uint64 {
	var b uint64
	if g.job.RandomGenerator == "tausworthe64" {
		b = uint64(float64(n) * (float64(rng.Uint64()) / (1 << 64)))
	} else {
		b = uint64(float64(n) * (float64(rng.Uint32()) / (1 << 32)))
	}
	return min(b, n-1)
}

// randomIO returns the next random I/O of direction op in f (offset from
// the file's start, length); false when the pass has ended.
func (g *generator) randomIO(f *fileRegion, op blkq.Op) (int64, int64, bool) {
	if g.seqNr--; g.seqNr > 0 {
		if off, n, ok := g.seqIO(f, op, 0); ok {
			return off, n, true
		}
	} else {
		g.seqNr = max(g.job.RWModifier, 1)
	}
	r := &f.rand
	if r.blocks == 0 {
		return 0, 0, false
	}
	b, ok := g.randomBlock(f, op)
	if !ok {
		return 0, 0, false
	}
	abs := f.zoneOff + int64(b)*g.minBS
	n := g.blockSize(op, f.start()+f.size-abs)
	if n == 0 {
		return 0, 0, false
	}
	if r.rmap != nil {
		k := r.rmap.setRun(b, uint64((n+g.minBS-1)/g.minBS))
		n = min(n, int64(k)*g.minBS)
	}
	if abs+n > f.end {
		return 0, 0, false
	}
	f.lastPos[rwt(op)] = abs + n
	return abs, n, true
}

// randomBlock draws the block the next random I/O starts on.
func (g *generator) randomBlock(f *fileRegion, op blkq.Op) (uint64, bool) {
	r := &f.rand
	switch {
	case r.skew != nil:
		return r.skew.next(), true
	case r.lfsr != nil:
		return r.lfsr.next()
	}
	if zones := g.job.RandomDistribution.Zones[rwt(op)]; len(zones) > 0 {
		return g.zonedBlock(f, zones), true
	}
	b := g.uniform(r.rng, r.blocks)
	if r.rmap != nil && r.rmap.isSet(b) {
		return r.rmap.nextFree(b)
	}
	return b, true
}

// zonedBlock picks a zone by its access share (1..100 against the
// cumulative shares), then a block uniformly within it.
func (g *generator) zonedBlock(f *fileRegion, zones []fio.Zone) uint64 {
	v := 1 + f.rand.rng.IntN(100)
	n := f.rand.blocks
	var lo, hi uint64 // the zone's blocks
	cumAccess, cumRange, cumSize := 0, 0, int64(0)
	for _, z := range zones {
		lo = uint64(cumRange) * n / 100
		if g.job.RandomDistribution.Kind == "zoned_abs" {
			lo = uint64(cumSize / g.minBS)
		}
		cumAccess += z.Access
		cumRange += z.RangePercent
		cumSize += z.Size
		hi = uint64(cumRange) * n / 100
		if g.job.RandomDistribution.Kind == "zoned_abs" {
			hi = min(uint64(cumSize/g.minBS), n)
		}
		if v <= cumAccess {
			break
		}
	}
	if hi <= lo {
		return min(lo, n-1)
	}
	return lo + g.uniform(f.rand.rng, hi-lo)
}

// maxZonedAbs is the bytes a zoned_abs distribution spans in its widest
// direction, 0 for other distributions: a region smaller than that is an
// error (fio: "zoned_abs sizes exceed file size").
func maxZonedAbs(zs [3][]fio.Zone) int64 {
	var m int64
	for _, d := range zs {
		var s int64
		for _, z := range d {
			s += z.Size
		}
		m = max(m, s)
	}
	if m > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return m
}
