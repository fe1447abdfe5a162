package engine

import (
	"math/bits"
	"math/rand/v2"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// The offset generator: the next I/O of a job as fio would choose it.
//
// Sequential modes walk each file's region from its offset, adding the rw
// modifier (a hole or, negative, a backwards step) after each I/O and
// skipping zoneskip after every zonesize bytes (zonemode=strided). Random
// modes pick blocks of the smallest block size; unless norandommap is set,
// a pass visits every block exactly once, in the order of a keyed
// permutation (a Feistel network with cycle walking: O(1) memory, where
// fio keeps a bitmap or an LFSR). Mixed modes pick the direction of each
// I/O with probability rwmixread and keep a separate position per
// direction, as fio does; trimwrite trims each block and then writes it.
// Files are used round robin.

// rwt is the index of op's direction in fio's read, write, trim arrays
// (the job's block sizes and rates, the report's figures): a flush
// counts as a write, as fio counts fsync's writes.
func rwt(op blkq.Op) report.Dir {
	switch op {
	case blkq.OpRead:
		return report.DirRead
	case blkq.OpDiscard:
		return report.DirTrim
	}
	return report.DirWrite
}

// nextIO is one I/O to issue: a direction, a device byte offset and a
// length in bytes.
type nextIO struct {
	op     blkq.Op // read, write or discard
	offset int64   // on the device, bytes
	length int64
	// uncounted: trimwrite's trim, which the job's size does not count
	// (it counts each block once, for its write).
	uncounted bool
	// rec is the trace record a replay's I/O comes from (its op, flags
	// and task), nil for fio's.
	rec *ReplayRecord
	// sub is the task that submits it, nil for the job's own.
	sub *submitter
}

// fileRegion is the part of one file a job works on, in device bytes.
type fileRegion struct {
	base int64 // device offset of the region's first byte
	size int64 // region length, bytes
	// fileBase and fileSize are the whole file's, which the region is
	// part of (offset=, a shared filename): fsync covers all of it.
	fileBase, fileSize int64

	pos     [3]int64 // next sequential position per direction, relative to base
	zoneUse [3]int64 // bytes done in the current zone (zonemode=strided)
	perm    permutation
	permIdx uint64 // next index into perm (random with random map)
	seqLeft int    // I/Os left before a new random offset (rw=randread:N)
	randPos int64  // current position in a random run of N
}

type generator struct {
	job   *fio.Job
	rng   *rand.Rand
	files []*fileRegion
	rr    int // round-robin file index

	random, mixed bool
	trimWrite     bool       // trimwrite: each block is trimmed, then written
	pending       *nextIO    // the write that follows a trim (trimwrite)
	dirs          [2]blkq.Op // the directions a mixed mode chooses from
	only          blkq.Op    // the direction of a single-direction mode
	minBS         int64
}

func newGenerator(j *fio.Job, rng *rand.Rand, files []*fileRegion) *generator {
	g := &generator{job: j, rng: rng, files: files}
	switch j.RW {
	case fio.RWRead:
		g.only = blkq.OpRead
	case fio.RWWrite:
		g.only = blkq.OpWrite
	case fio.RWTrim:
		g.only = blkq.OpDiscard
	case fio.RWRandRead:
		g.only, g.random = blkq.OpRead, true
	case fio.RWRandWrite:
		g.only, g.random = blkq.OpWrite, true
	case fio.RWRandTrim:
		g.only, g.random = blkq.OpDiscard, true
	case fio.RWReadWrite:
		g.mixed, g.dirs = true, [2]blkq.Op{blkq.OpRead, blkq.OpWrite}
	case fio.RWRandRW:
		g.mixed, g.random, g.dirs = true, true, [2]blkq.Op{blkq.OpRead, blkq.OpWrite}
	case fio.RWTrimWrite:
		g.only, g.trimWrite = blkq.OpDiscard, true
	case fio.RWRandTrimWrite:
		g.only, g.random, g.trimWrite = blkq.OpDiscard, true, true
	}
	g.minBS = 1 << 62
	for d := range 3 {
		g.minBS = min(g.minBS, minBlockSize(j, d))
	}
	for _, f := range files {
		nblocks := uint64(f.size / g.minBS)
		f.perm = newPermutation(nblocks, rng.Uint64())
	}
	return g
}

// minBlockSize is the smallest block size direction d can use.
func minBlockSize(j *fio.Job, d int) int64 {
	if s := j.BSSplit[d]; len(s) > 0 {
		m := s[0].BS
		for _, x := range s {
			m = min(m, x.BS)
		}
		return max(m, 512)
	}
	return max(j.BS[d].Min, 512)
}

// blockSize picks the size of the next I/O in direction d.
func (g *generator) blockSize(op blkq.Op) int64 {
	j, d := g.job, rwt(op)
	if s := j.BSSplit[d]; len(s) > 0 {
		p := g.rng.IntN(100)
		for _, x := range s {
			if p < x.Percent {
				return x.BS
			}
			p -= x.Percent
		}
		return s[len(s)-1].BS
	}
	r := j.BS[d]
	if r.Max <= r.Min {
		return r.Min
	}
	steps := (r.Max - r.Min) / r.Min
	return r.Min + r.Min*g.rng.Int64N(steps+1)
}

// direction picks the direction of the next I/O.
func (g *generator) direction() blkq.Op {
	if !g.mixed {
		return g.only
	}
	if g.rng.IntN(100) < g.job.RWMixRead {
		return g.dirs[0]
	}
	return g.dirs[1]
}

// next returns the next I/O. wrapped reports that a file's region was
// passed through completely (a sequential wrap or a full random map).
func (g *generator) next() (io nextIO, wrapped bool) {
	if p := g.pending; p != nil {
		g.pending = nil
		return *p, false
	}
	io, wrapped = g.pick()
	if g.trimWrite {
		w := io
		w.op = blkq.OpWrite
		g.pending = &w
		io.uncounted = true
	}
	return io, wrapped
}

// pick chooses the next I/O's file, direction, size and offset.
func (g *generator) pick() (io nextIO, wrapped bool) {
	f := g.files[g.rr]
	g.rr = (g.rr + 1) % len(g.files)
	d := g.direction()
	bs := g.blockSize(d)
	bs = min(bs, f.size)
	var off int64
	if g.random {
		off, wrapped = g.randomOffset(f)
	} else {
		off, wrapped = g.seqOffset(f, d, bs)
	}
	if off+bs > f.size {
		bs = f.size - off
	}
	return nextIO{op: d, offset: f.base + off, length: bs}, wrapped
}

func (g *generator) seqOffset(f *fileRegion, op blkq.Op, bs int64) (int64, bool) {
	j, d := g.job, rwt(op)
	wrapped := false
	off := f.pos[d]
	// Wrap only when nothing is left: a block that does not fit in what
	// is left is cut to it (pick), as fio picks a block that fits,
	// rather than wrapping past the region's end.
	if off < 0 || off >= f.size || (off+bs > f.size && j.RWModifier != 0) {
		wrapped = true
		if j.RWModifier < 0 {
			off = (f.size - bs) / bs * bs
		} else {
			off = 0
		}
		f.zoneUse[d] = 0
	}
	next := off + bs + j.RWModifier
	if j.ZoneMode == "strided" && j.ZoneSize > 0 {
		f.zoneUse[d] += bs
		if f.zoneUse[d] >= j.ZoneSize {
			f.zoneUse[d] = 0
			next += j.ZoneSkip
		}
	}
	f.pos[d] = next
	return off, wrapped
}

func (g *generator) randomOffset(f *fileRegion) (int64, bool) {
	j := g.job
	nblocks := f.size / g.minBS
	if nblocks <= 0 {
		return 0, true
	}
	// rw=randread:N: N-1 sequential I/Os after each random one.
	if f.seqLeft > 0 {
		f.seqLeft--
		f.randPos += g.minBS
		if f.randPos+g.minBS <= f.size {
			return f.randPos, false
		}
	}
	if j.RWModifier > 1 {
		f.seqLeft = int(j.RWModifier) - 1
	}
	wrapped := false
	var blk int64
	if j.NoRandomMap {
		blk = g.rng.Int64N(nblocks)
	} else {
		blk = int64(f.perm.at(f.permIdx))
		f.permIdx++
		if f.permIdx >= uint64(nblocks) {
			wrapped = true
			f.permIdx = 0
			f.perm = newPermutation(uint64(nblocks), g.rng.Uint64())
		}
	}
	f.randPos = blk * g.minBS
	return f.randPos, wrapped
}

// permutation is a keyed bijection on [0, n): a balanced Feistel network
// on the smallest even power of two ≥ n, walked until the result is < n.
type permutation struct {
	n          uint64
	half, mask uint64
	keys       [4]uint64
}

func newPermutation(n, seed uint64) permutation {
	p := permutation{n: n}
	b := uint64(bits.Len64(max(n, 2) - 1))
	b += b & 1
	p.half = b / 2
	p.mask = 1<<p.half - 1
	for i := range p.keys {
		seed = seed*6364136223846793005 + 1442695040888963407
		p.keys[i] = seed
	}
	return p
}

func (p *permutation) round(x, k uint64) uint64 {
	x ^= k
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x & p.mask
}

func (p *permutation) at(i uint64) uint64 {
	x := i
	for {
		l, r := x>>p.half, x&p.mask
		for _, k := range p.keys {
			l, r = r, l^p.round(r, k)
		}
		x = l<<p.half | r
		if x < p.n {
			return x
		}
	}
}
