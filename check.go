package blkq

import "fmt"

// poolStats is a snapshot of the request pool, for Check's errors and
// the tests.
type poolStats struct {
	NrRequests int    // per direction
	Batch      int    // batch_requests
	Free       [2]int // by direction (read, write)
	InUse      [2]int // by direction
	Sleepers   int    // tasks asleep in allocation
	Queued     int    // requests in the elevator
	InFlight   int    // requests issued to the device
}

func (q *Queue) pool() poolStats {
	return poolStats{NrRequests: q.alloc.nr, Batch: q.alloc.batch, Free: q.alloc.free, InUse: q.alloc.inUse,
		Sleepers: q.alloc.sleepers(), Queued: q.elv.Len(), InFlight: q.inflight}
}

// idle reports whether the queue holds no request at all: none plugged,
// queued, in flight, or waited for.
func (q *Queue) idle() bool {
	return q.alloc.inUse[0]+q.alloc.inUse[1] == 0 && q.alloc.sleepers() == 0 && q.flushIdle()
}

// Check verifies the queue's request-conservation rules: per direction,
// free + in use = nr_requests; the elevator and the device never hold
// more than is in use; the back-merge hash holds only queued requests.
// With wantIdle it also requires that the queue holds no request at all
// (none plugged, queued, in flight or waited for), as after a run whose
// bios have all ended. The error describes the pool. Runners call it
// after a run; it takes the queue lock.
func (q *Queue) Check(wantIdle bool) error {
	q.lock()
	defer q.release()
	if err := q.checkInvariants(); err != nil {
		return err
	}
	if wantIdle && !q.idle() {
		return fmt.Errorf("blkq: queue not idle: %+v", q.pool())
	}
	return nil
}

func (q *Queue) checkInvariants() error {
	a := &q.alloc
	if err := a.check(); err != nil {
		return err
	}
	if q.inflight < 0 || q.inflight > q.dev.Depth() {
		return fmt.Errorf("blkq: %d requests in flight, device depth %d", q.inflight, q.dev.Depth())
	}
	if held := q.elv.Len() + q.inflight; held > a.inUse[0]+a.inUse[1] {
		return fmt.Errorf("blkq: elevator %d + in flight %d > in use %d", q.elv.Len(), q.inflight, a.inUse[0]+a.inUse[1])
	}
	var err error
	n := 0
	q.hash.each(func(rq *Request, in, want uint64) bool {
		n++
		if in != want || !rq.onHash || rq.state != rqQueued {
			err = fmt.Errorf("blkq: hash bucket %d: request %d+%d (bucket %d) state %d onHash %v", in, rq.Sector, rq.Sectors, want, rq.state, rq.onHash)
			return false
		}
		return true
	})
	if err == nil && n != q.hash.len() {
		err = fmt.Errorf("blkq: back-merge hash holds %d requests, counts %d", n, q.hash.len())
	}
	return err
}
