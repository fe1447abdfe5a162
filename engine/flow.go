package engine

import (
	"fmt"
	"time"

	"github.com/blkq-dev/blkq"
	"golang.org/x/sys/unix"
)

// Flow control as fio 3.33 does it (flow.c, and where backend.c calls
// it): flow=N, flow_id, flow_sleep.
//
// The jobs with flow=N (N ≠ 0) and one flow_id share a flow: a counter
// of the I/Os they issued, which starts at 1, and the sum of their
// weights N. Every such job of the run is in the sum from the start,
// those behind a stonewall too (fio adds a job's weight when it sets the
// job up), until it finishes, when its weight and its I/Os come off
// again. Before each I/O (an fsync=N sync too) a member compares its
// share of the counter, its own I/Os over the counter, with its share of
// the weight, N over the sum. Past it, the job is held back; otherwise
// the I/O counts, in the job's own count and in the flow's. So each job
// keeps within about one I/O of its share of all the flow's I/Os since
// the run began, whatever the others' speeds.
//
// A held job with flow_sleep waits for its I/O in flight to complete
// (fio's quiesce; a zonemode=zbd job quiesces without flow_sleep too),
// sleeps flow_sleep and looks again. Without flow_sleep fio spins,
// looking again at once, which on blkq's clock is looking again when the
// flow next moves. A held job whose flow has not moved since its last
// look would only be held again, so it waits for the flow to move (with
// flow_sleep, then for the end of the sleep that saw it move): the looks
// fio makes that can change anything, with no timer per flow_sleep. If
// every running job waits so and none has a runtime to end it, no flow
// can move again: fio waits there for ever, blkq fails the held jobs
// (EDEADLK).
//
// fio keeps the weights unsigned in 32 bits and so does this file:
// flow=-N is 2^32-N, which takes N off the sum. That job is never held
// (its share of the weight is past 1), and the others' shares grow as the
// sum shrinks; a sum of 0 gives every share +Inf, so no one is held, and
// a sum below 0 (near 2^32) gives the others shares near 0: each is held
// after its first I/O.

// A flow is what the members of one flow_id share (fio's struct
// fio_flow). All jobs run on one executor: no lock.
type flow struct {
	id      int32
	counter uint64 // the members' I/Os, plus 1 (fio starts it at 1)
	weight  uint32 // the members' flow= summed, modulo 2^32 as fio sums them
	moves   uint64 // changes of counter or weight
	parked  []*job // held jobs waiting for the flow to move, in the order held
	waking  bool   // a wake-up of the parked jobs is scheduled
}

// jobFlow is a job's part in its flow; the zero value is a job in none.
type jobFlow struct {
	f        *flow
	count    uint64    // the I/Os it counted (fio's td->flow_counter)
	granted  bool      // it passed the check for an I/O it has not issued yet
	quiesce  bool      // held: waiting for its I/O in flight to complete
	held     bool      // its last look held it back,
	heldAt   uint64    // when the flow had made this many moves
	parked   bool      // in f.parked
	lookedAt blkq.Time // when it parked: with flow_sleep it looks again a whole number of sleeps later
}

// joinFlow makes j a member of its flow_id's flow if it has a flow=.
func (r *runner) joinFlow(j *job) {
	if j.spec.Flow == 0 {
		return
	}
	f := r.flows[j.spec.FlowID]
	if f == nil {
		if r.flows == nil {
			r.flows = map[int32]*flow{}
		}
		f = &flow{id: j.spec.FlowID, counter: 1}
		r.flows[j.spec.FlowID] = f
	}
	f.weight += j.spec.Flow
	j.flow.f = f
}

