package iotrace

// Event for event: how far a replay's merges, splits and dispatches agree
// with the kernel's own, from the kernel's trace and the replay's event
// stream. Each side is a multiset of events, each an action (M, F, X or
// D), an op and a range, as the trace prints them: a bio merged at the
// back (M) or front (F) by its range; a request merged into another at
// insert time by the range of the one merged away (an M too); a split (X)
// by the piece split off; a dispatch (D) by the request. Two events agree
// when they are the same on both sides; agreement is the share of the
// events of either side that the other has too: matched / (kernel +
// replay − matched). Order and timing do not count, so a replay that
// dispatches the same requests in another order agrees on every D.

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/blkq-dev/blkq"
)

// ComparedActions are the actions CompareEvents compares, in order.
const ComparedActions = "MFXD"

// EventKey is an event as the comparison sees it.
type EventKey struct {
	Action  byte
	Op      blkq.Op
	Sector  uint64
	Sectors uint32
}

func (k EventKey) String() string {
	return fmt.Sprintf("%c %v %d+%d", k.Action, k.Op, k.Sector, k.Sectors)
}

// KernelEventKeys returns the keys of the M, F, X and D events of events,
// in order.
func KernelEventKeys(events []Event) []EventKey {
	var out []EventKey
	for _, ev := range events {
		if strings.IndexByte(ComparedActions, ev.Action) >= 0 {
			out = append(out, EventKey{ev.Action, ev.Op, ev.Sector, ev.Sectors})
		}
	}
	return out
}

// EventAgreement is the comparison of one action's events (Action 0: all
// of them).
type EventAgreement struct {
	Action         byte
	Kernel, Replay int // events on each side
	Both           int // events on both
}

// Percent is the agreement in percent: 100 when neither side has any.
func (a EventAgreement) Percent() float64 {
	union := a.Kernel + a.Replay - a.Both
	if union == 0 {
		return 100
	}
	return 100 * float64(a.Both) / float64(union)
}

// Missing is the number of events one side has and the other not.
func (a EventAgreement) Missing() int { return a.Kernel + a.Replay - 2*a.Both }

// CompareEvents compares the kernel's events with a replay's, action by
// action (ComparedActions' order), and in all.
func CompareEvents(kernel, replay []EventKey) (per []EventAgreement, all EventAgreement) {
	left := map[EventKey]int{}
	for _, k := range kernel {
		left[k]++
	}
	for _, c := range []byte(ComparedActions) {
		per = append(per, EventAgreement{Action: c})
	}
	at := func(a byte) *EventAgreement { return &per[strings.IndexByte(ComparedActions, a)] }
	for _, k := range kernel {
		if strings.IndexByte(ComparedActions, k.Action) >= 0 {
			at(k.Action).Kernel++
		}
	}
	for _, k := range replay {
		if strings.IndexByte(ComparedActions, k.Action) < 0 {
			continue
		}
		a := at(k.Action)
		a.Replay++
		if left[k] > 0 {
			left[k]--
			a.Both++
		}
	}
	for _, a := range per {
		all.Kernel += a.Kernel
		all.Replay += a.Replay
		all.Both += a.Both
	}
	return per, all
}

// SizeHistogram counts requests by size in power-of-two KiB buckets:
// bucket 0 holds requests of no data (flushes), bucket i > 0 those of
// more than 2^(i-2) and at most 2^(i-1) KiB (1: up to 1 KiB, 2: up to 2,
// 3: up to 4 KiB, ...).
type SizeHistogram []int

// Add counts a request of sectors.
func (h *SizeHistogram) Add(sectors uint32) {
	b := 0
	if sectors > 0 {
		kib := (uint64(sectors) + 1) / 2 // rounded up
		b = 1 + bits.Len64(kib-1)
	}
	for len(*h) <= b {
		*h = append(*h, 0)
	}
	(*h)[b]++
}

// Equal reports whether h and o count the same.
func (h SizeHistogram) Equal(o SizeHistogram) bool {
	for i := range max(len(h), len(o)) {
		if h.at(i) != o.at(i) {
			return false
		}
	}
	return true
}

func (h SizeHistogram) at(i int) int {
	if i < len(h) {
		return h[i]
	}
	return 0
}

// String lists the buckets that hold requests: "4K:569 8K:12 128K:19".
func (h SizeHistogram) String() string {
	var parts []string
	for i, n := range h {
		if n == 0 {
			continue
		}
		label := "0"
		if i > 0 {
			label = fmt.Sprintf("%dK", 1<<(i-1))
			if i > 11 {
				label = fmt.Sprintf("%dM", 1<<(i-11))
			}
		}
		parts = append(parts, fmt.Sprintf("%s:%d", label, n))
	}
	return strings.Join(parts, " ")
}

// DispatchSizes returns the histogram of the D events among keys.
func DispatchSizes(keys []EventKey) SizeHistogram {
	var h SizeHistogram
	for _, k := range keys {
		if k.Action == 'D' {
			h.Add(k.Sectors)
		}
	}
	return h
}
