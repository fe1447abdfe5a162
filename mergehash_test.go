package blkq

import (
	"math/rand/v2"
	"testing"
)

// TestMergeHashAgainstMapOfLists drives the table and the structure it
// replaced (a map from end sector to a list, newest first) with the same
// random adds, deletes and lookups, across several doublings, and wants
// the same answer from every lookup: the newest request of the op ending
// at the sector (find), and the newest of any op (first).
func TestMergeHashAgainstMapOfLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var h mergeHash
	ref := map[uint64][]*Request{} // newest first
	var on []*Request
	for step := range 20000 {
		switch k := rng.IntN(10); {
		case k < 5 || len(on) == 0: // add; few distinct ends, so ends collide
			rq := &Request{Op: Op(rng.IntN(2)), Sector: uint64(rng.IntN(300)) * 8, Sectors: 8 * uint32(1+rng.IntN(3))}
			h.add(rq)
			ref[rq.end()] = append([]*Request{rq}, ref[rq.end()]...)
			on = append(on, rq)
		case k < 8: // delete one
			i := rng.IntN(len(on))
			rq := on[i]
			on[i] = on[len(on)-1]
			on = on[:len(on)-1]
			h.del(rq)
			l := ref[rq.end()]
			for j := range l {
				if l[j] == rq {
					ref[rq.end()] = append(l[:j:j], l[j+1:]...)
					break
				}
			}
		default: // look up
			sector, op := uint64(rng.IntN(310))*8, Op(rng.IntN(2))
			var want *Request
			for _, rq := range ref[sector] {
				if rq.Op == op {
					want = rq
					break
				}
			}
			if got := h.find(sector, op); got != want {
				t.Fatalf("step %d: find(%d, %v) = %p, want %p", step, sector, op, got, want)
			}
			var newest *Request
			if l := ref[sector]; len(l) > 0 {
				newest = l[0]
			}
			if got := h.first(sector); got != newest {
				t.Fatalf("step %d: first(%d) = %p, want %p", step, sector, got, newest)
			}
		}
		if h.len() != len(on) {
			t.Fatalf("step %d: len %d, want %d", step, h.len(), len(on))
		}
	}
	if len(h.buckets) < 512 {
		t.Fatalf("%d buckets for up to %d requests: the table did not grow", len(h.buckets), len(on))
	}
	n := 0
	h.each(func(rq *Request, in, want uint64) bool {
		n++
		if in != want {
			t.Errorf("request %d+%d in bucket %d, belongs in %d", rq.Sector, rq.Sectors, in, want)
		}
		return true
	})
	if n != len(on) {
		t.Errorf("each saw %d requests, %d are on the table", n, len(on))
	}
}

// TestMergeHashGrowKeepsNewestFirst: requests with one end sector are
// found newest first, before and after the table doubles.
func TestMergeHashGrowKeepsNewestFirst(t *testing.T) {
	var h mergeHash
	a := &Request{Op: OpWrite, Sector: 0, Sectors: 16}
	b := &Request{Op: OpWrite, Sector: 8, Sectors: 8}
	h.add(a)
	h.add(b)
	if got := h.find(16, OpWrite); got != b {
		t.Fatalf("before growing: found %+v, want the newer request", got)
	}
	size := len(h.buckets)
	for i := range 2 * size {
		h.add(&Request{Op: OpRead, Sector: uint64(i+10) * 8, Sectors: 8})
	}
	if len(h.buckets) <= size {
		t.Fatalf("%d buckets after %d adds to %d", len(h.buckets), 2*size, size)
	}
	if got := h.find(16, OpWrite); got != b {
		t.Fatalf("after growing: found %+v, want the newer request", got)
	}
	h.del(b)
	if got := h.find(16, OpWrite); got != a {
		t.Fatalf("after deleting the newer: found %+v, want the older", got)
	}
	if got := h.find(16, OpRead); got != nil {
		t.Fatalf("a read ending at 16: found %+v, want none", got)
	}
}

func TestMergeHashNoAllocationsOnceGrown(t *testing.T) {
	var h mergeHash
	rqs := make([]Request, 128)
	for i := range rqs {
		rqs[i] = Request{Op: OpRead, Sector: uint64(i) * 8, Sectors: 8}
		h.add(&rqs[i])
	}
	a := testing.AllocsPerRun(100, func() {
		for i := range rqs {
			h.del(&rqs[i])
		}
		for i := range rqs {
			h.add(&rqs[i])
		}
	})
	if a != 0 {
		t.Fatalf("%.1f allocations per round of 128 deletes and adds", a)
	}
}
