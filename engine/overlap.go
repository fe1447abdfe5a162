package engine

import "github.com/blkq-dev/blkq"

// serialize_overlap as fio 3.33 does it (backend.c io_u_submit,
// in_flight_overlap): a job with more than one I/O in flight does not
// issue one that overlaps an I/O in flight, from its queueing until it is
// reaped; it submits what is queued, reaps at least one completion, and
// tries the same I/O again. fio turns the option off (init.c) for a job
// that neither writes nor trims, and for iodepth=1, unless it replays an
// iolog or submits by offload. The check is a walk over the job's units in
// flight, at most its depth, as fio's is.

// overlapState is a job's serialize_overlap bookkeeping; nil without.
type overlapState struct {
	flight []*ioUnit // queued until reaped; a unit's slot is u.flight
	held   nextIO    // the I/O that overlapped, tried again first
	hold   bool
}

// setupOverlap enables serialize_overlap where fio keeps it on. Called
// by plan.
func (j *job) setupOverlap() {
	q := j.spec.Queue
	writes := j.spec.RW.Writes() || j.spec.RW.Trims()
	if !q.SerializeOverlap || !writes && j.spec.Logs.ReadIolog == "" && q.SubmitMode != "offload" {
		return
	}
	if j.spec.IODepth == 1 && q.SubmitMode != "offload" {
		return
	}
	j.ovl = &overlapState{}
}

// overlapHeld returns the I/O held back by an overlap, if any.
func (j *job) overlapHeld() (nextIO, bool) {
	o := j.ovl
	if o == nil || !o.hold {
		return nextIO{}, false
	}
	o.hold = false
	return o.held, true
}

// overlapBlocks reports whether io overlaps a unit in flight while
// another is in flight (fio counts io itself in its depth), and holds it
// back if so.
func (j *job) overlapBlocks(io nextIO) bool {
	o := j.ovl
	if o == nil || j.inflight+1 <= 1 {
		return false
	}
	lo, hi := io.offset, io.offset+io.length
	if r := io.rec; r != nil {
		lo = int64(r.Sector) << blkq.SectorShift
		hi = lo + int64(r.Sectors)<<blkq.SectorShift
	}
	if lo == hi {
		return false // a flush covers no bytes
	}
	for _, u := range o.flight {
		ulo := int64(u.bio.Sector) << blkq.SectorShift
		if lo < ulo+int64(u.bio.Bytes()) && ulo < hi {
			o.held, o.hold = io, true
			return true
		}
	}
	return false
}

// overlapQueued puts u in flight.
func (j *job) overlapQueued(u *ioUnit) {
	if o := j.ovl; o != nil && !u.sync {
		u.flight = len(o.flight)
		o.flight = append(o.flight, u)
	}
}

// overlapReaped takes u out of flight.
func (j *job) overlapReaped(u *ioUnit) {
	o := j.ovl
	if o == nil || u.sync {
		return
	}
	last := len(o.flight) - 1
	o.flight[u.flight] = o.flight[last]
	o.flight[u.flight].flight = u.flight
	o.flight[last] = nil
	o.flight = o.flight[:last]
}
