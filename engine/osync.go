package engine

import (
	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
)

// sync=1 (sync=sync, O_SYNC) and sync=dsync (O_DSYNC): fio opens the
// job's files with the flag, so each write is durable when it completes,
// as Linux makes it on a device with a volatile write cache (read for
// behaviour: iomap's direct I/O and generic_write_sync):
//
//   - a direct write goes out with REQ_FUA: the device writes it through
//     its cache before completing it (on a file: device, blkq's FUA
//     write is a pwritev2 with RWF_DSYNC, the O_DSYNC of that one write);
//     the queue's flush sequencing (flush.go) makes it a write and a
//     flush on a device whose cache has no FUA (sim:hdd), and a plain
//     write on one without a write cache (null), as Linux does;
//   - a buffered write lands in the page cache and is then written back
//     with the rest of its file's dirty pages and a cache flush, before
//     the write returns (vfs_fsync_range; blkq syncs the whole file, whose
//     dirty pages are, for a job alone on its file, the ones it just
//     wrote).
//
// O_SYNC also writes the inode's metadata back, O_DSYNC only what is
// needed to read the data again: blkq's files are extents of a device
// without a file system's metadata, so the two issue the same I/O. fio
// leaves the flags off a job whose pattern trims (rw=trim, randtrim,
// trimwrite, randtrimwrite: its open skips them), and so does blkq. The
// sync that follows a buffered write is not an fsync of fio's: it is
// counted in the write's latency, not in the job's fsync figures.

// osync reports whether j's writes are O_SYNC or O_DSYNC.
func (j *job) osync() bool {
	return j.spec != nil && j.spec.Files.Sync != "" && !j.spec.RW.Trims()
}

// osyncFlags are the flags of a direct write of j's.
func (j *job) osyncFlags(op blkq.Op) blkq.Flags {
	if op == blkq.OpWrite && j.osync() {
		return blkq.FlagFUA
	}
	return 0
}

// fileAt is the cache's file holding device byte off, nil if none (a
// whole device).
func (p *cachePath) fileAt(off int64) *bcache.File {
	if p.j.gen == nil {
		return nil
	}
	for _, f := range p.j.gen.files {
		if off >= f.fileBase && off < f.fileBase+f.fileSize {
			return p.j.r.files[f.fileBase]
		}
	}
	return nil
}

// osyncDone wraps a buffered write's completion: once the write is in
// the cache, its file is synced, and done gets the sync's error if the
// write had none.
func (p *cachePath) osyncDone(off int64, done func(int, error)) func(int, error) {
	return func(n int, err error) {
		if err != nil {
			done(n, err)
			return
		}
		p.c.StartSync(p.cl, p.fileAt(off), func(_ bcache.SyncResult, err error) { done(n, err) })
	}
}
