package engine

import (
	"math"
	"math/rand/v2"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Random offsets as fio 3.33 picks them. A random I/O of a direction
// starts on a multiple of its alignment (ba=, by default the smallest
// block size of that direction), drawn by random_generator:
//
//   - tausworthe (fio's default) and tausworthe64 draw uniformly with 32
//     and 64 bits of resolution (block = blocks·r/2^bits); unless
//     norandommap is set, a block already done moves to the next free one
//     (randmap.go), the I/O is cut short at the first done block, and the
//     pass ends when the map is full;
//   - lfsr walks the blocks in a shift register's order (lfsr.go), each
//     once per pass, with no map.
//
// The random map and lfsr count blocks of the smallest block size of all
// directions (fio's rw_min_bs) while a direction draws in its own
// alignment: when the directions' sizes differ (bs=4k,16k), fio's map
// lookups run past the larger direction's blocks and its pass ends
// early (155 of 256 16k writes in 4 MiB), and so does blkq's. A ba= that
// differs from a direction's smallest block size turns the map off, as
// fio does ("Any use of blockalign= turns off randommap").
//
// random_distribution other than random draws the block from its law
// (zoned: a zone by its access share, then uniformly within it; zipf,
// pareto, normal: distrib.go) and, as in fio, turns the map off.
// rw=randread:N issues N-1 I/Os after each random one (the first I/O is
// random) as rw_sequencer says: continuing from the last one
// (sequential, fio's default) or at its offset again (identical). Of the
// others, percentage_random percent are random and the rest continue
// from the last one too. I/Os that continue do not mark the map; one
// that would start past the file's end is random instead, and one past
// the region's end (a region smaller than its file) ends the pass, as
// in fio's get_next_block.

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
	case !j.NoRandomMap && !g.alignedApart():
		r.rmap = newRandMap(r.blocks)
	}
}

// align is direction d's random offset alignment: ba= or the
// direction's smallest block size.
func (g *generator) align(d int) int64 {
	if a := g.job.BlockAlign[d]; a > 0 {
		return a
	}
	return minBlockSize(g.job, d)
}

// alignedApart reports whether ba= differs from the smallest block size
// in some direction, which turns fio's random map off.
func (g *generator) alignedApart() bool {
	for d := range 3 {
		if a := g.job.BlockAlign[d]; a > 0 && a != minBlockSize(g.job, d) {
			return true
		}
	}
	return false
}

// lastBlock is how many aligned blocks of direction d a random I/O may
// start on in f's region, as fio's last_block counts them (less the
// part of the smallest block that overhangs the alignment).
func (g *generator) lastBlock(f *fileRegion, d int) uint64 {
	size, a := f.size, g.align(d)
	if bs := minBlockSize(g.job, d); bs > a {
		size -= bs - a
	}
	return uint64(max(size, 0) / a)
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
	d := rwt(op)
	seq := false
	if g.seqNr--; g.seqNr > 0 {
		seq = true
		if g.job.RWSequencer == "identical" {
			return g.identicalIO(f, op)
		}
	} else {
		g.seqNr = max(g.job.RWModifier, 1)
		if p := g.job.PercentageRandom[d]; p < 100 {
			seq = 1+g.rng.IntN(100) > p // fio's rand_between(1, 100) <= p: random
		}
	}
	if seq && f.lastPos[d] < f.fileSize {
		return g.seqIO(f, op, 0)
	}
	g.atRandom = true
	r := &f.rand
	if r.blocks == 0 {
		return 0, 0, false
	}
	b, ok := g.randomBlock(f, op)
	if !ok {
		return 0, 0, false
	}
	unit := g.minBS // zoned and the skewed laws draw in the smallest blocks of all
	if r.skew == nil && len(g.job.RandomDistribution.Zones[d]) == 0 {
		unit = g.align(int(d))
	}
	if int64(b) >= f.size/unit {
		return 0, 0, false // fio: the offset is past the region, the pass ends
	}
	// From the current zone's start: the region's start unless
	// zonemode=strided has moved it (zone.go).
	abs := f.zoneOff + int64(b)*unit
	n := g.blockSize(op, f.start()+f.size-abs)
	if n == 0 {
		return 0, 0, false
	}
	if r.rmap != nil {
		// The map is on only where unit is the direction's smallest
		// block size, so b is the block to mark in its units.
		k := r.rmap.setRun(b, uint64((n+unit-1)/unit))
		n = min(n, int64(k)*unit)
	}
	if abs+n > f.end {
		return 0, 0, false
	}
	f.lastPos[rwt(op)] = abs + n
	return abs, n, true
}

// identicalIO is rw_sequencer=identical's I/O between random ones: at
// the start of the direction's last I/O in f (the region's start before
// the first), with a block size of its own, unmarked.
func (g *generator) identicalIO(f *fileRegion, op blkq.Op) (int64, int64, bool) {
	abs := f.lastStart[rwt(op)]
	if abs < 0 {
		abs = f.start()
	}
	n := g.blockSize(op, f.start()+f.size-abs)
	if n == 0 || abs+n > f.fileSize {
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
	last := g.lastBlock(f, int(rwt(op)))
	if last == 0 {
		return 0, false
	}
	b := g.uniform(r.rng, last)
	if r.rmap != nil && (b >= r.rmap.n || r.rmap.isSet(b)) {
		return r.rmap.nextFree(min(b, r.rmap.n-1))
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
