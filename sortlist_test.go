package blkq

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortListAgainstSlice drives a sortList and a plain slice kept in
// sector order (ties in insertion order, as the elevators' lists were)
// with the same random adds, deletes and front merges (a request's
// sector moving down, then moved), and wants the same order after every
// step and the same answers from fromPos, frontOf and neighbours.
func TestSortListAgainstSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var l sortList
	var ref []*Request
	refAdd := func(rq *Request) {
		i := len(ref)
		for i > 0 && ref[i-1].Sector > rq.Sector {
			i--
		}
		ref = slices.Insert(ref, i, rq)
	}
	refDel := func(rq *Request) { ref = slices.DeleteFunc(ref, func(r *Request) bool { return r == rq }) }
	for step := range 20000 {
		switch k := rng.IntN(10); {
		case k < 4 || len(ref) == 0:
			rq := &Request{Op: Op(rng.IntN(2)), Sector: uint64(rng.IntN(200)) * 8, Sectors: 8}
			l.add(rq)
			refAdd(rq)
		case k < 7:
			rq := ref[rng.IntN(len(ref))]
			l.del(rq)
			refDel(rq)
		default: // a front merge: the start moves down
			rq := ref[rng.IntN(len(ref))]
			d := uint64(rng.IntN(4)) * 8
			if d > rq.Sector {
				d = rq.Sector
			}
			rq.Sector -= d
			l.moved(rq)
			refDel(rq)
			refAdd(rq)
		}
		if !slices.Equal(l.rqs, ref) {
			t.Fatalf("step %d: order differs", step)
		}
		for i, rq := range l.rqs {
			if l.keys[i] != rq.Sector {
				t.Fatalf("step %d: key %d for a request at %d", step, l.keys[i], rq.Sector)
			}
		}
		pos, op := uint64(rng.IntN(210))*8, Op(rng.IntN(2))
		var from, front *Request
		for _, rq := range ref {
			if rq.Sector >= pos {
				if from == nil {
					from = rq
				}
				if rq.Sector == pos && rq.Op == op && front == nil {
					front = rq
				}
			}
		}
		if got := l.fromPos(pos); got != from {
			t.Fatalf("step %d: fromPos(%d) differs", step, pos)
		}
		if got := l.frontOf(pos, op); got != front {
			t.Fatalf("step %d: frontOf(%d, %v) differs", step, pos, op)
		}
		if len(ref) > 0 {
			i := rng.IntN(len(ref))
			var before, after *Request
			if i > 0 {
				before = ref[i-1]
			}
			if i+1 < len(ref) {
				after = ref[i+1]
			}
			if b, a := l.neighbours(ref[i]); b != before || a != after {
				t.Fatalf("step %d: neighbours of %d differ", step, i)
			}
		}
	}
}
