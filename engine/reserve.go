package engine

import (
	"errors"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/device"
)

// Space for a buffered write on a file device, taken as the write enters
// the page cache.
//
// Linux's file systems fail a buffered write(2) with ENOSPC at once when
// they are full: ext4's delayed allocation reserves the blocks as the page
// is dirtied, tmpfs allocates them, and fio's write fails there (its
// fill_device job ends at that write; another job fails with err=28 and
// counts what the writes before it wrote). blkq's page cache (bcache) sits
// over the device and writes back later, so on a full file system its
// writes would fail only at write-back, long after the job had counted
// them. On a file device a buffered write therefore first allocates its
// pages of the device's file (fallocate, keeping the size) the first time
// it writes them: ENOSPC or EDQUOT there fails the write as the system
// call would, before any of it is in the cache. Pages already allocated
// cost one quick call, once. A file system with room for the whole device
// file (its blocks plus the free space, when the run starts) needs none of
// this, and gets none: a fallocate per page first written costs a fresh
// file's buffered writes a fifth of their speed. Where fallocate is not
// supported (some file systems; a block device needs none) nothing is
// reserved either, and a full file system is met at write-back
// (writeback.go).
//
// What it gives up: the device file's pages are allocated where the jobs
// write, as the kernel's write allocates them, a moment earlier.

// reserver takes the space of buffered writes on a file device.
type reserver struct {
	f   *device.File
	off bool     // fallocate refused as unsupported: nothing is reserved
	got *randMap // pages allocated so far (a bitmap over the device's pages)
}

// newReserver returns the reserver of file device f, or nil when its file
// system has room for all of it (its blocks now plus the space free):
// then no write can find it full, unless something else fills it, which
// write-back meets. A block device needs none.
func newReserver(f *device.File) *reserver {
	size := int64(f.Capacity()) * blkq.SectorSize
	var st unix.Stat_t
	var fs unix.Statfs_t
	if unix.Stat(f.Name(), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil
	}
	if unix.Statfs(filepath.Dir(f.Name()), &fs) == nil && st.Blocks*512+int64(fs.Bavail)*fs.Bsize >= size {
		return nil
	}
	return &reserver{f: f, got: newRandMap(uint64(max(size/bcache.PageSize, 1)))}
}

// reserve allocates the pages of [off, off+n) not allocated yet; the error
// is the write's, an ENOSPC or EDQUOT of the file system. Called by the
// cache path on the executor.
func (r *reserver) reserve(off, n int64) error {
	if r == nil || r.off || n <= 0 {
		return nil
	}
	lo, hi := uint64(off/bcache.PageSize), uint64((off+n-1)/bcache.PageSize)
	hi = min(hi, r.got.n-1)
	first := lo
	for first <= hi && r.got.isSet(first) {
		first++
	}
	if first > hi {
		return nil
	}
	from := int64(first) * bcache.PageSize
	err := r.f.Allocate(from, int64(hi+1)*bcache.PageSize-from, true)
	switch {
	case errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT):
		var e unix.Errno
		errors.As(err, &e)
		return &device.IOError{Path: r.f.Name(), Op: blkq.OpWrite, Offset: off, Err: e}
	case err != nil:
		r.off = true // EOPNOTSUPP and the like: the file system decides at write-back
		return nil
	}
	for p := first; p <= hi; {
		p += max(r.got.setRun(p, hi-p+1), 1)
	}
	return nil
}
