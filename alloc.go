package blkq

import "sort"

// Request allocation: who gets a request when the pool is empty.
//
// Each direction (reads; writes and everything else) has nr_requests
// requests and a free count. A submitter that finds no free request sleeps
// on a wait queue; a released request may wake sleepers. The 2002
// get_request starvation fix changed only these rules, so they are data
// here (AllocPolicy), not code paths:
//
//   - legacy (2.4.18-pre9, before the fix): one wait queue for both
//     directions; every release that brings free up to batch wakes all
//     sleepers; a woken task goes back to sleep while free < batch; a
//     running submitter takes any free request even while others sleep.
//     Which woken task wins is up to the scheduler, and a task can lose
//     again and again: that is the starvation.
//   - fair (the fix as merged): per-direction FIFO wait queues, exclusive
//     wake-one once free >= batch; a woken task sleeps again only if the
//     pool is empty, so it submits a batch of requests before anyone else
//     is woken; a read-ahead allocation fails at once when free < batch.
//
// A woken waiter stays at its place in the wait queue until it actually
// gets a request, as with Linux's add_wait_queue_exclusive loop; wake-one
// skips waiters already woken (try_to_wake_up on a running task does not
// count as a wake-up).

// AllocPolicy is a set of request-allocation rules.
type AllocPolicy struct {
	// Name is the policy's name for --alloc.
	Name string
	// SharedWait puts both directions' sleepers on one wait queue.
	SharedWait bool
	// WakeAll wakes every sleeper instead of the first one not yet woken.
	WakeAll bool
	// WakeBatch, if > 0, replaces batch as the free count at which a
	// release wakes sleepers (1 = wake as soon as any request is freed).
	WakeBatch int
	// ResleepBelowBatch makes a woken task sleep again while free < batch
	// (the legacy loop); otherwise it sleeps again only if free == 0.
	ResleepBelowBatch bool
	// RAFailBelowBatch makes a read-ahead allocation fail when free <
	// batch; otherwise only when free == 0.
	RAFailBelowBatch bool
}

// The named allocation policies.
var (
	// AllocLegacy is Linux 2.4.18-pre9's get_request, before the fix.
	AllocLegacy = AllocPolicy{Name: "legacy", SharedWait: true, WakeAll: true, ResleepBelowBatch: true}
	// AllocFair is the 2002 fix as merged in 2.4.18: the default.
	AllocFair = AllocPolicy{Name: "fair", RAFailBelowBatch: true}
	// AllocFairNoBatch is fair with a sleeper woken as soon as any request
	// is freed (batch 1): the variant whose cost the batching measured.
	AllocFairNoBatch = AllocPolicy{Name: "fair-nobatch", RAFailBelowBatch: true, WakeBatch: 1}
	// AllocFairWakeAll is fair's FIFO rules with wake-all instead of
	// exclusive wake-one.
	AllocFairWakeAll = AllocPolicy{Name: "fair-wakeall", RAFailBelowBatch: true, WakeAll: true}
)

// AllocPolicies lists the named policies.
func AllocPolicies() []AllocPolicy {
	return []AllocPolicy{AllocFair, AllocLegacy, AllocFairNoBatch, AllocFairWakeAll}
}

// AllocPolicyByName returns the named policy.
func AllocPolicyByName(name string) (AllocPolicy, bool) {
	for _, p := range AllocPolicies() {
		if p.Name == name {
			return p, true
		}
	}
	return AllocPolicy{}, false
}

// A waiter is a task asleep in request allocation, with its parked bio.
type waiter struct {
	task      *Task
	bio       *Bio
	dir       Dir
	woken     bool                     // woken and not yet run: wake-one skips it
	granted   bool                     // got its request: a late resume does nothing
	cancelled bool                     // taken back (Submit's ctx ended): a late resume does nothing
	wake      func(resume func() bool) // the task's Wake when it went to sleep
	sleptAt   Time                     // first S for this bio
	lk        links[waiter]            // on its wait queue
}

func (w *waiter) link() *links[waiter] { return &w.lk }

