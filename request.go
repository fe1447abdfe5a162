package blkq

// A Request is what the elevator sorts and the device serves: one or more
// bios on contiguous sectors with the same op, built by merging. Requests
// come from a fixed pool (nr_requests per direction); a submitter that finds
// the pool empty sleeps until one is freed (Config.Alloc says who gets it).
//
// Fields after the exported block belong to the queue and its elevator.
type Request struct {
	Op      Op
	Flags   Flags
	Sector  uint64 // first sector
	Sectors uint32 // length in sectors
	NrBios  int    // bios carried
	Prio    uint16 // I/O priority of its bios (Bio.Prio)

	Task *Task // the task that allocated it (for tracing)

	Alloc  Time // G: request allocated
	Insert Time // I: inserted into the elevator
	Issue  Time // D: issued to the device

	// Elevator state: the links of the one elevator list the request is
	// on, mq-deadline's expiry (insert time + read_expire or
	// write_expire), the linus elevator's passover budget
	// (elevator_sequence) and which of its lists holds it (mq-deadline:
	// the priority level).
	elv      links[Request]
	fifoTime Time
	elvSeq   int
	elvIndex int
	dd       *mqDeadline // the mq-deadline that counted it as inserted (rq->elv.priv[0])

	bios, biotail *Bio
	segs          int      // physical segments (nr_phys_segments; split.go)
	hashNext      *Request // chain in the back-merge hash
	onHash        bool
	state         rqState
	tag           int32 // blk-mq: the tag held, plus 1; 0 for none
	inFlush       bool  // in a flush sequence (RQF_FLUSH_SEQ): never merged
	flushSeq      uint8 // its steps done (flush.go)
}

type rqState uint8

const (
	rqFree     rqState = iota
	rqPlugged          // on a task's plug list
	rqQueued           // in the elevator
	rqInFlight         // issued to the device
	rqFlush            // waiting for a flush (flush.go)
)

// End returns the sector just past the request.
func (r *Request) end() uint64 { return r.Sector + uint64(r.Sectors) }

// Bytes returns the request's length in bytes.
func (r *Request) Bytes() int64 { return int64(r.Sectors) << SectorShift }

// Bios calls f for each bio in the request, in sector order.
func (r *Request) Bios(f func(*Bio)) {
	for b := r.bios; b != nil; b = b.next {
		f(b)
	}
}

// FirstBio returns the bio at the request's start sector.
func (r *Request) firstBio() *Bio { return r.bios }

// Mergeable reports whether anything may ever merge into the request.
func (r *Request) mergeable() bool {
	return r.Flags&noMergeFlags == 0 && !r.inFlush && (r.Op == OpRead || r.Op == OpWrite || r.Op == OpDiscard)
}

func (r *Request) reset() {
	*r = Request{}
}

func (r *Request) link() *links[Request] { return &r.elv }
