package engine

import (
	"math"
	"math/rand/v2"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// The offset generator: the next I/O of a job as fio 3.33 would choose it.
//
// Sequential modes walk each file's region from its offset, adding the rw
// modifier (a hole or, negative, a backwards step) after each I/O and
// within the current zone (zonemode=strided, zone.go). The pass ends where fio's ends: at the first I/O that would start past the
// region or end past the file, so there is never an I/O shorter than the
// block size. fio's one quirk is kept: a hole that carries the position
// past the file's size (compared with the position within the region)
// wraps to the region's start instead of ending the pass, so
// `rw=read:4k size=1m` reads its megabyte twice over the same blocks
// while `rw=read:64k size=1m` reads sixteen blocks once. Random modes are
// in randgen.go. Mixed modes pick the direction of each I/O with
// probability rwmixread and keep a position per direction, as fio does;
// trimwrite trims each block and then writes it. Files are used as
// file_service_type says (fileservice.go); when every file's pass has
// ended the source (source.go) starts another pass or ends the job.

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
	// part of (offset=, a shared filename): fsync covers all of it, and
	// fio lets an I/O run past the region but not past the file.
	fileBase, fileSize int64
	ext                *extent // the file's extent (layout.go)
	// end is where the job's I/O finds the file's end, from fileBase
	// (fio's real_file_size): fileSize, or, for a job on fio's null
	// engine without size=, nowhere (noEnd): fio gives such a file no
	// size, so a pass ends only at its region's end and its last I/O
	// may run past it (filesize=30k bs=4k reads 8 blocks on null, 7 on a
	// file).
	end int64

	lastPos   [3]int64 // per direction, the end of its last I/O, from fileBase (fio's last_pos)
	lastStart [3]int64 // per direction, the start of its last I/O, from fileBase; -1 none (fio's last_start)
	// zoneOff is where the current zone starts, from fileBase (fio's
	// file_offset, which zonemode=strided moves; otherwise start()).
	zoneOff int64
	done    bool // this pass has ended for the file
	rand    randState
}

// start is the region's offset in its file (fio's file_offset).
func (f *fileRegion) start() int64 { return f.base - f.fileBase }

// noEnd is fileRegion.end for a file without an end.
const noEnd = math.MaxInt64 / 4

type generator struct {
	job   *fio.Job
	rng   *rand.Rand // direction and block size draws
	files []*fileRegion

	random, mixed bool
	trimWrite     bool       // trimwrite: each block is trimmed, then written
	pending       *nextIO    // the write that follows a trim (trimwrite)
	dirs          [2]blkq.Op // the directions a mixed mode chooses from
	only          blkq.Op    // the direction of a single-direction mode
	minBS         int64
	seqNr         int64 // rw=randread:N: I/Os left before the next random one
	zoneBytes     int64 // zonemode=strided: bytes done in the current zone (fio's zone_bytes)
	// atRandom says whether the I/O being made has a random offset
	// (fio's is_random): bs_is_seq_rand sizes it by the write entry
	// then, by the read entry otherwise.
	atRandom bool
	fs       fileService // which file is next (fileservice.go)
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
	// Each file's random offsets draw from a stream of their own, seeded
	// from the job's, so that block sizes and directions do not move
	// them, nor one file's another's.
	g.seqNr = 1 // fio starts with a random offset, then N-1 that follow it
	for i, f := range files {
		f.rand.rng = rand.New(rand.NewPCG(rng.Uint64(), uint64(i)))
		g.initRandom(f)
	}
	g.fs.init(j, rng, len(files))
	g.restart()
	return g
}

// restart begins a new pass over every file (loops, time_based, io_size
// beyond the region).
func (g *generator) restart() {
	g.zoneBytes = 0
	for _, f := range g.files {
		g.resetFile(f)
	}
	g.fs.restart()
}

