package blkq

// Test-only views of the queue's state, for this directory's tests (the
// external test package sees them too). Other packages check a queue with
// Check and through what it does.

// PoolStats is a snapshot of the request pool.
type PoolStats = poolStats

// Pool returns a snapshot of the request pool.
func (q *Queue) Pool() PoolStats {
	q.lock()
	defer q.release()
	return q.pool()
}

// CheckInvariants verifies the request-conservation rules (Check without
// the idle requirement).
func (q *Queue) CheckInvariants() error { return q.Check(false) }

// Idle reports whether the queue holds no request at all.
func (q *Queue) Idle() bool {
	q.lock()
	defer q.release()
	return q.idle()
}
