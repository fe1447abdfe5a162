package engine

import (
	"github.com/blkq-dev/blkq"
	"golang.org/x/sys/unix"
)

// pre_read and create_only, as fio 3.33 runs them (filesetup.c's
// pre_read_file and setup_files, read for behaviour):
//
//   - pre_read: before its I/O starts, and before its clock does, the job
//     reads each of its files' regions once, from the start, in pieces
//     of its largest read block size, one read at a time, through its
//     own path (buffered: the page cache keeps what it read, which is the
//     point; direct: the reads only cost their time). fio turns
//     invalidate off for such a job, so the cache is not emptied first.
//     The reads count in no figure and no log. A read that fails is the
//     job's error (EIO, "pre_read"), and the job then does nothing more.
//   - create_only: the job lays its files out and stops: no I/O, no
//     runtime (blkq lays files out without writing them, filesetup.go).

// preRead reads j's files through its path, then calls then.
func (j *job) preRead(then func()) {
	files := j.gen.files
	bs := max(j.spec.BS[0].Max, minBlockSize(j.spec, 0))
	for _, s := range j.spec.BSSplit[0] {
		bs = max(bs, s.BS)
	}
	var step func(i int, off int64)
	step = func(i int, off int64) {
		for i < len(files) && off >= files[i].size {
			i, off = i+1, 0
		}
		if i == len(files) || j.err != nil {
			then()
			return
		}
		f := files[i]
		n := min(bs, f.size-off) &^ (blkq.SectorSize - 1)
		if n == 0 {
			step(i+1, 0)
			return
		}
		u := j.getUnit()
		u.sync = false
		b := &u.bio
		b.Op, b.Flags, b.Prio, b.Buf = blkq.OpRead, 0, j.prio.def, nil
		b.Sector, b.Sectors = uint64(f.base+off)>>blkq.SectorShift, uint32(n>>blkq.SectorShift)
		if d := j.r.data; d != nil && j.path.bioBuffers() {
			b.Buf = d.bufs.get(int(n))
		}
		j.issueAside(u, func(err error) {
			if err != nil && j.err == nil {
				j.err, j.errFunc = unix.EIO, "pre_read"
			}
			step(i, off+n)
		})
	}
	step(0, 0)
}