// flowAllows reports whether j's flow lets it issue its next I/O now
// (fio's flow_threshold_exceeded, negated). The I/O it grants counts at
// once, as in fio; pump clears the grant when it issues the I/O. When it
// refuses, something calls pump again: the quiesce's last completion, the
// sleep's timer, or the flow's next move.
func (j *job) flowAllows() bool {
	jf := &j.flow
	f := jf.f
	if f == nil || jf.granted {
		return true
	}
	if jf.parked {
		return false
	}
	if jf.quiesce {
		if j.inflight > 0 {
			return false
		}
		jf.quiesce = false
		if j.spec.FlowSleep > 0 {
			j.sleepThen(j.spec.FlowSleep)
			return false
		}
		// zonemode=zbd without flow_sleep looks again at once.
	}
	if float64(jf.count)/float64(f.counter) <= float64(j.spec.Flow)/float64(f.weight) {
		jf.count++
		f.counter++
		jf.held, jf.granted = false, true
		j.r.flowMoved(f)
		return true
	}
	unchanged := jf.held && jf.heldAt == f.moves // nothing new since its last look
	jf.held, jf.heldAt = true, f.moves
	if (j.spec.FlowSleep > 0 || j.spec.ZoneMode == "zbd") && j.inflight > 0 {
		jf.quiesce = true // the last completion's pump goes on
		return false
	}
	if j.spec.FlowSleep > 0 && !unchanged {
		j.sleepThen(j.spec.FlowSleep)
		return false
	}
	jf.parked, jf.lookedAt = true, j.now()
	f.parked = append(f.parked, j)
	j.r.flowParked++
	j.r.flowStuck()
	return false
}

// flowMoved records a change of f and wakes its parked jobs after the
// current event.
func (r *runner) flowMoved(f *flow) {
	f.moves++
	if len(f.parked) == 0 || f.waking {
		return
	}
	f.waking = true
	r.exec.AfterFunc(0, func() { r.wakeFlow(f) })
}

// wakeFlow lets f's parked jobs look again: at once, or, with
// flow_sleep, at the end of the sleep that would first have seen the
// move.
func (r *runner) wakeFlow(f *flow) {
	f.waking = false
	woken := f.parked
	f.parked = nil
	for _, j := range woken {
		j.flow.parked = false // all of them before any looks: none is counted stuck
		r.flowParked--
	}
	for _, j := range woken {
		s := blkq.Time(j.spec.FlowSleep)
		if s == 0 {
			j.pump()
			continue
		}
		k := max(1, (j.now()-j.flow.lookedAt+s-1)/s)
		j.sleepThen(time.Duration(j.flow.lookedAt + k*s - j.now()))
	}
}

// leaveFlow takes a finished (or cancelled) job's weight and I/Os off its
// flow, as fio does when it reaps the job, and fails the held jobs if
// nothing is left to move a flow.
func (r *runner) leaveFlow(j *job) {
	jf := &j.flow
	if f := jf.f; f != nil {
		if jf.parked {
			for i, p := range f.parked {
				if p == j {
					f.parked = append(f.parked[:i], f.parked[i+1:]...)
					break
				}
			}
			jf.parked = false
			r.flowParked--
		}
		f.counter -= jf.count
		f.weight -= j.spec.Flow
		jf.f = nil
		r.flowMoved(f)
	}
	r.flowStuck()
}

// flowStuck checks, after the current event (when the jobs a finished
// one lets start have been scheduled), that a flow can still move, and
// fails every parked job if none can: every running job (started, or
// waiting for its startdelay) is parked, no wake-up is due, and none has
// a runtime that will end it.
func (r *runner) flowStuck() {
	if r.flowParked == 0 || r.flowParked < r.running || r.flowCheckDue {
		return
	}
	r.flowCheckDue = true
	r.exec.AfterFunc(0, func() {
		r.flowCheckDue = false
		if r.flowParked == 0 || r.flowParked < r.running {
			return
		}
		for _, j := range r.jobs {
			if j.flow.parked && (j.runtime() > 0 || j.flow.f.waking) {
				return // its end, or the wake-up, moves its flow
			}
		}
		for _, j := range r.jobs {
			if !j.flow.parked || j.state.ended() {
				continue
			}
			if j.err == nil {
				j.err = fmt.Errorf("held back by flow_id=%d with no job left to move the flow (fio 3.33 waits here for ever): %w", j.flow.f.id, unix.EDEADLK)
				j.errFunc = "flow"
			}
			j.stop()
		}
	})
}
