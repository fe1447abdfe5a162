// Package blkq is the Linux block request layer rebuilt in user space: bios
// come in, are merged into requests, wait for a free request when the pool
// (nr_requests) is exhausted, are ordered by an elevator and dispatched to a
// device at its queue depth; completions flow back and end every bio exactly
// once.
//
// # Using it
//
// New puts a Queue in front of a Device (a file, a null device, a
// simulated disk) driven by a Clock: NewRealClock for real files and
// goroutines, a virtual clock (package sim) for deterministic simulation.
// The zero Config is Linux's defaults: mq-deadline (Linux's default
// scheduler for a single-queue device), 128 requests per direction,
// 1280 KiB requests, the 2.4.18 "fair" allocation rules. The schedulers
// none, mq-deadline and the 2.4 linus elevator are built in; choose one by
// name (Config.Scheduler, or the "scheduler" tunable under load).
//
// Goroutines use the blocking calls: ReadAt and WriteAt (io.ReaderAt and
// io.WriterAt), Flush, and Submit for a Bio of their own (it blocks only
// while no request is free; Bio.EndIO reports the completion; WithTask
// makes several calls one submitter, sharing a Plug).
//
// Event-loop programs use Enqueue, which never blocks: a Task that must
// sleep for a request stops, and the queue calls its Wake when it may go
// on.
//
// Tunables are read and written by their Linux names with Attr and
// SetAttr ("nr_requests", "nomerges", "iosched/fifo_batch", ...), with
// Linux's parsing and bounds, while I/O runs.
//
// # One event stream
//
// Every transition of a bio or request is an Event (Q, X, M, F, S, W, G, P,
// U, I, D, C) given to the Tracers added with AddTracer, under the
// queue's lock and in order. Everything blkq reports is computed from
// that stream and nothing else: DiskStats (/sys/block/<dev>/stat), the
// blktrace writer and btt metrics (package trace), the per-job sleeps,
// wake-ups and dropped read-aheads (package engine). Hold times of the
// queue lock are measured by a Config.LockHook (package lockstat), so the
// core itself imports only the standard library.
//
// The Queue is a state machine that never blocks and never reads the wall
// clock itself; callbacks (EndIO, Wake, timers) run after its lock is
// released. Sizes and positions are in 512-byte sectors unless a name says
// bytes.
package blkq

import "fmt"

// SectorSize is the unit of Bio.Sector and Bio.Sectors: 512 bytes, as in Linux.
const SectorSize = 512

// SectorShift is log2(SectorSize).
const SectorShift = 9

// Time is a point in a Clock's time line, in nanoseconds since the clock's
// start. Virtual and wall clocks use the same unit.
type Time int64

// Op is the operation of a bio or request.
type Op uint8

// The operations blkq models. Read and write carry data; flush asks the
// device to make earlier writes durable (fdatasync on a file); discard
// deallocates a range (a trim).
const (
	OpRead Op = iota
	OpWrite
	OpFlush
	OpDiscard
	nrOps
)

func (o Op) String() string {
	switch o {
	case OpRead:
		return "read"
	case OpWrite:
		return "write"
	case OpFlush:
		return "flush"
	case OpDiscard:
		return "discard"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// direction is a request-allocation direction: Linux 2.4 keeps separate free
// lists and wait queues for reads and for everything else.
type direction uint8

// The two allocation directions.
const (
	dirRead direction = iota
	dirWrite
)

func (d direction) String() string {
	if d == dirRead {
		return "read"
	}
	return "write"
}

// dir returns the allocation direction of the op: reads use the read pool,
// writes, flushes and discards the write pool.
func (o Op) dir() direction {
	if o == OpRead {
		return dirRead
	}
	return dirWrite
}

// Flags modify a bio (Linux REQ_* flags).
type Flags uint16

// Bio flags. FlagSync and FlagMeta only change accounting and the trace's
// RWBS column; FlagReadAhead makes allocation fail rather than sleep under
// pressure; FlagFUA, FlagPreflush and FlagNoMerge forbid merging.
const (
	FlagSync      Flags = 1 << iota // REQ_SYNC
	FlagMeta                        // REQ_META
	FlagReadAhead                   // REQ_RAHEAD: may be dropped under request pressure
	FlagFUA                         // REQ_FUA: forced unit access
	FlagPreflush                    // REQ_PREFLUSH: flush the cache before this write
	FlagNoMerge                     // REQ_NOMERGE
)

// noMergeFlags are the flags that make a bio or request unmergeable
// (REQ_NOMERGE_FLAGS in Linux).
const noMergeFlags = FlagNoMerge | FlagPreflush | FlagFUA

func (f Flags) String() string {
	s := ""
	for i, n := range []string{"sync", "meta", "ra", "fua", "preflush", "nomerge"} {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += n
		}
	}
	return s
}
