package blkq

// A Bio is one I/O as a submitter sees it: an op on a run of sectors.
// A bio is merged into a request (or gets a request of its own) and ends
// exactly once, through EndIO, when the request that carries it completes.
//
// Every bio handed to Enqueue or Submit ends exactly once, whatever
// happens: refused at once (ErrBadBio, ErrBeyondEnd, ErrReadAheadDropped;
// a closed queue's and a sleeping task's errors wrap ENODEV and EBUSY), taken back because Submit's context
// ended before it was queued (the context's error), or completed by the
// device (nil or the device's error). See Queue.Submit.
//
// The queue owns a bio from Submit until EndIO is called; the caller must
// not change it in between.
type Bio struct {
	Op      Op
	Flags   Flags
	Sector  uint64 // first sector (512 bytes)
	Sectors uint32 // length in sectors; 0 for a flush

	// Prio is the bio's I/O priority, as Linux's bi_ioprio: class << 13
	// | level (class 1 real-time, 2 best-effort, 3 idle; level 0, the
	// highest, to 7); 0 for none. Only bios of one priority merge (as
	// Linux's blk_rq_merge_ok requires); mq-deadline serves it by level
	// (real-time, then best-effort and none, then idle), the other
	// schedulers ignore it.
	Prio uint16

	// Buf holds the data for real devices (len = Sectors*512); nil on
	// simulated devices. A non-nil Buf of any other length is a malformed
	// bio (ErrBadBio), as is one on a flush.
	Buf []byte

	// EndIO is called exactly once, outside the queue lock, with the
	// outcome of the I/O. It may submit more bios. It may run before
	// Submit or Enqueue returns (a refused or cancelled bio) and on any
	// goroutine (a device's completion).
	EndIO func(b *Bio, err error)

	// Runs, if not nil, describes the memory of a read or write as the
	// lengths in sectors of its physically contiguous runs, in order,
	// summing to Sectors (anything else is ErrBadBio). Each run is
	// ceil(bytes / max_segment_size) segments, and runs are not joined:
	// it is the scatter-gather list Linux builds from the bio's pages,
	// where a buffer's pages are adjacent in memory only by chance. nil:
	// one run, the bio's memory contiguous, the fewest segments Linux
	// could count (split.go). Flushes and discards ignore it. The queue
	// does not change the caller's slice.
	Runs []uint32

	// Private is for the submitter; the queue never looks at it.
	Private any

	// Queued is the time of the Q event, set by the queue.
	Queued Time

	// Start, if not 0, is the submitter's reading of the queue's clock
	// just before it hands the bio to Enqueue or Submit (fio's start of
	// an I/O). The queue takes it as the time of that submission's hold
	// of its lock (the Q event and what follows in the hold) instead of
	// reading the clock itself, unless it is earlier than a time the
	// queue has already used: its events never go back in time. A clock
	// read costs 30 to 90 ns on the machines blkq is measured on, a
	// good part of a null device's I/O (docs/performance.md); a caller
	// that reads the time anyway saves one. The queue does not change it.
	Start Time

	// Ended is the time of the queue's hold of its lock that ended the
	// bio (its request's completion, or its refusal), set before EndIO,
	// when that hold had read the clock for its events or stamps (a queue
	// with a DiskStats or a trace always has); 0 when it had not, and for
	// a bio Submit ends because of its context. A submitter can take it
	// as the completion's time instead of reading the clock again.
	Ended Time

	// Parent is set by the queue on the pieces it cuts off a bio larger
	// than its limits (split.go): the bio they are pieces of; nil on the
	// bios callers submit. A piece has an X event (the last piece none)
	// and then its own M, F, G, S and C; tracers that follow bios by
	// identity count a piece's events as its parent's.
	Parent *Bio

	task *Task // submitter, for tracing and plugging
	next *Bio  // next bio in the request's chain
}

// End returns the sector just past the bio.
func (b *Bio) end() uint64 { return b.Sector + uint64(b.Sectors) }

// Bytes returns the bio's length in bytes.
func (b *Bio) Bytes() int64 { return int64(b.Sectors) << SectorShift }

// mergeable reports whether the bio may be merged at all.
func (b *Bio) mergeable() bool {
	return b.Flags&noMergeFlags == 0 && (b.Op == OpRead || b.Op == OpWrite || b.Op == OpDiscard)
}
