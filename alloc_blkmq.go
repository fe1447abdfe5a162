package blkq

import (
	"math/bits"
	"strconv"
)

// blk-mq tag allocation: the "blk-mq" allocation policy, Linux 6.x's rules
// for who gets a request when none is free (block/blk-mq-tag.c over
// lib/sbitmap.c), next to 2.4's fair and legacy rules in alloc.go.
//
// A blk-mq queue has no request pools per direction. It has one set of
// nr_requests tags (the scheduler tags when an elevator is set, else the
// driver's), shared by reads and writes; a request is a tag. The rules:
//
//   - A submitter takes any free tag, whoever sleeps: there is no queue
//     of sleepers to respect, so a running task can take a tag a woken
//     one was about to get (blk_mq_get_tag tries the bitmap first).
//   - One that finds none sleeps on one of SBQ_WAIT_QUEUES (8) wait
//     queues, picked in turn: the queue's wait index moves on by one for
//     every sleep (bt_wait_ptr), so consecutive sleepers spread over the
//     eight queues, and a task that wakes, finds no tag and sleeps again
//     goes to the next queue, not back to its old place.
//   - Each freed tag, while anyone waits (ws_active), counts a
//     completion. When completions are wake_batch ahead of wake-ups, one
//     batch is due: wake-ups move on by wake_batch and wake_batch
//     sleepers are woken, exclusively, from the wait queues in turn
//     starting at the wake index, which moves past each queue before it
//     is looked at (so no queue has to empty before the next is served).
//     A woken sleeper leaves its wait queue (autoremove); it retries when
//     it runs.
//   - wake_batch = clamp(min(depth, min_shallow_depth)/8, 1, 8)
//     (sbq_calc_wake_batch): 8 for 64 tags or more, 1 for 8 or fewer. An
//     elevator that limits the depth of some allocations sets a
//     min_shallow_depth; Linux 6.18's mq-deadline sets 1, so its
//     scheduler tags wake one sleeper per freed tag (checked on this
//     machine's 6.18 in debugfs: sched_tags wake_batch=1 with 256 tags,
//     tags wake_batch=8 with 128).
//   - A read-ahead allocation sleeps like any other (blk-mq has no
//     READA rule; only REQ_NOWAIT fails at once).
//
// What blkq leaves out or simplifies: one hardware queue and one CPU, so
// no per-CPU allocation hint: a tag is the lowest free number. The
// elevator's shallow depth (mq-deadline's async_depth) is a limit on which
// tags an asynchronous allocation may take: those below async_depth, the
// whole-bitmap reading Linux's sbitmap took in 2025; with async_depth =
// nr_requests, Linux's default, it limits nothing, as in Linux. Linux 6.18
// traces no S for a tag wait; blkq still emits S and W, for its
// statistics. A submitter whose sleep is cancelled (Submit's context)
// passes a wake-up it had not used to the next sleeper.

// Linux's sbitmap constants (include/linux/sbitmap.h).
const (
	sbqWaitQueues = 8 // SBQ_WAIT_QUEUES
	sbqWakeBatch  = 8 // SBQ_WAKE_BATCH: the largest wake_batch
)

// tagWords is the bitmap's size in 64-bit words: room for maxNrRequests
// tags.
const tagWords = (maxNrRequests + 63) / 64

// sbitmapQueue is the tag set's bitmap and its wait queues: Linux's
// struct sbitmap_queue for one hardware queue.
type sbitmapQueue struct {
	bits       [tagWords]uint64 // bit i set: tag i is in use
	untagged   int              // requests in use that hold no tag (allocated under another policy)
	minShallow int              // min_shallow_depth; 0: none (Linux's UINT_MAX)
	wakeBatch  int

	ws        [sbqWaitQueues]waitList // sleepers, per wait queue
	woken     waitList                // woken and not yet run: still active, on no wait queue
	waitIndex int                     // the next sleeper's wait queue (hctx->wait_index)
	wakeIndex int                     // the wait queue a batch starts at (sbq->wake_index)

	completions int64 // freed tags counted while anyone waited (completion_cnt)
	wakeups     int64 // completions already paid for by a batch (wakeup_cnt)
}

// calcWakeBatch is sbq_calc_wake_batch: clamp(min(depth,
// min_shallow_depth)/SBQ_WAIT_QUEUES, 1, SBQ_WAKE_BATCH).
func calcWakeBatch(depth, minShallow int) int {
	d := depth
	if minShallow > 0 {
		d = min(d, minShallow)
	}
	return min(max(d/sbqWaitQueues, 1), sbqWakeBatch)
}

// bitsPerWord is the sbitmap's word width for depth tags
// (sbitmap_calculate_shift: 64, halved while 4 words would hold more
// than depth). Shown in State; the model allocates lowest-first, so it
// decides nothing else.
func bitsPerWord(depth int) int {
	shift := 6
	if depth >= 4 {
		for 4<<shift > depth {
			shift--
		}
	}
	return 1 << shift
}

// active is ws_active: sleepers asleep or woken and not yet run.
func (s *sbitmapQueue) active() int {
	n := s.woken.Len()
	for i := range s.ws {
		n += s.ws[i].Len()
	}
	return n
}

// busy is the number of tags in use: those held and the untagged
// requests counted as holding one.
func (s *sbitmapQueue) busy() int { return s.untagged + s.held() }

// held is the number of tags set in the bitmap.
func (s *sbitmapQueue) held() int {
	n := 0
	for _, w := range s.bits {
		n += bits.OnesCount64(w)
	}
	return n
}