// allocator is the request pool of one queue.
type allocator struct {
	policy AllocPolicy
	nr     int    // nr_requests per direction
	batch  int    // batch_requests
	fixed  int    // batch_requests as configured (0: nr/4)
	free   [2]int // free requests per direction
	inUse  [2]int // allocated and not yet freed
	waitq  [2]waitList
	spare  []*Request // recycled request structs
}

func (a *allocator) init(p AllocPolicy, nr, batch int) {
	a.policy = p
	a.nr = nr
	a.fixed = batch
	a.batch = a.batchFor(nr)
	a.free = [2]int{nr, nr}
}

// batchFor is the batch for nr requests per direction: as configured
// (at most nr), else the default.
func (a *allocator) batchFor(nr int) int {
	if a.fixed > 0 {
		return min(a.fixed, nr)
	}
	return defaultBatch(nr)
}

// defaultBatch is batch_requests = nr_requests/4 (Linux 2.4.18), at least 1.
func defaultBatch(nr int) int {
	return max(nr/4, 1)
}

func (a *allocator) wakeBatch() int {
	if a.policy.WakeBatch > 0 {
		return a.policy.WakeBatch
	}
	return a.batch
}

func (a *allocator) queueFor(d Dir) *waitList {
	if a.policy.SharedWait {
		return &a.waitq[0]
	}
	return &a.waitq[d]
}

// take returns a free request of direction d, or nil if none is free.
func (a *allocator) take(d Dir) *Request {
	if a.free[d] <= 0 {
		return nil
	}
	a.free[d]--
	a.inUse[d]++
	var rq *Request
	if n := len(a.spare); n > 0 {
		rq = a.spare[n-1]
		a.spare = a.spare[:n-1]
	} else {
		rq = new(Request)
	}
	return rq
}

// readAheadFails reports whether a read-ahead allocation must fail now.
func (a *allocator) readAheadFails(d Dir) bool {
	if a.policy.RAFailBelowBatch {
		return a.free[d] < a.batch
	}
	return a.free[d] <= 0
}

// mayRetry reports whether a woken waiter should try to allocate (rather
// than sleep again at once).
func (a *allocator) mayRetry(d Dir) bool {
	if a.policy.ResleepBelowBatch {
		return a.free[d] >= a.batch
	}
	return a.free[d] > 0
}

// put returns rq to the pool and appends the waiters to wake to wake.
func (a *allocator) put(rq *Request, d Dir, wake []*waiter) []*waiter {
	a.free[d]++
	a.inUse[d]--
	rq.reset()
	a.spare = append(a.spare, rq)
	return a.wakeup(d, wake)
}

// wakeup wakes sleepers on d's queue if free has reached the wake batch.
func (a *allocator) wakeup(d Dir, wake []*waiter) []*waiter {
	if a.free[d] < a.wakeBatch() {
		return wake
	}
	q := a.queueFor(d)
	for w := q.Front(); w != nil; w = w.lk.next {
		if w.woken {
			continue
		}
		w.woken = true
		wake = append(wake, w)
		if !a.policy.WakeAll {
			break
		}
	}
	return wake
}

// setPolicy switches the allocation rules. Sleepers move to the new
// policy's wait queues (one shared queue or one per direction) in the order
// they went to sleep; one already woken stays woken (its resume is on its
// way), so none is lost and none is woken twice.
func (a *allocator) setPolicy(p AllocPolicy) {
	var all []*waiter
	for i := range a.waitq {
		for w := a.waitq[i].Front(); w != nil; w = a.waitq[i].Front() {
			a.waitq[i].Remove(w)
			all = append(all, w)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].sleptAt < all[j].sleptAt })
	a.policy = p
	for _, w := range all {
		a.queueFor(w.dir).PushBack(w)
	}
}

// setNr changes nr_requests, keeping free + inUse = nr per direction
// (free may go negative until enough requests are released).
func (a *allocator) setNr(nr int) {
	delta := nr - a.nr
	a.nr = nr
	a.batch = a.batchFor(nr)
	a.free[0] += delta
	a.free[1] += delta
}

// sleepers returns the number of tasks asleep in allocation.
func (a *allocator) sleepers() int {
	return a.waitq[0].Len() + a.waitq[1].Len()
}
