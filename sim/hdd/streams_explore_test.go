package hdd

import (
	"testing"

	"blkq"
	"blkq/sim"
)

func roundRobin(p Params, streams int, extent uint64, random bool, n int) float64 {
	l := sim.NewLoop()
	d := New(l, p)
	rng := sim.NewRNG(3).Split("streams")
	next := make([]uint64, streams)
	for i := range next {
		next[i] = uint64(i) * extent
	}
	k, done := 0, 0
	issue := func() {
		i := k % streams
		k++
		s := next[i]
		if random {
			s = uint64(i)*extent + rng.Uint64N(extent/8)*8
		} else {
			next[i] += 8
		}
		d.Issue(read(s, 8))
	}
	d.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			panic(err)
		}
		if done++; done < n {
			issue()
		}
	})
	issue()
	l.Run()
	return float64(n*4096) / float64(l.Now()) * 1e3
}

func TestExplore(t *testing.T) {
	for _, ext := range []uint64{64 << 20 >> 9, 1 << 30 >> 9, 100 << 30 >> 9} {
		for _, segs := range []int{1, 2, 3, 4, 8} {
			for _, ns := range []int{1, 2, 4, 5} {
				p := Params{CacheSegments: segs}
				seq := roundRobin(p, ns, ext, false, 20000)
				rnd := roundRobin(p, ns, ext, true, 20000)
				t.Logf("extent %4d MiB segs %d streams %d: seq %7.3f MB/s  rand %6.3f MB/s", ext>>11, segs, ns, seq, rnd)
			}
		}
	}
}
