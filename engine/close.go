package engine

import (
	"github.com/blkq-dev/blkq"
)

// What fio does when a pass over a job's files ends and when it closes a
// file (backend.c's do_io end and put_file, read for behaviour):
//
//   - end_fsync and fsync_on_close: at the end of each pass (each loop,
//     and each pass of an io_size beyond the files; a time_based job has
//     one), once the I/O in flight is done, a job that writes fsyncs
//     each of its files in turn, unless the last I/O to complete was an
//     fsync already (fio's should_fsync). These are fio's fsync io_us:
//     in the job's fsync figures and its iolog, one "sync" line per file.
//   - fsync_on_close also fsyncs a file as fio closes it: when its pass
//     ends within a pass of the job (another file goes on; not after an
//     fsync) and when a new pass closes every open file (fio then forgets
//     the last fsync, so every open file is synced). fio calls fsync(2)
//     itself there: the flush reaches the device, but no figure and no
//     iolog line counts it. blkq issues it as an I/O aside from the
//     job's accounting (aside, below), once the job's I/O in flight is
//     done, before the next I/O. A verifying job syncs only at its end,
//     as blkq verifies each loop itself (verify.go).
//
// An I/O aside is a read or a flush the job issues outside its figures:
// these close fsyncs, and pre_read's reads (preread.go). It is not in
// flight for the job's depth, reaps or iolog; its completion calls the
// unit's aside function.

// endSyncWanted reports whether j fsyncs its files at a pass's end now.
func (j *job) endSyncWanted() bool {
	s := j.spec
	return (s.EndFsync || s.Files.FsyncOnClose) && s.RW.Writes() && !j.lastWasSync &&
		j.err == nil && j.st.wrote() && j.gen != nil
}

// queueEndSyncs queues a pass end's fsyncs, one per file; false if none
// is due.
func (j *job) queueEndSyncs() bool {
	if !j.endSyncWanted() {
		return false
	}
	j.endSyncs = append(j.endSyncs[:0], j.gen.files...)
	return len(j.endSyncs) > 0
}

// issueEndSync issues the next queued pass-end fsync.
func (j *job) issueEndSync() {
	f := j.endSyncs[0]
	j.endSyncs = j.endSyncs[1:]
	j.issueSync(true, f)
}

// fileClosed is the file service's onClose: fsync_on_close's fsync of
// file i, queued for the job's loop (at a new pass, whatever the last
// I/O was).
func (j *job) fileClosed(i int, newPass bool) {
	s := j.spec
	if !s.Files.FsyncOnClose || !s.RW.Writes() || !newPass && j.lastWasSync {
		return
	}
	j.closeSyncs = append(j.closeSyncs, j.gen.files[i])
}

// closeSyncPending handles the queued close fsyncs in the job's loop:
// true while one is queued or in flight (the loop returns; the flush's
// completion pumps the job again).
func (j *job) closeSyncPending() bool {
	if len(j.closeSyncs) == 0 {
		return j.asideBusy > 0
	}
	if j.asideBusy > 0 || j.quiesce() {
		return true
	}
	f := j.closeSyncs[0]
	j.closeSyncs = j.closeSyncs[1:]
	u := j.getUnit()
	u.sync, u.syncOne = false, f
	u.bio.Op, u.bio.Flags, u.bio.Sector, u.bio.Sectors, u.bio.Buf = blkq.OpFlush, blkq.FlagSync, 0, 0, nil
	j.issueAside(u, func(err error) {
		if err != nil && j.err == nil {
			j.r.ioFailed(j, u, err) // put_file's error: the job fails with it
			j.state.stop()
		}
	})
	return true
}

// issueAside submits u, a read or a flush outside the job's figures;
// done gets its outcome, on the executor.
func (j *job) issueAside(u *ioUnit, done func(error)) {
	u.aside, u.sub, u.rec, u.vp = done, &j.main, nil, nil
	u.start = j.now()
	j.asideBusy++
	j.submitted++
	if u.bio.Op == blkq.OpFlush {
		j.path.sync(u)
	} else {
		j.path.submit(u)
	}
}

// asideEnded completes an I/O aside.
func (j *job) asideEnded(u *ioUnit, err error) {
	done := u.aside
	u.aside, u.syncOne, u.err = nil, nil, nil
	j.asideBusy--
	j.ended++
	j.free = append(j.free, u)
	done(err)
	j.pump()
}
