package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// dataCheck gives real-file runs data that can be checked: every sector
// written holds a pattern that depends only on the seed and the sector's
// number, so whichever job wrote it last, and in whatever order, the
// content is known. After the run every sector written is read back
// through the queue and compared.
//
// Writes and discards that overlap while both are in flight have no order
// (Linux gives none; fio's verify needs serialize_overlap for it), and
// with a page cache a write's data may reach the device before or after a
// discard that completes first. So a discard that completes while an
// overlapping write is in flight makes that write's overlap unknown: when
// the write completes those sectors are forgotten, not marked written.
type dataCheck struct {
	bufs     *bufPool // the bios' buffers (bufpool.go)
	seed     uint64
	bitmap   []uint64                // sectors written
	inflight map[*ioUnit][]sectorRun // writes in flight → their sectors a discard made unknown
}

// sectorRun is sectors [lo, hi).
type sectorRun struct{ lo, hi uint64 }

func newDataCheck(seed, sectors uint64) *dataCheck {
	return &dataCheck{bufs: newBufPool(0, 1), seed: seed, bitmap: make([]uint64, (sectors+63)/64), inflight: map[*ioUnit][]sectorRun{}}
}

// fill writes the pattern of the sectors starting at byte offset off.
func (d *dataCheck) fill(buf []byte, off int64) {
	s := uint64(off) >> blkq.SectorShift
	for i := 0; i+blkq.SectorSize <= len(buf); i += blkq.SectorSize {
		d.pattern(buf[i:i+blkq.SectorSize], s)
		s++
	}
}

// pattern is a sector's content: its number, then a xorshift stream
// keyed by seed and number.
func (d *dataCheck) pattern(b []byte, sector uint64) {
	x := d.seed ^ (sector+1)*0x9e3779b97f4a7c15
	binary.LittleEndian.PutUint64(b, sector)
	for i := 8; i < len(b); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
}

func (d *dataCheck) written(sector uint64, n uint32) {
	for s := sector; s < sector+uint64(n); s++ {
		d.bitmap[s/64] |= 1 << (s % 64)
	}
}

// trimmed forgets sectors a discard deallocated: their content is no
// longer defined.
func (d *dataCheck) trimmed(sector uint64, n uint32) {
	for s := sector; s < sector+uint64(n); s++ {
		d.bitmap[s/64] &^= 1 << (s % 64)
	}
}

// verify reads every written sector back, in runs, and compares. Sectors
// whose writes the device refused are not among them.
func (d *dataCheck) verify(q *blkq.Queue) (int64, error) {
	var checked int64
	if !slices.ContainsFunc(d.bitmap, func(w uint64) bool { return w != 0 }) {
		return 0, nil // nothing written: nothing to read back
	}
	buf := device.AlignedBuffer(1 << 20)
	want := make([]byte, blkq.SectorSize)
	nsec := uint64(len(d.bitmap)) * 64
	for s := uint64(0); s < nsec; {
		if d.bitmap[s/64]>>(s%64)&1 == 0 {
			s++
			continue
		}
		run := s
		for run < nsec && run-s < uint64(len(buf)/blkq.SectorSize) && d.bitmap[run/64]>>(run%64)&1 == 1 {
			run++
		}
		n := int(run-s) * blkq.SectorSize
		if _, err := q.ReadAt(buf[:n], int64(s)<<blkq.SectorShift); err != nil {
			return checked, fmt.Errorf("verify: reading back sectors %d+%d: %w", s, run-s, err)
		}
		for i := uint64(0); i < run-s; i++ {
			d.pattern(want, s+i)
			got := buf[i*blkq.SectorSize : (i+1)*blkq.SectorSize]
			if !bytes.Equal(got, want) {
				return checked, fmt.Errorf("verify: sector %d (byte offset %d) does not hold what was written", s+i, (s+i)<<blkq.SectorShift)
			}
			checked++
		}
		s = run
	}
	return checked, nil
}

// refused forgets sectors a write or discard the device failed: what they
// hold is whatever was there before, or part of the new data.
func (d *dataCheck) refused(sector uint64, n uint32) {
	end := min(sector+uint64(n), uint64(len(d.bitmap))*64)
	if sector < end {
		d.trimmed(sector, uint32(end-sector))
	}
}

// refusals is a tracer that passes every write and discard the device
// failed to refused, on the executor. It sees the device's completion
// before the bios' EndIO run, so the refusal is ordered after every write
// that completed before it (a buffered write returns before its
// write-back starts) and before every one that completes later.
func (d *dataCheck) refusals(ex executor) blkq.Tracer {
	return blkq.TracerFunc(func(e *blkq.Event) {
		if e.Action == 'C' && e.Err != nil && (e.Op == blkq.OpWrite || e.Op == blkq.OpDiscard) {
			s, n := e.Sector, e.Sectors
			ex.Do(func() { d.refused(s, n) })
		}
	})
}

// started notes a write in flight.
func (d *dataCheck) started(u *ioUnit) { d.inflight[u] = nil }

// wrote records u's completed write: its sectors hold their pattern,
// except those a discard made unknown while it was in flight.
func (d *dataCheck) wrote(u *ioUnit) {
	d.written(u.bio.Sector, u.bio.Sectors)
	for _, r := range d.inflight[u] {
		d.trimmed(r.lo, uint32(r.hi-r.lo))
	}
	delete(d.inflight, u)
}

// abandoned forgets a write that failed.
func (d *dataCheck) abandoned(u *ioUnit) { delete(d.inflight, u) }

// discarded records u's completed discard, and makes its overlap with
// every write still in flight unknown.
func (d *dataCheck) discarded(u *ioUnit) {
	lo, hi := u.bio.Sector, u.bio.Sector+uint64(u.bio.Sectors)
	d.trimmed(lo, u.bio.Sectors)
	for w, runs := range d.inflight {
		wlo, whi := w.bio.Sector, w.bio.Sector+uint64(w.bio.Sectors)
		if l, h := max(lo, wlo), min(hi, whi); l < h {
			d.inflight[w] = append(runs, sectorRun{l, h})
		}
	}
}
