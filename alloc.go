package blkq

import (
	"fmt"
	"sort"
)

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
//
// The third family is blk-mq's tags (Linux 6.x, alloc_blkmq.go): one tag
// set shared by both directions, eight wait queues served in turn,
// sleepers woken wake_batch at a time. The allocator keeps per-direction
// counts under every policy (inUse), so that switching policy under load
// conserves requests; free is derived from them and the policy.

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
	// tags replaces all of the above with blk-mq's tag rules
	// (alloc_blkmq.go): one pool of nr_requests for both directions.
	tags bool
}

// The named allocation policies; the first is the default.
var (
	// allocFair is the 2002 fix as merged in 2.4.18: the default.
	allocFair = allocPolicy{name: "fair", raFailBelowBatch: true}
	// allocBlkMQ is blk-mq's tags.
	allocBlkMQ = allocPolicy{name: "blk-mq", tags: true}
	// allocPolicies: legacy is Linux 2.4.18-pre9's get_request, before
	// the fix; fair-nobatch is fair with a sleeper woken as soon as any
	// request is freed (batch 1), the variant whose cost the batching
	// measured; fair-wakeall is fair's FIFO rules with wake-all instead of
	// exclusive wake-one; blk-mq is Linux 6.x's tag allocation.
	allocPolicies = []allocPolicy{
		allocFair,
		{name: "legacy", sharedWait: true, wakeAll: true, resleepBelowBatch: true},
		{name: "fair-nobatch", raFailBelowBatch: true, wakeBatch: 1},
		{name: "fair-wakeall", raFailBelowBatch: true, wakeAll: true},
		allocBlkMQ,
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
	ws        int                      // blk-mq: the wait queue it sleeps on
	q         *Queue                   // the queue it sleeps on
	resume    func() bool              // q.resume(w), bound once (newWaiter)
}

func (w *waiter) link() *links[waiter] { return &w.lk }

// allocator is the request pool of one queue.
type allocator struct {
	policy allocPolicy
	nr     int    // nr_requests: per direction, or the tag set's depth (blk-mq)
	batch  int    // batch_requests
	fixed  int    // batch_requests as configured (0: nr/4)
	free   [2]int // free requests per direction (blk-mq: both the tag set's free tags)
	inUse  [2]int // allocated and not yet freed, by direction
	waitq  [2]waitList
	spare  []*Request // recycled request structs

	sbq     sbitmapQueue // blk-mq's tags and wait queues
	shallow int          // blk-mq: the depth an asynchronous allocation may use (0: all); the elevator's async_depth
}

func (a *allocator) init(p allocPolicy, nr, batch int) {
	a.policy = p
	a.nr = nr
	a.fixed = batch
	a.batch = a.batchFor(nr)
	a.refree()
	a.sbq.wakeBatch = calcWakeBatch(nr, a.sbq.minShallow)
}

// refree derives the free counts from nr, the counts in use and the
// policy.
func (a *allocator) refree() {
	if a.policy.tags {
		f := a.nr - a.inUse[0] - a.inUse[1]
		a.free = [2]int{f, f}
		return
	}
	a.free = [2]int{a.nr - a.inUse[0], a.nr - a.inUse[1]}
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
// Under blk-mq the request holds a tag: the lowest free one, below the
// shallow depth for a write (anything but a read, as Linux's
// dd_limit_depth throttles all but synchronous reads).
func (a *allocator) take(d direction) *Request {
	if a.free[d] <= 0 {
		return nil
	}
	tag := -1
	if a.policy.tags {
		limit := a.nr
		if d == dirWrite && a.shallow > 0 {
			limit = min(limit, a.shallow)
		}
		if tag = a.sbq.get(limit); tag < 0 {
			return nil
		}
		a.free[0]--
		a.free[1]--
	} else {
		a.free[d]--
	}
	a.inUse[d]++
	var rq *Request
	if n := len(a.spare); n > 0 {
		rq = a.spare[n-1]
		a.spare = a.spare[:n-1]
	} else {
		rq = new(Request)
	}
	rq.tag = int32(tag + 1)
	return rq
}

// readAheadFails reports whether a read-ahead allocation must fail now.
// Under blk-mq it never does: a read-ahead sleeps for a tag.
func (a *allocator) readAheadFails(d direction) bool {
	switch {
	case a.policy.tags:
		return false
	case a.policy.raFailBelowBatch:
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
	a.inUse[d]--
	switch {
	case rq.tag > 0:
		a.sbq.clear(int(rq.tag - 1))
	case a.policy.tags && a.sbq.untagged > 0:
		a.sbq.untagged--
	}
	a.refree()
	rq.reset()
	a.spare = append(a.spare, rq)
	if a.policy.tags {
		return a.sbq.freed(wake)
	}
	return a.wakeup(d, wake)
}

// enqueue puts w, going to sleep, on its wait queue.
func (a *allocator) enqueue(w *waiter) {
	if a.policy.tags {
		a.sbq.sleep(w)
		return
	}
	a.queueFor(w.dir).PushBack(w)
}

// requeue puts w back to sleep after a wake-up that got it nothing. Under
// the 2.4 rules it never left its place; under blk-mq it goes to the
// next wait queue in turn.
func (a *allocator) requeue(w *waiter) {
	if a.policy.tags {
		a.sbq.woken.Remove(w)
		w.woken = false
		a.sbq.sleep(w)
	}
}

// dequeue takes w off its wait queue (it got its request, or its sleep
// was cancelled).
func (a *allocator) dequeue(w *waiter) {
	if a.policy.tags {
		a.sbq.remove(w)
		return
	}
	a.queueFor(w.dir).Remove(w)
}

// passOn hands on the wake-up of w, a woken sleeper that will not use it
// (its sleep was cancelled): under the 2.4 rules the next sleeper of its
// queue is woken if free has reached the batch; under blk-mq one sleeper,
// from the wait queues in turn.
func (a *allocator) passOn(w *waiter, wake []*waiter) []*waiter {
	if a.policy.tags {
		return a.sbq.wakeNr(1, wake)
	}
	return a.wakeup(w.dir, wake)
}

// kick wakes the sleepers a tunable change may have let through: under
// the 2.4 rules as a release would, under blk-mq every sleeper (each
// retries and, finding no tag, sleeps again).
func (a *allocator) kick(d direction, wake []*waiter) []*waiter {
	if a.policy.tags {
		if a.free[d] <= 0 {
			return wake
		}
		return a.sbq.wakeAllSleeping(wake)
	}
	return a.wakeup(d, wake)
}

// wakeup wakes sleepers on d's queue if free has reached the wake batch
// (the 2.4 rules).
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
//
// Requests in use keep what they were allocated with: a tag, or none. A
// switch to blk-mq counts the untagged ones as tags in use until they are
// freed; a switch away frees tags as their requests complete.
func (a *allocator) setPolicy(p allocPolicy) {
	var all []*waiter
	take := func(l *waitList) {
		for w := l.Front(); w != nil; w = l.Front() {
			l.Remove(w)
			all = append(all, w)
		}
	}
	for i := range a.waitq {
		take(&a.waitq[i])
	}
	for i := range a.sbq.ws {
		take(&a.sbq.ws[i])
	}
	take(&a.sbq.woken)
	sort.SliceStable(all, func(i, j int) bool { return all[i].sleptAt < all[j].sleptAt })
	wasTags := a.policy.tags
	a.policy = p
	if p.tags && !wasTags {
		a.sbq.untagged = a.inUse[0] + a.inUse[1] - a.sbq.held()
	}
	a.refree()
	for _, w := range all {
		switch {
		case !p.tags:
			a.queueFor(w.dir).PushBack(w)
		case w.woken:
			a.sbq.woken.PushBack(w)
		default:
			a.sbq.sleep(w)
		}
	}
}

// setNr changes nr_requests, keeping free + inUse = nr per direction, or
// over the tag set (free may go negative until enough requests are
// released; a tag at or above the new depth stays in use until freed and
// is not handed out again).
func (a *allocator) setNr(nr int) {
	a.nr = nr
	a.batch = a.batchFor(nr)
	a.refree()
	a.sbq.wakeBatch = calcWakeBatch(nr, a.sbq.minShallow)
}

// setMinShallow sets the tag set's min_shallow_depth (0: none), which
// the elevator decides, and recomputes wake_batch.
func (a *allocator) setMinShallow(n int) {
	a.sbq.minShallow = n
	a.sbq.wakeBatch = calcWakeBatch(a.nr, n)
}

// sleepers returns the number of tasks asleep in allocation (under
// blk-mq, woken and not yet run ones too: ws_active).
func (a *allocator) sleepers() int {
	return a.waitq[0].Len() + a.waitq[1].Len() + a.sbq.active()
}

// check verifies that requests are conserved: free + in use =
// nr_requests, per direction or over the tag set; none in use below 0;
// under blk-mq every request in use holds a tag or is counted untagged.
func (a *allocator) check() error {
	for d := range 2 {
		if a.inUse[d] < 0 {
			return fmt.Errorf("blkq: %v requests: in use %d < 0", direction(d), a.inUse[d])
		}
	}
	if a.policy.tags {
		used := a.inUse[0] + a.inUse[1]
		if a.free[0] != a.free[1] || a.free[0]+used != a.nr {
			return fmt.Errorf("blkq: blk-mq tags: free %d/%d + in use %d+%d != nr_requests %d", a.free[0], a.free[1], a.inUse[0], a.inUse[1], a.nr)
		}
		if b := a.sbq.busy(); b != used || a.sbq.untagged < 0 {
			return fmt.Errorf("blkq: blk-mq tags: %d tags busy (%d untagged), %d requests in use", b, a.sbq.untagged, used)
		}
		return nil
	}
	for d := range 2 {
		if a.free[d]+a.inUse[d] != a.nr {
			return fmt.Errorf("blkq: %v requests: free %d + in use %d != nr_requests %d", direction(d), a.free[d], a.inUse[d], a.nr)
		}
	}
	return nil
}
