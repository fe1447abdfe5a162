package engine

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/device"
)

// unlink and unlink_each_loop: fio deletes the job's regular files when
// the job ends (and, with unlink_each_loop, before each loop after the
// first, and before each further pass of an io_size beyond the files;
// backend.c and filesetup.c read for behaviour). blkq's files are extents
// of its device, so deleting one forgets what it held: on a file: device
// its blocks are freed (a hole, which reads as zeros, as the new file a
// later loop or job would make), the run's data check stops checking
// them, and the page cache drops its clean pages of it (Linux would also
// drop the dirty ones unwritten; bcache has no call for that, so they are
// written back later). A name under /dev/ is a device, which fio never
// deletes. Deleting issues no I/O, as unlink(2) issues none.
//
// A job that only reads cannot open a file deleted before its next loop:
// fio's open fails with ENOENT, the job's error, and so does blkq's job.

// unlinkFiles deletes j's files.
func (j *job) unlinkFiles() {
	if j.gen == nil {
		return
	}
	r := j.r
	for i, f := range j.gen.files {
		if i < len(j.names) && isDeviceName(j.names[i]) || f.ext != nil && f.ext.whole {
			continue
		}
		if d, ok := r.dev.(*device.File); ok {
			if err := d.Deallocate(f.fileBase, f.fileSize); err != nil {
				r.stateErrs = append(r.stateErrs, fmt.Sprintf("%s: job %q: unlink: %v", jobPlace(r.jf, j.spec), j.name, err))
			}
		}
		if r.data != nil {
			r.data.trimmed(uint64(f.fileBase)>>blkq.SectorShift, uint32(f.fileSize>>blkq.SectorShift))
		}
		if r.cache != nil {
			r.cache.StartInvalidateRange(f.fileBase, f.fileSize, func(bcache.InvalidateResult) {})
		}
	}
}

// unlinkBeforePass deletes j's files before its next pass, if
// unlink_each_loop asks; false (with the job's error) when the job then
// cannot open them.
func (j *job) unlinkBeforePass() bool {
	if !j.spec.Files.UnlinkEachLoop {
		return true
	}
	j.unlinkFiles()
	if !j.spec.RW.Writes() && j.err == nil {
		j.err, j.errFunc = unix.ENOENT, "open("+j.names[0]+")"
		return false
	}
	return true
}
