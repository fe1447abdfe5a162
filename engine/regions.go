package engine

import (
	"fmt"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/satmath"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Regions: which bytes of which file a job clone works on, from fio's
// size, filesize, offset, offset_increment, io_size and their percentage
// forms, after --size-cap. Arithmetic saturates instead of overflowing, so
// absurd values end in a clear error rather than a wrapped offset.

// maxDevice is the largest device a run may ask for: 1 PiB.
const maxDevice = 1 << 50

// pct is p percent of n, in whole bytes (fio's integer percentages
// multiply first; a fractional one is rounded down).
func pct(n int64, p float64) int64 {
	if p == float64(int64(p)) {
		return satmath.Mul(n, int64(p)) / 100
	}
	return int64(float64(n) * p / 100)
}

// jobMinBS is the smallest block size of any direction (fio's td_min_bs).
func jobMinBS(spec *fio.Job) int64 {
	m := minBlockSize(spec, 0)
	for d := 1; d < 3; d++ {
		m = min(m, minBlockSize(spec, d))
	}
	return m
}

// resolve returns a clone's region in one of its files: the offset and the
// size (0: to the end of the file). fileSize is the file's size if known
// (filesize=, or the extent once laid out), else 0; percentage forms need it.
// As fio computes them: an offset given (or incremented) as a percentage
// is rounded up to offset_align, else to the smallest block size; a size
// given as a percentage is of the whole file, at most what lies past the
// offset, rounded down to the smallest block size.
func (r *runner) resolve(spec *fio.Job, clone, nfiles int, fileSize int64) (off, size int64) {
	off = spec.Offset
	align := spec.OffsetPercent > 0 || spec.OffsetIncrementPercent > 0
	if spec.OffsetPercent > 0 {
		off = pct(fileSize, spec.OffsetPercent)
	}
	inc := spec.OffsetIncrement
	if spec.OffsetIncrementPercent > 0 {
		inc = pct(fileSize, spec.OffsetIncrementPercent)
	}
	off = satmath.Add(off, satmath.Mul(int64(clone), inc))
	if align {
		a := spec.OffsetAlign
		if a <= 0 {
			a = jobMinBS(spec)
		}
		if rem := off % a; rem != 0 {
			off = satmath.Add(off, a-rem)
		}
	}
	off &^= blkq.SectorSize - 1
	switch {
	case spec.SizePercent > 0:
		size = pct(fileSize, spec.SizePercent)
		size = min(size, max(fileSize-off, 0))
		size -= size % jobMinBS(spec)
	case spec.Size > 0:
		size = spec.Size / int64(max(nfiles, 1))
	case r.opt.SizeCap > 0:
		size = r.opt.SizeCap
	}
	size = r.capSize(size)
	if fileSize > 0 && (size == 0 || satmath.Add(off, size) > fileSize) {
		size = max(fileSize-off, 0)
	}
	return off, size &^ (blkq.SectorSize - 1)
}

// checkBlockSizes rejects block sizes, and a sequential rw=...:N hole,
// that are not whole sectors: blkq's bios are made of 512-byte sectors.
func checkBlockSizes(path string, spec *fio.Job) error {
	bad := func(what string, n int64) error {
		return fmt.Errorf("%s:%d: job %q: %s=%d is not a multiple of 512 bytes (blkq's bios are whole 512-byte sectors)", path, spec.Line, spec.Name, what, n)
	}
	for d := range 3 {
		if r := spec.BS[d]; spec.BSUnaligned && r.Min < r.Max && len(spec.BSSplit[d]) == 0 {
			// fio draws any byte count in the range and does not round it.
			return fmt.Errorf("%s:%d: job %q: bs_unaligned with bsrange=%d-%d issues sizes that are not whole 512-byte sectors, which blkq's bios cannot carry (bssplit's sizes can be left unaligned)", path, spec.Line, spec.Name, r.Min, r.Max)
		}
		if r := spec.BS[d]; r.Min%blkq.SectorSize != 0 {
			return bad("bs", r.Min)
		} else if r.Max%blkq.SectorSize != 0 {
			return bad("bs", r.Max)
		}
		for _, s := range spec.BSSplit[d] {
			if s.BS%blkq.SectorSize != 0 {
				return bad("bssplit", s.BS)
			}
		}
	}
	if !spec.RW.Random() && spec.RWModifier%blkq.SectorSize != 0 {
		return fmt.Errorf("%s:%d: job %q: rw=%s:%d: a hole of %d bytes is not a multiple of 512 bytes (blkq's bios are whole 512-byte sectors)", path, spec.Line, spec.Name, spec.RW, spec.RWModifier, spec.RWModifier)
	}
	return nil
}
