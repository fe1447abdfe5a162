package engine

import (
	"math/rand/v2"
	"testing"
)

// TestVerifyHistoryMatchesMap checks the history queue and its index by
// offset against the model they replaced: pieces by pointer in a slice, a
// map by offset whose earlier piece a write marks dead. Offsets are drawn
// so that some fall outside the table (unaligned, below or past its range)
// and go to the map.
func TestVerifyHistoryMatchesMap(t *testing.T) {
	type mpiece struct {
		vpiece
		dead bool
	}
	for _, tc := range []struct{ lo, hi, unit, expect int64 }{
		{0, 64 << 10, 4096, 16}, {8192, 1 << 20, 512, 0}, {0, 1 << 40, 4096, 10}, {0, 3 * 5000, 3000, 5},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.unit), uint64(tc.hi)))
		var h vhistory
		l := newVLatest(tc.lo, tc.hi, tc.unit, tc.expect)
		var model []*mpiece
		byOff := map[int64]*mpiece{}
		for step := range 200000 {
			if rng.IntN(3) > 0 {
				off := tc.lo + rng.Int64N(20)*tc.unit
				switch rng.IntN(10) {
				case 0:
					off++ // unaligned
				case 1:
					off = tc.hi + rng.Int64N(4)*tc.unit // past the range
				}
				p := vpiece{off: off, length: tc.unit << rng.IntN(3), seed: rng.Uint64(), numberio: uint16(step)}
				if old := byOff[off]; old != nil {
					old.dead = true
				}
				m := &mpiece{vpiece: p}
				byOff[off] = m
				model = append(model, m)
				l.set(p.off, h.push(packPiece(&p)))
				continue
			}
			var want *vpiece
			for len(model) > 0 {
				m := model[0]
				model = model[1:]
				if !m.dead {
					delete(byOff, m.off)
					want = &m.vpiece
					break
				}
			}
			var got *vpiece
			for {
				r, seq, ok := h.take()
				if !ok {
					break
				}
				if l.latest(r.off, seq) {
					p := r.piece()
					got = &p
					break
				}
			}
			if (got == nil) != (want == nil) || got != nil && *got != *want {
				t.Fatalf("range %+v, step %d: took %+v, want %+v", tc, step, got, want)
			}
			if h.len() != len(model) {
				t.Fatalf("range %+v, step %d: %d queued, want %d", tc, step, h.len(), len(model))
			}
		}
	}
}
