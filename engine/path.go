package engine

import (
	"errors"
	"io"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
)

// A job's I/O path takes its I/Os from the job to the device, and is
// chosen once, when the job is made (pathFor): straight to the queue
// (direct I/O, and every I/O of a run without a page cache), through the
// simulated page cache of a simulated device (writeback.go, readahead.go),
// or through the buffer cache of a real file (bcache). The job issues,
// counts and completes I/Os the same way on each.
type ioPath interface {
	// submit starts u. false: u's task sleeps for a request, and u is
	// parked on it until it wakes (job.enqueue).
	submit(u *ioUnit) bool
	// sync starts u, an fsync of the job's files. false as for submit.
	sync(u *ioUnit) bool
	// bioBuffers reports whether u's bio carries the data buffer on a
	// file run (false: the path copies through a buffer of its own).
	bioBuffers() bool
}

// pathFor chooses j's path.
func (r *runner) pathFor(j *job) ioPath {
	switch {
	case j.spec.Direct:
	case r.cache != nil:
		return &fileCachePath{j: j, c: r.cache}
	case r.sc != nil:
		return &simCachePath{j: j, c: r.sc}
	}
	return directPath{j}
}

// directPath submits to the queue.
type directPath struct{ j *job }

func (p directPath) submit(u *ioUnit) bool { return p.j.enqueue(u) }
func (p directPath) bioBuffers() bool      { return true }

// sync sends u's flush.
func (p directPath) sync(u *ioUnit) bool { return p.j.enqueue(u) }

// simCachePath goes through the simulated page cache: writes dirty pages,
// reads are served from read-ahead or from pages still in the cache, and
// the rest reach the queue.
type simCachePath struct {
	j *job
	c *simCache
}

func (p *simCachePath) bioBuffers() bool { return true }

func (p *simCachePath) submit(u *ioUnit) bool {
	j := p.j
	switch {
	case u.bio.Op == blkq.OpWrite:
		p.c.write(j, u)
		return true
	case u.bio.Op == blkq.OpRead && j.ra != nil && j.ra.read(u):
		return true
	case u.bio.Op == blkq.OpRead && p.c.read(j, u):
		return true
	}
	if !j.enqueue(u) {
		return false
	}
	if j.ra != nil {
		j.ra.topUp(int64(u.bio.Sector)<<blkq.SectorShift + u.bio.Bytes())
	}
	return true
}

// sync writes back the job's files' dirty pages, without a bio.
func (p *simCachePath) sync(u *ioUnit) bool {
	u.queued = p.j.now()
	p.c.sync(p.j, func(err error) { p.j.done(u, err) })
	return true
}

// fileCachePath goes through the buffer cache of a real file, which
// blocks: each I/O runs on a goroutine of its own and its completion comes
// back on the executor.
type fileCachePath struct {
	j *job
	c *bcache.Cache
}

func (p *fileCachePath) bioBuffers() bool { return false }

func (p *fileCachePath) submit(u *ioUnit) bool {
	j, c := p.j, p.c
	u.queued = j.now()
	off := int64(u.bio.Sector) << blkq.SectorShift
	if u.bio.Op == blkq.OpDiscard {
		// The cache drops the range and discards it on the device itself,
		// keeping fills of the range out until the device is done (as
		// BLKDISCARD does), so no old data comes back.
		go func() {
			err := c.Discard(off, u.bio.Bytes())
			j.r.exec.Do(func() { j.done(u, err) })
		}()
		return true
	}
	write := u.bio.Op == blkq.OpWrite
	d, n := j.r.data, int(u.bio.Bytes())
	go func() {
		var err error
		buf := d.bufs.getSlot(n) // bounded: bufpool.go
		if write {
			d.fill(buf, off)
			_, err = c.WriteAt(buf, off)
		} else if _, err = c.ReadAt(buf, off); errors.Is(err, io.EOF) {
			err = nil
		}
		d.bufs.putSlot(buf)
		j.r.exec.Do(func() { j.done(u, err) })
	}()
	return true
}

// sync is a Sync of the cache.
func (p *fileCachePath) sync(u *ioUnit) bool {
	j := p.j
	u.queued = j.now()
	go func() {
		err := p.c.Sync()
		j.r.exec.Do(func() { j.done(u, err) })
	}()
	return true
}