// get takes the lowest free tag below limit and returns it, or -1.
func (s *sbitmapQueue) get(limit int) int {
	for i := 0; i*64 < limit; i++ {
		free := ^s.bits[i]
		if n := limit - i*64; n < 64 {
			free &= 1<<n - 1
		}
		if free != 0 {
			b := bits.TrailingZeros64(free)
			s.bits[i] |= 1 << b
			return i*64 + b
		}
	}
	return -1
}

// clear frees tag t.
func (s *sbitmapQueue) clear(t int) { s.bits[t/64] &^= 1 << (t % 64) }

// sleep puts w on the next wait queue in turn.
func (s *sbitmapQueue) sleep(w *waiter) {
	s.ws[s.waitIndex].PushBack(w)
	w.ws = s.waitIndex
	s.waitIndex = (s.waitIndex + 1) % sbqWaitQueues
}

// remove takes w off whichever list holds it (a wait queue or the woken
// list).
func (s *sbitmapQueue) remove(w *waiter) {
	if w.woken {
		s.woken.Remove(w)
	} else {
		s.ws[w.ws].Remove(w)
	}
}

// freed counts one freed tag and appends the sleepers a due batch wakes
// (sbitmap_queue_wake_up(sbq, 1)).
func (s *sbitmapQueue) freed(wake []*waiter) []*waiter {
	if s.active() == 0 {
		return wake
	}
	s.completions++
	if s.completions-s.wakeups < int64(s.wakeBatch) {
		return wake
	}
	s.wakeups += int64(s.wakeBatch)
	return s.wakeNr(s.wakeBatch, wake)
}

// wakeNr wakes up to nr sleepers, serving the wait queues in turn from
// the wake index, which moves past each queue before it is looked at
// (__sbitmap_queue_wake_up).
func (s *sbitmapQueue) wakeNr(nr int, wake []*waiter) []*waiter {
	i := s.wakeIndex
	for range sbqWaitQueues {
		q := &s.ws[i]
		i = (i + 1) % sbqWaitQueues
		for nr > 0 && q.Len() > 0 {
			w := q.Front()
			q.Remove(w)
			w.woken = true
			s.woken.PushBack(w)
			wake = append(wake, w)
			nr--
		}
		if nr == 0 {
			break
		}
	}
	s.wakeIndex = i
	return wake
}

// wakeAllSleeping wakes every sleeper not yet woken, for a tunable change
// that may have freed tags.
func (s *sbitmapQueue) wakeAllSleeping(wake []*waiter) []*waiter {
	return s.wakeNr(maxNrRequests*sbqWaitQueues, wake)
}

// state describes the tag set as Linux's debugfs sched_tags file does
// (the fields blkq models), for tests and State dumps.
func (s *sbitmapQueue) state(depth int) string {
	return "depth=" + strconv.Itoa(depth) + " busy=" + strconv.Itoa(s.busy()) +
		" bits_per_word=" + strconv.Itoa(bitsPerWord(depth)) + " wake_batch=" + strconv.Itoa(s.wakeBatch) +
		" wake_index=" + strconv.Itoa(s.wakeIndex) + " ws_active=" + strconv.Itoa(s.active())
}

// blkmqNrRequests is blk-mq's nr_requests for a queue with elevator
// sched in front of a device of queue depth depth: twice the smaller of
// the depth and 128 (BLKDEV_DEFAULT_RQ) with an elevator
// (blk_mq_init_sched), the depth itself without one (elevator_disable),
// at most 2048 here (blkq's largest tag set, MAX_SCHED_RQ). A loop device
// on this machine's 6.18 shows both: 128 with none, 256 with mq-deadline.
func blkmqNrRequests(sched string, depth int) int {
	if sched == "none" {
		return min(depth, maxNrRequests)
	}
	return 2 * min(depth, blkdevDefaultRq)
}

// blkdevDefaultRq is BLKDEV_DEFAULT_RQ, the per-queue request count blk-mq
// sizes its scheduler tags from.
const blkdevDefaultRq = 128

// A depthLimiter is an elevator that limits the tags some allocations may
// take (Linux's limit_depth and depth_updated operations): the queue asks
// it, under blk-mq, when it is installed and whenever nr_requests or its
// tunables change.
type depthLimiter interface {
	// DepthUpdated tells the elevator the tag set now has nr tags.
	DepthUpdated(nr int)
	// AsyncDepth is how many tags (the lowest ones) an asynchronous
	// allocation, anything but a read, may use; 0 for all of them.
	AsyncDepth() int
	// MinShallowDepth is the smallest AsyncDepth it will ask for
	// (sbitmap_queue_min_shallow_depth), which bounds wake_batch; 0 for
	// no limit.
	MinShallowDepth() int
}

// depthUpdated tells the elevator the tag set's depth and takes its
// limits (Called by New, switchElevator and the nr_requests and iosched
// tunables; requires the lock).
func (q *Queue) depthUpdated() {
	lim, ok := q.elv.(depthLimiter)
	if !ok {
		q.alloc.shallow = 0
		q.alloc.setMinShallow(0)
		return
	}
	lim.DepthUpdated(q.alloc.nr)
	q.syncShallow()
}

// syncShallow takes the elevator's current limits without telling it of
// a depth change (after one of its tunables was written).
func (q *Queue) syncShallow() {
	if lim, ok := q.elv.(depthLimiter); ok {
		q.alloc.shallow = lim.AsyncDepth()
		q.alloc.setMinShallow(lim.MinShallowDepth())
	}
}
