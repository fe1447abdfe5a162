package iotrace

// What the kernel did with each queued bio, read back from its own trace:
// the oracle for blkq's merging.
//
// In Linux the merge decision is made synchronously in submit_bio, in the
// submitter's context, right after the Q event: the bio is either merged
// into a request already on the plug or in the scheduler (an M or F event
// for the same bio: same device, sector and size, same pid) or it gets a
// request of its own (a G event for the same bio). KernelMerges pairs each Q
// with the first such M, F or G that follows it. A Q left unpaired (the
// trace ends, the bio was split or remapped first, or a G is not traced)
// counts as not merged.

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/collect"
)

// Queued is one Q record of a blkparse or ftrace trace with what the kernel
// decided for it.
type Queued struct {
	// Record is the Q record exactly as the trace's Reader returns it.
	Record
	// Merge is 'M' when the kernel back-merged the bio into an existing
	// request, 'F' when it front-merged it, 0 when it did not merge it.
	Merge byte
	// MergeLine is the 1-based line of the M or F event; 0 when Merge is 0.
	MergeLine int
}

// Merged reports whether the kernel merged the bio (back or front).
func (q Queued) Merged() bool { return q.Merge != 0 }

// KernelMerges returns one Queued per Q event of events, in order: the i-th
// is the i-th record the format's Reader returns for the same input, with
// the kernel's merge decision attached. It costs O(len(events)).
func KernelMerges(events []Event) []Queued {
	type key struct {
		dev     string
		pid     int
		sector  uint64
		sectors uint32
	}
	pending := map[key]int{} // bio -> index in out of its unresolved Q
	var out []Queued
	for _, ev := range events {
		k := key{ev.Device, ev.PID, ev.Sector, ev.Sectors}
		switch ev.Action {
		case 'Q':
			pending[k] = len(out) // a newer Q of the same bio supersedes
			out = append(out, Queued{Record: ev.Record})
		case 'M', 'F':
			if i, ok := pending[k]; ok {
				out[i].Merge, out[i].MergeLine = ev.Action, ev.Line
				delete(pending, k)
			}
		case 'G':
			delete(pending, k)
		}
	}
	for i, r := range eventRecords(events) {
		out[i].Plug, out[i].Splits = r.Plug, r.Splits
	}
	return out
}

// ReadKernelMerges reads every event of r (format FormatBlkparse or
// FormatFtrace) and returns KernelMerges of them. On a malformed line it
// returns the Q records before it, paired as far as the events read allow,
// and the error.
func ReadKernelMerges(r io.Reader, name string, f Format) ([]Queued, error) {
	evs, err := ReadEvents(r, name, f)
	return KernelMerges(evs), err
}

// ReadKernelMergesFile is ReadKernelMerges of the trace file at path, in
// format f ("" to detect it). Only blkparse and ftrace traces carry the
// kernel's merges: another format is an error naming it. The Q records
// before a malformed line are returned with the error.
func ReadKernelMergesFile(path string, f Format) ([]Queued, error) {
	evs, err := ReadEventsFile(path, f)
	return KernelMerges(evs), err
}

