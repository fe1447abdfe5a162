package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Setting a job's files up, as fio 3.33 does (filesetup.c, backend.c read
// for behaviour): fallocate when the run lays the files out, invalidate
// when a job opens them, and fill_device's end at ENOSPC.
//
//   - fallocate: fio allocates a file it lays out, one too small for its
//     jobs or missing, before any job starts. blkq's files are extents of
//     one device: on a regular file, each extent the run creates or
//     extends (past the file's size before the run) is allocated as the
//     first job naming it asks: native and posix with fallocate(2) mode
//     0, keep with FALLOC_FL_KEEP_SIZE, none and truncate not at all (the
//     device file is extended sparsely either way). fio skips it for a
//     job with create_on_open (its files are not laid out) or
//     fill_device. A failure is a warning (fio: native's is silent).
//   - invalidate (fio default 1): when a job starts, its files' regions
//     leave the page caches: blkq's own (bcache, for a buffered job) and,
//     on a file device, the kernel's (POSIX_FADV_DONTNEED). Clean pages
//     go; dirty and locked ones (a read in flight) stay, as the kernel
//     keeps them, without waiting for them. fio opens its files
//     again at each loop and before its verify pass, and invalidates them
//     again there: blkq does so only when the job starts.
//   - sizes: fio takes an existing file's size (a regular file's, or a
//     block device's end) when a job gives no size, and its size= and
//     offset= percentages of it. On a file: device, whose files are
//     real, blkq does the same (existingSize): a job's file that exists
//     on the host is an extent of that size, or larger if the job's
//     size= asks more, as fio extends the file. On simulated and null
//     devices the host's files are not blkq's disk and are not looked at
//     (a run there depends on nothing but its inputs): such a job needs
//     size= or filesize=. fio's null engine does not look either.
//   - fill_device: ENOSPC (or EDQUOT) ends the job without an error (its
//     io_u error line is still printed, as fio prints it). A fill job's
//     file without a size runs to the device's end (layout.go): on a
//     simulated device its capacity, on a file as far as the file system
//     has room for, on a block device its end.

// existingSize is the size fio would find for file name of a job on
// spec's engine: on a file: device, a regular file's size or a block
// device's, 0 when it is missing (or on other devices, or the null
// engine, or a /dev/ name, which is the whole of blkq's device).
func (r *runner) existingSize(spec *fio.Job, name string) int64 {
	if !strings.HasPrefix(r.opt.Device, "file:") || spec.IOEngine == "null" || isDeviceName(name) {
		return 0
	}
	fi, err := os.Stat(name)
	if err != nil {
		return 0
	}
	switch m := fi.Mode(); {
	case m.IsRegular():
		return fi.Size()
	case m&os.ModeDevice != 0 && m&os.ModeCharDevice == 0:
		f, err := os.Open(name)
		if err != nil {
			return 0
		}
		defer f.Close()
		n, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return 0
		}
		return n
	}
	return 0
}

// noSizeHint says, after a job's "has no size" error, why an existing
// file's size was not taken.
func (r *runner) noSizeHint(spec *fio.Job) string {
	switch {
	case spec.IOEngine == "null":
		return " (fio's null engine needs a size too)"
	case !strings.HasPrefix(r.opt.Device, "file:"):
		return " (on a simulated or null device blkq does not take an existing file's size, as fio would: only on a file: device)"
	}
	return ""
}

// filled reports whether err ends j as a full device ends a fill_device
// job: without an error.
func (j *job) filled(err error) bool {
	return j.spec.Files.FillDevice && (errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT))
}

// fillCapacity is the size of a file device whose file grows until the
// file system is full: what it holds now (at least need) and the room left
// (statfs's blocks available), in whole 4 KiB pages; a block device's own
// size.
func fillCapacity(path string, need int64) (int64, error) {
	cur := int64(0)
	if fi, err := os.Stat(path); err == nil {
		if fi.Mode()&os.ModeDevice != 0 {
			return 0, nil // OpenFile takes the block device's size
		}
		cur = fi.Size()
	}
	var st unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(path), &st); err != nil {
		return 0, &os.PathError{Op: "statfs", Path: filepath.Dir(path), Err: err}
	}
	free := int64(st.Bavail) * st.Bsize
	return min(max(need, cur)+free, maxDevice) &^ 4095, nil
}

// fileSizeBefore is the size of the device's file before the run opens
// it (0 if it is missing or not a file device).
func (r *runner) fileSizeBefore() int64 {
	kind, path, _ := strings.Cut(r.opt.Device, ":")
	if kind != "file" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// allocate allocates the extents the run laid out on a regular file
// (those past before, the file's size before the run) as their first
// job's fallocate asks, and returns a warning for each failure.
func (r *runner) allocate(before int64) []string {
	f, ok := r.dev.(*device.File)
	if !ok {
		return nil
	}
	var warnings []string
	done := map[*extent]bool{}
	n := 0
	for _, j := range r.jobs {
		if j.gen == nil {
			continue
		}
		for _, fr := range j.gen.files {
			if n++; n%setupCheckEvery == 0 && r.setupStopped() {
				return warnings // the jobs will not run (execute cancels them)
			}
			e := fr.ext
			if e == nil || e.whole || done[e] || e.base+e.size <= before {
				continue
			}
			done[e] = true
			mode := j.spec.Files.Fallocate
			if j.spec.Files.CreateOnOpen || j.spec.Files.FillDevice || mode == "none" || mode == "truncate" {
				continue
			}
			err := f.Allocate(e.base, e.size, mode == "keep")
			if err != nil && mode != "native" {
				warnings = append(warnings, fmt.Sprintf("%s: job %q: fallocate=%s of file %q (%d bytes at %d) failed: %v", jobPlace(r.jf, j.spec), j.name, mode, e.name, e.size, e.base, err))
			}
		}
	}
	return warnings
}

// openFiles does what fio does as j opens its files (invalidate), then
// calls then: at once, or on the executor once the page cache is done.
func (j *job) openFiles(then func()) {
	if !j.spec.Files.Invalidate || j.spec.Files.PreRead || j.gen == nil { // fio: pre_read turns invalidate off
		then()
		return
	}
	if f, ok := j.r.dev.(*device.File); ok {
		for _, fr := range j.gen.files {
			f.DropCache(fr.base, fr.size) // advice: fio only reports a failure in passing
		}
	}
	p, ok := j.path.(*cachePath)
	if !ok {
		then()
		return
	}
	files := j.gen.files
	// One file after another, in a loop rather than from each
	// invalidation's callback: a callback made before
	// StartInvalidateRange returns would otherwise nest one stack frame
	// per file (a job may have hundreds of thousands). A callback made
	// later, on whatever goroutine ends the wait, resumes the loop.
	i := 0
	var run func()
	run = func() {
		for i < len(files) {
			if i%setupCheckEvery == 0 && j.r.stopReq.Load() {
				break // interrupted: begin cancels the job
			}
			f := files[i]
			i++
			var state atomic.Int32 // 1: the callback came first; 2: the return did
			p.c.StartInvalidateRange(f.base, f.size, func(bcache.InvalidateResult) {
				if !state.CompareAndSwap(0, 1) {
					run() // after the return: resume here
				}
			})
			if state.CompareAndSwap(0, 2) {
				return // the callback resumes
			}
		}
		j.exec.Do(then)
	}
	run()
}
