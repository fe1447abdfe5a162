package device

import (
	"os"

	"golang.org/x/sys/unix"
)

// Setting a file up before the I/O, for fio's invalidate and fallocate
// (the engine calls these as fio's jobs do when they open and lay out
// their files).

// DropCache drops the clean pages of bytes [off, off+n) of the file from
// the kernel's page cache (posix_fadvise POSIX_FADV_DONTNEED; n 0: to the
// end). Dirty pages stay: the kernel starts their write-back and keeps
// them. The file's O_DIRECT requests never go through that cache; its
// other requests do.
func (d *File) DropCache(off, n int64) error {
	if err := unix.Fadvise(d.fd, off, n, unix.FADV_DONTNEED); err != nil {
		return &os.PathError{Op: "fadvise DONTNEED", Path: d.path, Err: err}
	}
	return nil
}

// Allocate allocates the blocks of bytes [off, off+n) of a regular file
// (fallocate(2) mode 0, or FALLOC_FL_KEEP_SIZE with keepSize), as writing
// them would, without writing: the space is the file's, and reads give
// zeros where nothing was written. A block device is left as it is.
func (d *File) Allocate(off, n int64, keepSize bool) error {
	if d.blockDev || n <= 0 {
		return nil
	}
	mode := uint32(0)
	if keepSize {
		mode = unix.FALLOC_FL_KEEP_SIZE
	}
	for {
		err := unix.Fallocate(d.fd, mode, off, n)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "fallocate", Path: d.path, Err: err}
		}
		return nil
	}
}

// Deallocate frees the blocks of bytes [off, off+n) of a regular file,
// keeping its size (FALLOC_FL_PUNCH_HOLE): they read as zeros, as the
// blocks of a deleted file that a new one takes would. A block device, or
// a file system that cannot punch holes, is left as it is.
func (d *File) Deallocate(off, n int64) error {
	if d.blockDev || n <= 0 || d.readOnly {
		return nil
	}
	for {
		err := unix.Fallocate(d.fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
		switch err {
		case unix.EINTR:
			continue
		case nil, unix.EOPNOTSUPP:
			return nil
		}
		return &os.PathError{Op: "fallocate PUNCH_HOLE", Path: d.path, Err: err}
	}
}