// ReadEventsFile reads every event of the blkparse, ftrace or blktrace
// binary trace file at path, in format f ("" to detect it); another
// format is an error naming it. The events before a malformed line are returned with the error.
func ReadEventsFile(path string, f Format) ([]Event, error) {
	f, err := FileFormat(path, f)
	if err != nil {
		return nil, err
	}
	if f != FormatBlkparse && f != FormatFtrace && f != FormatBlktrace {
		return nil, fmt.Errorf("%s is a %s trace; only blktrace, blkparse and ftrace traces carry the kernel's merges", path, f)
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if f == FormatBlktrace {
		names := BlktraceNames(fh)
		if _, err := fh.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return collect.All(NewBlktraceEventReader(fh, path, names).Next)
	}
	return ReadEvents(fh, path, f)
}

// Dispatched is what the kernel issued to the driver: the D events of a
// trace.
type Dispatched struct {
	// Requests counts the D events, flush requests included.
	Requests int
	// Sectors is the sum of their sizes in 512-byte sectors (a flush has
	// none).
	Sectors uint64
}

// KernelDispatched sums the D events of events.
func KernelDispatched(events []Event) Dispatched {
	var d Dispatched
	for _, ev := range events {
		if ev.Action == 'D' {
			d.Requests++
			d.Sectors += uint64(ev.Sectors)
		}
	}
	return d
}

// MeanKiB is the mean request size in KiB: Sectors over Requests, flushes
// counted as requests of no bytes, as blkq's "avg request" counts them (0
// for no requests).
func (d Dispatched) MeanKiB() float64 {
	return float64(d.Sectors) / 2 / float64(max(d.Requests, 1))
}

// MergeAgreement compares, bio by bio, the kernel's merge decisions with a
// replay's: over the first Bios Q records of both, how many each merged,
// and on how many they agree (both merged, or neither). The Back and Front
// counts split the merges by kind (M and F): BothBack counts the bios both
// back-merged, BothFront those both front-merged.
type MergeAgreement struct {
	Bios, Kernel, Replay, Both, Neither int

	KernelBack, KernelFront, ReplayBack, ReplayFront, BothBack, BothFront int
}

// CompareMerges compares the kernel's decisions (ReadKernelMerges) with a
// replay's: ours[i] is 'F' when the replay front-merged the i-th record's
// bio, 0 when it did not merge it, and any other value ('M') when it
// back-merged it.
func CompareMerges(kernel []Queued, ours []byte) MergeAgreement {
	a := MergeAgreement{Bios: min(len(kernel), len(ours))}
	for i := range a.Bios {
		km, bm := kernel[i].Merge, ours[i]
		if bm != 0 && bm != 'F' {
			bm = 'M'
		}
		switch {
		case km != 0 && bm != 0:
			a.Both++
		case km == 0 && bm == 0:
			a.Neither++
		}
		switch km {
		case 'M':
			a.Kernel++
			a.KernelBack++
		case 'F':
			a.Kernel++
			a.KernelFront++
		}
		switch bm {
		case 'M':
			a.Replay++
			a.ReplayBack++
		case 'F':
			a.Replay++
			a.ReplayFront++
		}
		switch {
		case km == 'M' && bm == 'M':
			a.BothBack++
		case km == 'F' && bm == 'F':
			a.BothFront++
		}
	}
	return a
}

// Percent is the share of bios on which the two agree, in percent (0 for
// no bios).
func (a MergeAgreement) Percent() float64 {
	return 100 * float64(a.Both+a.Neither) / float64(max(a.Bios, 1))
}

// Served is one request the kernel issued and completed: its D event's
// op and range, and the time from that D to its C.
type Served struct {
	Op      blkq.Op
	Sector  uint64
	Sectors uint32
	D2C     time.Duration
}

// KernelServiceTimes pairs the D and C events of events, request by
// request (same device, op and range; each C with the earliest D not yet
// completed), and returns one Served per completed D, in the order of the
// D events. A D without a C (the trace ended first) is left out, and so is
// a C without a D (a bio's own completion, "C WS 0 [0]" after a flush).
func KernelServiceTimes(events []Event) []Served {
	type key struct {
		dev     string
		op      blkq.Op
		sector  uint64
		sectors uint32
	}
	type issued struct {
		at  time.Duration
		idx int
	}
	open := map[key][]issued{}
	var out []Served
	done := []bool{}
	for _, ev := range events {
		k := key{ev.Device, ev.Op, ev.Sector, ev.Sectors}
		switch ev.Action {
		case 'D':
			open[k] = append(open[k], issued{ev.Time, len(out)})
			out = append(out, Served{Op: ev.Op, Sector: ev.Sector, Sectors: ev.Sectors})
			done = append(done, false)
		case 'C':
			if q := open[k]; len(q) > 0 {
				out[q[0].idx].D2C = ev.Time - q[0].at
				done[q[0].idx] = true
				open[k] = q[1:]
			}
		}
	}
	kept := out[:0]
	for i, s := range out {
		if done[i] {
			kept = append(kept, s)
		}
	}
	return kept
}
