package blkq

import "sort"

// Request allocation: who gets a request when the pool is empty.
//
// Each direction (reads; writes and everything else) has nr_requests
// requests and a free count. A submitter that finds no free request sleeps
// on a wait queue; a released request may wake sleepers. The 2002
// get_request starvation fix changed only these rules, so they are data
// here (allocPolicy), not code paths:
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

// allocPolicy is a set of request-allocation rules, chosen by name
// (Config.Alloc, the alloc tunable).
type allocPolicy struct {
	name string
	// sharedWait puts both directions' sleepers on one wait queue.
	sharedWait bool
	// wakeAll wakes every sleeper instead of the first one not yet woken.
	wakeAll bool
	// wakeBatch, if > 0, replaces batch as the free count at which a
	// release wakes sleepers (1 = wake as soon as any request is freed).
	wakeBatch int
	// resleepBelowBatch makes a woken task sleep again while free < batch
	// (the legacy loop); otherwise it sleeps again only if free == 0.
	resleepBelowBatch bool
	// raFailBelowBatch makes a read-ahead allocation fail when free <
	// batch; otherwise only when free == 0.
	raFailBelowBatch bool
}

// The named allocation policies; the first is the default.
var (
	// allocFair is the 2002 fix as merged in 2.4.18: the default.
	allocFair = allocPolicy{name: "fair", raFailBelowBatch: true}
	// allocPolicies: legacy is Linux 2.4.18-pre9's get_request, before
	// the fix; fair-nobatch is fair with a sleeper woken as soon as any
	// request is freed (batch 1), the variant whose cost the batching
	// measured; fair-wakeall is fair's FIFO rules with wake-all instead of
	// exclusive wake-one.
	allocPolicies = []allocPolicy{
		allocFair,
		{name: "legacy", sharedWait: true, wakeAll: true, resleepBelowBatch: true},
		{name: "fair-nobatch", raFailBelowBatch: true, wakeBatch: 1},
		{name: "fair-wakeall", raFailBelowBatch: true, wakeAll: true},
	}
)

// allocPolicyNames lists the policies' names: the values of Config.Alloc
// and the alloc tunable.
func allocPolicyNames() []string {
	names := make([]string, len(allocPolicies))
	for i, p := range allocPolicies {
		names[i] = p.name
	}
	return names
}

func allocPolicyByName(name string) (allocPolicy, bool) {
	for _, p := range allocPolicies {
		if p.name == name {
			return p, true
		}
	}
	return allocPolicy{}, false
}

// A waiter is a task asleep in request allocation, with its parked bio.
type waiter struct {
	task      *Task
	bio       *Bio
	dir       direction
	woken     bool                     // woken and not yet run: wake-one skips it
	granted   bool                     // got its request: a late resume does nothing
	cancelled bool                     // taken back (Submit's ctx ended): a late resume does nothing
	wake      func(resume func() bool) // the task's Wake when it went to sleep
	sleptAt   Time                     // first S for this bio
	lk        links[waiter]            // on its wait queue
	q         *Queue                   // the queue it sleeps on
	resume    func() bool              // q.resume(w), bound once (newWaiter)
}

func (w *waiter) link() *links[waiter] { return &w.lk }

// allocator is the request pool of one queue.
type allocator struct {
	policy allocPolicy
	nr     int    // nr_requests per direction
	batch  int    // batch_requests
	fixed  int    // batch_requests as configured (0: nr/4)
	free   [2]int // free requests per direction
	inUse  [2]int // allocated and not yet freed
	waitq  [2]waitList
	spare  []*Request // recycled request structs
}

func (a *allocator) init(p allocPolicy, nr, batch int) {
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
	if a.policy.wakeBatch > 0 {
		return a.policy.wakeBatch
	}
	return a.batch
}

func (a *allocator) queueFor(d direction) *waitList {
	if a.policy.sharedWait {
		return &a.waitq[0]
	}
	return &a.waitq[d]
}

// take returns a free request of direction d, or nil if none is free.
func (a *allocator) take(d direction) *Request {
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
func (a *allocator) readAheadFails(d direction) bool {
	if a.policy.raFailBelowBatch {
		return a.free[d] < a.batch
	}
	return a.free[d] <= 0
}

// mayRetry reports whether a woken waiter should try to allocate (rather
// than sleep again at once).
func (a *allocator) mayRetry(d direction) bool {
	if a.policy.resleepBelowBatch {
		return a.free[d] >= a.batch
	}
	return a.free[d] > 0
}

// put returns rq to the pool and appends the waiters to wake to wake.
func (a *allocator) put(rq *Request, d direction, wake []*waiter) []*waiter {
	a.free[d]++
	a.inUse[d]--
	rq.reset()
	a.spare = append(a.spare, rq)
	return a.wakeup(d, wake)
}

// wakeup wakes sleepers on d's queue if free has reached the wake batch.
func (a *allocator) wakeup(d direction, wake []*waiter) []*waiter {
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
		if !a.policy.wakeAll {
			break
		}
	}
	return wake
}

// setPolicy switches the allocation rules. Sleepers move to the new
// policy's wait queues (one shared queue or one per direction) in the order
// they went to sleep; one already woken stays woken (its resume is on its
// way), so none is lost and none is woken twice.
func (a *allocator) setPolicy(p allocPolicy) {
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
