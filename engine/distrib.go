package engine

import (
	"math"
	"math/rand/v2"

	"github.com/blkq-dev/blkq/workload/fio"
)

// Non-uniform random offsets: random_distribution's zipf, pareto and
// normal, drawn over a region's blocks as fio 3.33 draws them. Each draws
// a rank (0 the most likely) and scatters the ranks over the region with
// a multiplicative hash plus an offset (the center, or a random one), so
// the hot blocks are not all at the start; the frequency of the hottest
// block, and the shape of the frequencies, are the distribution's. The
// zoned forms live in the generator (gen.go): they are uniform within a
// zone. fio turns the random map off for all of them: blocks repeat.

// zipfTerms caps the terms of zipf's normalising sum, as fio caps it at
// ten million (the sum converges; the rest changes little).
const zipfTerms = 10_000_000

// hashGolden is 2^64 divided by the golden ratio, the usual constant of
// multiplicative (Fibonacci) hashing.
const hashGolden = 0x9e3779b97f4a7c15

// skewed draws blocks of a region from a zipf, pareto or normal law.
type skewed struct {
	kind    string
	n       uint64  // blocks
	theta   float64 // zipf's θ
	zetan   float64 // zipf: Σ_{i≤n} i^-θ
	zeta2   float64 // zipf: 1 + 2^-θ
	pow     float64 // pareto: log(h)/log(1-h)
	stddev  uint64  // normal: the spread added to the mean of 12 draws, blocks
	offset  uint64  // where rank 0 lands
	noHash  bool    // ranks in order from offset, unscattered (file_service_type's laws, as fio's)
	uniform func() float64
	draw32  func() uint32
}

// newSkewed prepares d over n blocks, drawing from rng.
func newSkewed(d fio.Distribution, n uint64, rng *rand.Rand) *skewed {
	s := &skewed{kind: d.Kind, n: n, uniform: func() float64 { return float64(rng.Uint32()) / math.MaxUint32 }, draw32: rng.Uint32}
	s.offset = uint64(rng.Uint32())
	if d.Center >= 0 {
		s.offset = uint64(float64(n) * d.Center)
	}
	switch d.Kind {
	case "zipf":
		s.theta = d.Param
		s.zeta2 = 1 + math.Pow(0.5, s.theta)
		for i := range min(n, zipfTerms) {
			s.zetan += math.Pow(1/float64(i+1), s.theta)
		}
	case "pareto":
		s.pow = math.Log(d.Param) / math.Log(1-d.Param)
	case "normal":
		if d.Param > 0 {
			s.stddev = min(uint64(math.Ceil(float64(n)*d.Param/100)), n/2)
		}
		// fio centres the bell at center-0.5 of the way in (0 without one).
		s.offset = 0
		if d.Center >= 0 {
			s.offset = uint64(float64(n) * (d.Center - 0.5))
		}
	}
	return s
}

// next returns a block in [0, n).
func (s *skewed) next() uint64 {
	var rank uint64
	switch s.kind {
	case "zipf":
		rank = s.zipfRank()
	case "pareto":
		rank = uint64(float64(s.n-1) * math.Pow(s.uniform(), s.pow))
	case "normal":
		rank = s.normalRank()
	}
	if s.noHash {
		return (rank + s.offset) % s.n
	}
	return (rank*hashGolden + s.offset) % s.n
}

// zipfRank is Gray et al.'s approximate zipf draw ("Quickly generating
// billion-record synthetic databases", SIGMOD 1994), fio's method.
func (s *skewed) zipfRank() uint64 {
	n := float64(s.n)
	alpha := 1 / (1 - s.theta)
	eta := (1 - math.Pow(2/n, 1-s.theta)) / (1 - s.zeta2/s.zetan)
	u := s.uniform()
	z := u * s.zetan
	switch {
	case z < 1:
		return 0
	case z < 1+math.Pow(0.5, s.theta):
		return 1
	}
	return min(uint64(n*math.Pow(eta*u-eta+1, alpha)), s.n-1)
}

// normalRank is the mean of twelve uniform draws over [0, n] (a bell of
// standard deviation n/12), widened by a uniform term of ±stddev/2 that
// is halved until it keeps the rank inside the region (a zero term ends
// the halving, where fio's loop would spin).
func (s *skewed) normalRank() uint64 {
	var sum uint64
	for range 12 {
		sum += uint64(s.draw32()) % (s.n + 1)
	}
	sum = (sum + 11) / 12
	if s.stddev > 0 {
		dev := int64(float64(s.stddev)*(float64(s.draw32())/(1<<32))) - int64(s.stddev/2)
		for dev != 0 && dev+int64(sum) >= int64(s.n) {
			dev /= 2
		}
		sum = uint64(max(int64(sum)+dev, 0))
	}
	return min(sum, s.n-1) // twelve draws of n: the one sum past the last block
}
