package blkq

import "fmt"

// TaskStats returns t's request-allocation counters.
func (q *Queue) TaskStats(t *Task) TaskStats {
	q.lock()
	defer q.release()
	return t.stats
}

// PoolStats is a snapshot of the request pool.
type PoolStats struct {
	NrRequests int    // per direction
	Batch      int    // batch_requests
	Free       [2]int // by Dir
	InUse      [2]int // by Dir
	Sleepers   int    // tasks asleep in allocation
	Queued     int    // requests in the elevator
	InFlight   int    // requests issued to the device
}

// Pool returns a snapshot of the request pool.
func (q *Queue) Pool() PoolStats {
	q.lock()
	defer q.release()
	return PoolStats{NrRequests: q.alloc.nr, Batch: q.alloc.batch, Free: q.alloc.free, InUse: q.alloc.inUse,
		Sleepers: q.alloc.sleepers(), Queued: q.elv.Len(), InFlight: q.inflight}
}

// CheckInvariants verifies the request-conservation rules: per direction,
// free + in use = nr_requests; nothing in use when the queue is idle and no
// task holds plugged requests; the elevator and device never hold more than
// is in use. Tests call it after every scenario.
func (q *Queue) CheckInvariants() error {
	q.lock()
	defer q.release()
	a := &q.alloc
	for d := range 2 {
		if a.free[d]+a.inUse[d] != a.nr {
			return fmt.Errorf("blkq: %v requests: free %d + in use %d != nr_requests %d", Dir(d), a.free[d], a.inUse[d], a.nr)
		}
		if a.inUse[d] < 0 {
			return fmt.Errorf("blkq: %v requests: in use %d < 0", Dir(d), a.inUse[d])
		}
	}
	if q.inflight < 0 || q.inflight > q.dev.Depth() {
		return fmt.Errorf("blkq: %d requests in flight, device depth %d", q.inflight, q.dev.Depth())
	}
	if held := q.elv.Len() + q.inflight; held > a.inUse[0]+a.inUse[1] {
		return fmt.Errorf("blkq: elevator %d + in flight %d > in use %d", q.elv.Len(), q.inflight, a.inUse[0]+a.inUse[1])
	}
	for key, rq := range q.hash {
		for ; rq != nil; rq = rq.hashNext {
			if rq.End() != key || !rq.onHash || rq.state != rqQueued {
				return fmt.Errorf("blkq: hash entry %d: request %d+%d state %d onHash %v", key, rq.Sector, rq.Sectors, rq.state, rq.onHash)
			}
		}
	}
	return nil
}

// Idle reports whether the queue holds no request at all: none plugged,
// queued, in flight, or waited for.
func (q *Queue) Idle() bool {
	q.lock()
	defer q.release()
	return q.alloc.inUse[0]+q.alloc.inUse[1] == 0 && q.alloc.sleepers() == 0
}
