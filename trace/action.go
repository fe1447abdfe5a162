package trace

import (
	"errors"
	"syscall"

	"github.com/blkq-dev/blkq"
)

// How a blkq event becomes a record: the action word the kernel's blktrace
// would have written for the same transition, and the sector, length and
// error it would have recorded.
//
// The kernel traces Q, M, F, G and S against the bio and I, D, C and R
// against the request; request traces carry the FS category (blkq has no
// pass-through requests). P and U are traced with no bio, as a read of no
// bytes: the READ category is set, and blkparse prints N. A flush request
// is a read in the kernel's data-direction test (REQ_OP_FLUSH is even), so
// it carries READ|FLUSH; the flush bio it serves is a write with a
// preflush (WRITE|FLUSH); a discard is a write (WRITE|DISCARD).

// eventAction returns the action word, sector and byte count of e, and
// false for actions with no blktrace equivalent (W, blkq's wake-up). A
// request merge is an M (Linux 5.11+'s rq_merge trace) with the merged-away
// request's sector and size; a dropped read-ahead is a C of the bio whose
// error is EAGAIN, as Linux records a bio ended with BLK_STS_AGAIN. A
// split (X) is the piece split off, its payload the sector the rest
// starts at (blk_add_trace_split).
func eventAction(e *blkq.Event) (action uint32, sector uint64, bytes uint32, ok bool) {
	var ta, tc uint32
	opBits := true
	switch e.Action {
	case 'Q':
		ta, tc = TAQueue, TCQueue
	case 'M':
		ta, tc = TABackMerge, TCQueue
	case 'F':
		ta, tc = TAFrontMerge, TCQueue
	case 'G':
		ta, tc = TAGetRq, TCQueue
	case 'S':
		ta, tc = TASleepRq, TCQueue
	case 'R':
		ta, tc = TARequeue, TCRequeue|TCFS
	case 'D':
		ta, tc = TAIssue, TCIssue|TCFS
	case 'C':
		ta, tc = TAComplete, TCComplete|TCFS
		if e.Rq == nil {
			tc = TCComplete // a bio's completion (blk_add_trace_bio) is not an FS request's
		}
	case 'I':
		ta, tc = TAInsert, TCQueue|TCFS
	case 'P':
		ta, tc, opBits = TAPlug, TCQueue|TCRead, false
	case 'U':
		ta, tc, opBits = TAUnplugIO, TCQueue|TCRead, false
	case 'X':
		ta, tc = TASplit, TCQueue
	default:
		return 0, 0, 0, false
	}
	if opBits {
		tc |= opCategories(e.Op, e.Flags, e.Action == 'Q' || e.Action == 'M' || e.Action == 'F' || e.Action == 'G' || e.Action == 'S')
		sector, bytes = e.Sector, e.Sectors<<blkq.SectorShift
	}
	return tc<<TCShift | ta, sector, bytes, true
}

// opCategories returns the categories the kernel derives from a bio's or
// request's operation and flags. A flush bio, and the request allocated
// for it (asBio: Q, M, F, G, S), is what fsync submits, an empty write
// with a preflush (WRITE|FLUSH: blkparse's "FWS"; the queue makes the
// request an empty write, OpWrite of no sectors, once it takes it into its
// flush sequence); the flush request the queue sends to the device (D, C)
// is REQ_OP_FLUSH (READ|FLUSH: "FN").
func opCategories(op blkq.Op, f blkq.Flags, asBio bool) uint32 {
	var tc uint32
	switch op {
	case blkq.OpWrite:
		tc = TCWrite
	case blkq.OpFlush:
		tc = TCRead | TCFlush
		if asBio {
			tc = TCWrite | TCFlush
		}
	case blkq.OpDiscard:
		tc = TCWrite | TCDiscard
	default:
		tc = TCRead
	}
	for _, m := range [...]struct {
		flag blkq.Flags
		tc   uint32
	}{
		{blkq.FlagSync, TCSync},
		{blkq.FlagReadAhead, TCAhead},
		{blkq.FlagMeta, TCMeta},
		{blkq.FlagPreflush, TCFlush},
		{blkq.FlagFUA, TCFUA},
	} {
		if f&m.flag != 0 {
			tc |= m.tc
		}
	}
	return tc
}

// errorCode returns the error field of a completion: the negative errno,
// truncated to 16 bits, as the kernel stores it (EIO unless err wraps a
// syscall.Errno).
func errorCode(err error) uint16 {
	if err == nil {
		return 0
	}
	errno := syscall.EIO
	var en syscall.Errno
	if errors.As(err, &en) && en != 0 {
		errno = en
	}
	return uint16(-int32(errno))
}

// taskName returns the name of the task behind e, if the event carries
// one.
func taskName(e *blkq.Event) string {
	if e.Task != nil {
		return e.Task.Name
	}
	return ""
}