// resetFile begins a new pass over f (fio's fio_file_reset).
func (g *generator) resetFile(f *fileRegion) {
	f.zoneOff = f.start()
	for d := range f.lastPos {
		f.lastPos[d] = f.zoneOff
		f.lastStart[d] = -1
	}
	f.done = false
	f.rand.reset()
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

// blockSize picks the size of the next I/O in direction op, at most room
// bytes when the size varies (fio checks the fit only then); 0 when not
// even the smallest fits. As fio draws it, a bsrange size is min + max·u
// (u uniform in [0, 1)) rounded down to a multiple of min (unless
// bs_unaligned) and capped at max, so the largest size is the likeliest.
// With bs_is_seq_rand the sizes are the read entry's for a sequential
// offset and the write entry's for a random one, whatever op is.
func (g *generator) blockSize(op blkq.Op, room int64) int64 {
	j, d := g.job, rwt(op)
	if j.BSIsSeqRand {
		d = report.DirRead
		if g.atRandom {
			d = report.DirWrite
		}
	}
	split := j.BSSplit[d]
	lo, hi := j.BS[d].Min, j.BS[d].Max
	if len(split) > 0 {
		lo, hi = split[0].BS, split[0].BS
		for _, x := range split {
			lo, hi = min(lo, x.BS), max(hi, x.BS)
		}
	}
	if hi <= lo {
		return lo
	}
	if lo > room {
		return 0
	}
	for range 64 {
		var n int64
		if len(split) > 0 {
			p, cum := g.rng.IntN(100), 0
			for _, x := range split {
				if x.Percent == 0 {
					continue
				}
				n, cum = x.BS, cum+x.Percent
				if p < cum && x.BS <= room {
					break
				}
			}
		} else {
			n = lo + int64(float64(hi)*g.rng.Float64())
		}
		if !j.BSUnaligned {
			n -= n % lo
		}
		n = min(n, hi)
		if n <= room {
			return n
		}
	}
	return lo
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

// next returns the next I/O; false when every file's pass has ended.
func (g *generator) next() (nextIO, bool) {
	if p := g.pending; p != nil {
		g.pending = nil
		return *p, true
	}
	io, ok := g.pick()
	if ok && g.trimWrite {
		w := io
		w.op = blkq.OpWrite
		g.pending = &w
		io.uncounted = true
	}
	return io, ok
}

// pick chooses the next I/O's file (as file_service_type and openfiles
// say: fileservice.go), direction, size and offset, passing over files
// whose pass has ended.
func (g *generator) pick() (nextIO, bool) {
	d := g.direction()
	for {
		i, ok := g.fs.next(g.files)
		if !ok {
			return nextIO{}, false
		}
		f := g.files[i]
		if g.strided() {
			g.enterZone(f, int(rwt(d)))
		}
		var off, n int64
		g.atRandom = false
		if g.random {
			off, n, ok = g.randomIO(f, d)
		} else {
			off, n, ok = g.seqIO(f, d, g.job.RWModifier)
		}
		if ok {
			g.zoneBytes += n
			f.lastStart[rwt(d)] = off
			g.fs.used(i)
			return nextIO{op: d, offset: f.fileBase + off, length: n}, true
		}
		g.fs.ended(g, i)
	}
}

// seqIO returns the next sequential I/O of direction op in f (offset
// from the file's start, length) with hole bytes between I/Os, moving
// f's position; false when the pass has ended.
func (g *generator) seqIO(f *fileRegion, op blkq.Op, hole int64) (int64, int64, bool) {
	d := rwt(op)
	start, fileEnd := f.zoneOff, f.end
	if f.lastPos[d] == start && start != 0 && hole < 0 {
		f.lastPos[d] = min(f.size, fileEnd) // backwards from an offset: begin at the end
	}
	if f.lastPos[d] >= fileEnd {
		return 0, 0, false
	}
	pos := f.lastPos[d] - start
	if pos != 0 && hole != 0 {
		pos += hole
		if pos >= fileEnd || pos < 0 {
			if hole > 0 {
				pos = start // fio's wrap, the quirk of the file comment
			} else {
				pos = min(f.size, fileEnd) + hole
			}
		}
	}
	if pos < 0 || pos >= f.size {
		return 0, 0, false
	}
	abs := start + pos
	n := g.blockSize(op, f.start()+f.size-abs) // fio's io_u_fits: the job's region, whatever the zone
	if n == 0 || abs >= fileEnd || abs+n > fileEnd {
		return 0, 0, false
	}
	f.lastPos[d] = abs + n
	return abs, n, true
}
