package engine

import (
	"errors"

	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/report"
)

// Write-back errors of buffered jobs, as Linux reports them.
//
// A buffered write ends once its data is in the page cache; the page
// goes to the device later (the flusher, a throttled writer, an fsync, or
// the cache's close at the end of a run on a file). When that write-back
// fails, Linux marks the file's mapping (errseq) and reports the error to
// the next fsync, and at close; the write(2) that put the data there has
// long returned. blkq does the same: bcache records the error for its
// Sync (the job's fsync fails with it), and tells the run which page was
// lost and which job's write dirtied it last (bcache.Config.OnWriteError).
// That job then
//
//   - does not count the page's bytes in its figures (io_bytes, bandwidth):
//     they never reached the device. A request that failed part-way (a
//     file system that filled during it) loses only the pages from the
//     failure on. The job's I/O count stays what it issued, as fio counts
//     a write whose data it handed over;
//   - reports the error at its close (err= in the report, func=buffered
//     write-back), unless an fsync reported it first and stopped it;
//   - stops, if it is a fill_device job and the error is ENOSPC or EDQUOT:
//     the device is full, which is what it waited for (without an error).
//
// On a file device, the space for each buffered write is taken as it is
// written (reserve.go), so a full file system fails the write itself, as
// in fio; the write-back errors left are the device's own (a failing disk,
// injected faults).

// pageLost accounts a page whose write-back failed, on the executor.
func (r *runner) pageLost(we bcache.WriteError) {
	var ioe *device.IOError
	if errors.As(we.Err, &ioe) && ioe.Offset >= we.Off+bcache.PageSize {
		return // the request failed after this page: the page is on the device
	}
	j := r.cacheJobs[we.Writer]
	if j == nil {
		return // not a job's write
	}
	j.st.lost(report.DirWrite, bcache.PageSize)
	if j.wbErr == nil {
		j.wbErr = we.Err
	}
	if j.filled(we.Err) {
		j.stop() // the device is full: a fill_device job's end
	}
}

// closeWithWriteback reports, as the job closes its files, a write-back
// error of its pages that no fsync has reported: its error, unless it has
// one or it is a fill_device job's full device.
func (j *job) closeWithWriteback() {
	if err := j.wbErr; err != nil && j.err == nil && !j.filled(err) {
		j.err, j.errFunc = err, "buffered write-back"
	}
}
