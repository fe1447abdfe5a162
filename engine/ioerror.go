package engine

// How a failed I/O reaches the user, as fio 3.33 reports it: one line on
// stderr per failed I/O ("fio: io_u error on file F: <strerror>: write
// offset=N, buflen=M"), and the job's first error in its report as the
// errno ("err=28 (func=io_u error, error=No space left on device)" in the
// normal output, "error": 28 in JSON). The errno is the one the system
// call returned, carried inside the device's error; only an error with no
// errno behind it (a request beyond the device, a short transfer) is
// reported as EIO, as the kernel would fail such a bio.
//
// fio names its own file and the file's offset; blkq's jobs share one
// device, so the line names the device's path and the byte offset on it.

import (
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// maxIOErrorLines bounds the io_u error lines a run keeps: each job stops
// at its first error, but the I/O it has in flight may fail too.
const maxIOErrorLines = 1000

// errnoOf returns the errno behind err, or EIO if there is none.
func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) && e != 0 {
		return e
	}
	return unix.EIO
}

// strerror is the C library's text for e ("No space left on device").
func strerror(e unix.Errno) string { return report.Strerror(int(e)) }

// errorText is the parenthesised detail of a job's err= field: fio's
// verror without the source location ("func=io_u error, error=...").
func errorText(fn string, err error) string {
	var e unix.Errno
	if errors.As(err, &e) && e != 0 {
		return fmt.Sprintf("func=%s, error=%s", fn, strerror(e))
	}
	return fmt.Sprintf("func=%s, error=%v", fn, err)
}

// ioFailed records u's failure with err: the job's first error (unless it
// is a fill_device job's full device, filesetup.go), and fio's io_u error
// line.
func (r *runner) ioFailed(j *job, u *ioUnit, err error) {
	if j.err == nil && !j.filled(err) {
		j.err, j.errFunc = err, "io_u error"
	}
	r.ioErrorLine(u, err)
}

// ioErrorLine adds fio's "fio: io_u error on file ..." line for u's err.
func (r *runner) ioErrorLine(u *ioUnit, err error) {
	j := u.j
	r.ioMu.Lock()
	defer r.ioMu.Unlock()
	if len(r.ioErrors) >= maxIOErrorLines {
		r.ioErrorsLost++
		return
	}
	dir := "write"
	off, n := int64(u.bio.Sector)<<9, u.bio.Bytes()
	switch {
	case u.sync:
		dir, off, n = "sync", 0, 0
		if j.spec.Fdatasync > 0 && j.spec.Fsync == 0 {
			dir = "datasync"
		}
	case u.bio.Op == blkq.OpRead:
		dir = "read"
	case u.bio.Op == blkq.OpDiscard:
		dir = "trim"
	}
	var e unix.Errno
	cause := err.Error()
	if errors.As(err, &e) && e != 0 {
		cause = strerror(e)
	}
	r.ioErrors = append(r.ioErrors, fmt.Sprintf("fio: io_u error on file %s: %s: %s offset=%d, buflen=%d", r.dev.Name(), cause, dir, off, n))
}

// nonFatal are fio's non-fatal errors: those continue_on_error goes on
// after when ignore_error lists none for the error's type.
var nonFatal = []int{int(unix.EIO), int(unix.EILSEQ)}

// errorType is fio's type of an error (td_error_type): a verify failure
// whatever the direction, a read's, or a write's (also a trim's or a
// sync's).
func errorType(op blkq.Op, e unix.Errno) int {
	switch {
	case e == unix.EILSEQ:
		return fio.ErrTypeVerify
	case op == blkq.OpRead:
		return fio.ErrTypeRead
	}
	return fio.ErrTypeWrite
}

// goesOn decides, as fio's continue_on_error and ignore_error do, whether
// j goes on after an error err of an I/O op, and counts the error
// (total_err, first_error) when continue_on_error covers its type: j goes
// on if the errno is in its type's list. An error it goes on after is
// reported as fio reports it: its io_u error line only with error_dump,
// and, if it is the job's first, as the job's err= (with fio's text: the
// sync engines' "func=xfer", none for the others) though the job did not
// fail.
func (j *job) goesOn(u *ioUnit, err error) bool {
	o := &j.spec.Errors
	e := errnoOf(err)
	t := errorType(u.bio.Op, e)
	if o.ContinueOn&(1<<t) == 0 {
		return false
	}
	list := o.Ignore[t]
	if list == nil {
		list = nonFatal
	}
	on := slices.Contains(list, int(e))
	if !on && j.err != nil {
		return false // the job has stopped on an error: counted once
	}
	j.errCount++
	if j.errCount == 1 {
		j.errFirst = e
		if on && j.sync && t != fio.ErrTypeVerify {
			j.errFirstText = errorText("xfer", err)
		}
	}
	if on && o.Dump && t != fio.ErrTypeVerify {
		j.r.ioErrorLine(u, err)
	}
	return on
}

// writebackFailed hands an error of the buffer cache's final write-back
// (which no fsync of a job reported) to the buffered jobs that wrote: to
// those whose files hold the failed offset, or to all of them if none
// does. Each keeps its first error.
func (r *runner) writebackFailed(err error) {
	r.wbErr = err
	var writers, holders []*job
	off := int64(-1)
	var ioe *device.IOError
	if errors.As(err, &ioe) {
		off = ioe.Offset
	}
	for _, j := range r.jobs {
		if !buffered(j.spec) || !j.st.wrote() {
			continue
		}
		writers = append(writers, j)
		for _, f := range j.gen.files {
			if off >= f.fileBase && off < f.fileBase+f.fileSize {
				holders = append(holders, j)
				break
			}
		}
	}
	if len(holders) == 0 {
		holders = writers
	}
	r.wbErrTaken = len(holders) > 0
	for _, j := range holders {
		if j.err == nil && !j.filled(err) {
			j.err, j.errFunc = err, "buffered write-back"
		}
	}
}
