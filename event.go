package blkq

// Action is what happened to a bio or request: the blktrace action, named
// by its blkparse letter.
type Action uint8

// The actions blkq emits, in the order of an I/O's life (docs/design.md).
const (
	ActQueue      Action = iota + 1 // Q: the queue got the bio
	ActBackMerge                    // M: bio merged at the back of a request
	ActFrontMerge                   // F: bio merged at the front of a request
	ActGetRq                        // G: a request was allocated for the bio
	ActSleepRq                      // S: no request free; the submitter sleeps
	ActRequeue                      // R: a request was requeued
	ActIssue                        // D: issued to the device
	ActComplete                     // C: the device completed the request
	ActPlug                         // P: the submitter's plug got its first request
	ActUnplug                       // U: the plug was flushed (Depth = requests released)
	_                               // UT: timer unplug (2.6 legacy; not emitted)
	ActInsert                       // I: inserted into the elevator

	// ActMergeRequests: two queued requests became one (Rq absorbed the
	// request described by Sector/Sectors, which is freed). Linux counts
	// it in the disk statistics but has no blktrace action for it, so
	// blktrace writers skip it.
	ActMergeRequests Action = 64
)

// Letter returns the blkparse letter of the action.
func (a Action) Letter() string {
	switch a {
	case ActQueue:
		return "Q"
	case ActBackMerge:
		return "M"
	case ActFrontMerge:
		return "F"
	case ActGetRq:
		return "G"
	case ActSleepRq:
		return "S"
	case ActRequeue:
		return "R"
	case ActIssue:
		return "D"
	case ActComplete:
		return "C"
	case ActPlug:
		return "P"
	case ActUnplug:
		return "U"
	case ActInsert:
		return "I"
	case ActMergeRequests:
		return "m"
	}
	return "?"
}

func (a Action) String() string { return a.Letter() }

// An Event is one transition in the life of an I/O. Every statistic and
// report blkq prints is computed from the stream of events, so no stage
// keeps counters that could disagree with the trace.
//
// Bio is set for Q, M, F, S and G (the bio that caused the event); Rq for
// M, F, G, I, D and C (after a merge, the request merged into). Sector,
// Sectors, Op and Flags describe the bio for Q/M/F/S/G and the request for
// I/D/C.
type Event struct {
	Time    Time
	Action  Action
	Op      Op
	Flags   Flags
	Sector  uint64
	Sectors uint32
	PID     int
	Bio     *Bio
	Rq      *Request
	// Depth is, for U, the number of requests released from the plug; for
	// D, the number of requests in flight including this one.
	Depth int
	// Wait is, for G after a sleep, the time since the first S of this bio
	// (btt's S2G).
	Wait Time
	// Err is the outcome, for C.
	Err error
}

// A Tracer consumes the event stream. Trace is called synchronously, under
// the queue lock, in event order; it must not call back into the queue and
// must not keep e (copy what it needs).
type Tracer interface {
	Trace(e *Event)
}

// TracerFunc adapts a function to a Tracer.
type TracerFunc func(e *Event)

// Trace calls f(e).
func (f TracerFunc) Trace(e *Event) { f(e) }
