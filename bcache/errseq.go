package bcache

// Write-back errors, reported as Linux's errseq reports them to fsync: a
// write-back that fails leaves its page clean (the data stays readable in
// the cache) and records the device's error, unchanged, so the caller sees
// the real errno (ENOSPC stays ENOSPC, never EIO). Each Sync notes, when it
// begins, how many errors had been reported so far, and returns an error
// if any other was recorded by its end: the first one no Sync has returned
// yet, or else the latest. So an error of the background flusher or of a
// throttled writer reaches the next Sync (or Close), and, as with fsyncs
// on separate descriptors, every Sync running when an error happens
// reports it, not only the first to finish.

// errState is the cache's write-back error record, guarded by the cache
// lock.
type errState struct {
	errSeq      uint64 // write-back errors so far
	reportedSeq uint64 // errSeq when a Sync last returned an error
	lastErr     error  // the latest error
	unreported  error  // the first error no Sync has returned, or nil
}

// noteWriteError records a failed write-back. Called with the cache lock
// held.
func (e *errState) noteWriteError(err error) {
	e.errSeq++
	e.lastErr = err
	if e.unreported == nil {
		e.unreported = err
	}
}

// takeWriteError returns the error of a Sync that began when reportedSeq
// was since, or nil, and marks every error so far reported. Called with
// the cache lock held.
func (e *errState) takeWriteError(since uint64) error {
	if e.errSeq == since {
		return nil
	}
	err := e.unreported
	if err == nil {
		err = e.lastErr
	}
	e.unreported = nil
	e.reportedSeq = e.errSeq
	return err
}

// TakeWriteError returns the write-back error no Sync has returned yet (the
// first one), or nil, and marks every error so far reported: what the last
// close of a file that was never synced would report.
func (c *Cache) TakeWriteError() error {
	c.lock()
	defer c.unlock()
	if c.errSeq == c.reportedSeq {
		return nil
	}
	err := c.unreported
	c.unreported = nil
	c.reportedSeq = c.errSeq
	return err
}
