package blkq

// Action is what happened to a bio or request: the letter of the
// blktrace action as blkparse prints it ('Q', 'M', 'F', 'G', 'S', 'I',
// 'D', 'C', 'P', 'U', 'R', 'X'), plus one of blkq's own, 'W'. Compare it with a
// character (e.Action == 'Q'); print it with %c. One byte, so an event
// stays small and holds no pointer for it. In the order of an I/O's life
// (docs/design.md):
//
//	Q  the queue got the bio
//	X  a piece was split off the bio, which exceeded the queue's limits
//	   (Bio is the piece; the rest starts at Sector+Sectors)
//	M  the bio merged at the back of a request; or, with no Bio, a queued
//	   request merged into the one before it (Linux 5.11+ traces that
//	   request merge as an M for the request merged away)
//	F  the bio merged at the front of a request
//	S  no request free: the submitter sleeps
//	W  a sleeper was woken (blkq's own; no blktrace record)
//	G  a request was allocated for the bio
//	P  the submitter's plug got its first request
//	U  the plug was flushed (Depth = requests released)
//	I  the request was inserted into the elevator
//	D  issued to the device
//	C  completed; with no Rq, a read-ahead bio dropped at once under
//	   request pressure (Err is ErrReadAheadDropped, which wraps EAGAIN);
//	   with no sectors, the end of a request's flush sequence off the
//	   device, after the flush its bios waited for (flush.go)
//	R  requeued (a trace may hold it; this queue never requeues)
type Action byte

// The actions the queue emits.
const (
	actQueue      Action = 'Q'
	actBackMerge  Action = 'M'
	actFrontMerge Action = 'F'
	actGetRq      Action = 'G'
	actSleepRq    Action = 'S'
	actWake       Action = 'W'
	actIssue      Action = 'D'
	actComplete   Action = 'C'
	actPlug       Action = 'P'
	actUnplug     Action = 'U'
	actInsert     Action = 'I'
	actSplit      Action = 'X'
)

// An Event is one transition in the life of an I/O. Every statistic and
// report blkq prints is computed from the stream of events, so no stage
// keeps counters that could disagree with the trace.
//
// Bio is set for Q, X, M, F, S, W and G (the bio that caused the event,
// or the sleeper's parked bio; after a split, the piece) and for a dropped
// read-ahead's C; Rq for M, F,
// G, I, D and C (after a merge, the request merged into). Sector, Sectors,
// Op and Flags describe the bio for Q/X/M/F/S/W/G and a dropped C, the
// request for I/D/C, and the request merged away for a request merge's M
// (Bio nil).
type Event struct {
	Time    Time
	Action  Action
	Op      Op
	Flags   Flags
	Sector  uint64
	Sectors uint32
	PID     int
	Task    *Task // the submitter, if known (its PID and Name)
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
//
// A Tracer that needs only some actions may say which with a method
// Actions() string returning their letters ("GMFDSC"; AddTracer calls it
// once): the queue then calls its Trace for those only, and fills in no
// event that none of its tracers consumes. A run whose tracers count
// requests (DiskStats, the engine's job figures) so pays nothing for its
// Q and I events, which only a trace writer reads. A Tracer without the
// method gets every event.
type Tracer interface {
	Trace(e *Event)
}

// actionTracer is a Tracer that consumes only some actions (see Tracer):
// the queue calls its Trace for those, and fills in no event that no
// tracer consumes.
type actionTracer interface {
	Actions() string
}

// actionSet is a set of actions, one bit per letter 'A'..'Z' (every
// action is one).
type actionSet uint32

// allActions is every action.
const allActions actionSet = 1<<26 - 1

// actionsOf returns the set of the letters in s; other bytes are ignored.
func actionsOf(s string) actionSet {
	var w actionSet
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			w |= 1 << (c - 'A')
		}
	}
	return w
}

// has reports whether a is in w.
func (w actionSet) has(a Action) bool { return a-'A' < 26 && w&(1<<(a-'A')) != 0 }

// TracerFunc adapts a function to a Tracer.
type TracerFunc func(e *Event)

// Trace calls f(e).
func (f TracerFunc) Trace(e *Event) { f(e) }
