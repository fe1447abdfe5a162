package report

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/blkq-dev/blkq/internal/satmath"
)

// Histogram range and precision of a [Latency].
const (
	// LatencyLowest is the lowest discernible latency, in ns.
	LatencyLowest int64 = 1
	// LatencyHighest is the highest latency the histogram tracks, in ns
	// (one hour). Larger values are recorded in the histogram as this value;
	// Min, Max, Mean and Stddev still see the true value.
	LatencyHighest int64 = 3600 * 1000 * 1000 * 1000
	// LatencySigFigs is the number of significant decimal digits the
	// histogram keeps, so percentiles are accurate to 0.1%.
	LatencySigFigs = 3
)

// fioPercentiles is fio's default percentile list, in percent.
var fioPercentiles = [...]float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// Percentiles is fio's default percentile list, in percent, in the order fio
// prints it (the "clat percentiles" block and the JSON "percentile" keys).
// It is a copy: changing it does not change the reports.
var Percentiles = append([]float64(nil), fioPercentiles[:]...)

// Bucket bounds used by Latency; the exported arrays below are copies.
var (
	latBoundsNs = [10]int64{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000}
	latBoundsMs = [11]int64{2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000}
)

// Latency bucket upper bounds (exclusive) of fio's latency distribution
// lines ("lat (usec)   : 750=28.52%, ...") and the JSON latency_ns,
// latency_us and latency_ms maps. A latency below 1000 ns lands in a ns
// bucket, one below 1000 us in a us bucket (using whole microseconds), any
// other in a ms bucket (whole milliseconds); the last ms bucket, ">=2000",
// has no upper bound. They are copies: changing them does not change the
// reports.
var (
	// LatBucketsNs are the ns bucket labels: [0,2), [2,4), ..., [750,1000) ns.
	LatBucketsNs = latBoundsNs
	// LatBucketsUs are the us bucket labels: [1,2), [2,4), ..., [750,1000) us.
	LatBucketsUs = latBoundsNs
	// LatBucketsMs are the ms bucket labels; the 12th bucket is ">=2000" ms.
	LatBucketsMs = latBoundsMs
)

// Latency is a distribution of latencies in nanoseconds.
//
// Count, Min, Max, Mean, Stddev and Total are exact (running sums); Percentile
// comes from an HdrHistogram (1 ns .. 1 hour, 3 significant digits, about
// 270 KB) that is allocated on the first Record, so an unused Latency costs
// almost nothing. The reports print [Latency.FioPercentiles] instead, from a
// copy of fio's own histogram (15 KB, plat.go), because fio prints bin
// values, not exact ones.
// Latency also keeps the per-I/O counts of fio's latency buckets
// (see [LatBucketsNs]).
//
// The zero value is an empty distribution ready to use. A Latency is not safe
// for concurrent use.
type Latency struct {
	h       *hdrhistogram.Histogram
	n       int64
	min     int64
	max     int64
	total   int64
	mean    float64
	m2      float64 // sum of squared deviations from the mean
	buckets [32]uint64
	plat    *platHist // fio's histogram (plat.go), allocated on the first Record
}

// NewLatency returns an empty Latency (the same as new(Latency)).
func NewLatency() *Latency { return &Latency{} }

// Record adds one latency of ns nanoseconds. Negative values are recorded
// as 0.
func (l *Latency) Record(ns int64) { l.RecordN(ns, 1) }

// RecordN adds n latencies of ns nanoseconds each. n <= 0 records nothing;
// negative ns are recorded as 0.
func (l *Latency) RecordN(ns int64, n int64) {
	if n <= 0 {
		return
	}
	if ns < 0 {
		ns = 0
	}
	if l.h == nil {
		l.h = hdrhistogram.New(LatencyLowest, LatencyHighest, LatencySigFigs)
	}
	hv := ns
	if hv > LatencyHighest {
		hv = LatencyHighest
	}
	_ = l.h.RecordValues(hv, n) // in range by construction
	l.recordPlat(ns, n)
	l.merge(n, ns, ns, satmath.Mul(ns, n), float64(ns), 0)
	l.buckets[latBucket(ns)] += uint64(n)
}

// merge folds a summary (count, min, max, total, mean, m2) into l using the
// parallel form of Welford's algorithm.
func (l *Latency) merge(n, mn, mx, total int64, mean, m2 float64) {
	if n <= 0 {
		return
	}
	if l.n == 0 {
		l.n, l.min, l.max, l.total, l.mean, l.m2 = n, mn, mx, total, mean, m2
		return
	}
	if mn < l.min {
		l.min = mn
	}
	if mx > l.max {
		l.max = mx
	}
	l.total = satmath.Add(l.total, total)
	na, nb := float64(l.n), float64(n)
	nt := na + nb
	delta := mean - l.mean
	l.mean += delta * nb / nt
	l.m2 += m2 + delta*delta*na*nb/nt
	l.n += n
}

// Merge adds every latency recorded in o to l. o is not changed; a nil o
// adds nothing; l.Merge(l) doubles every count.
func (l *Latency) Merge(o *Latency) {
	if o == nil || o.n == 0 {
		return
	}
	if o == l {
		c := l.clone()
		o = c
	}
	if l.h == nil {
		l.h = hdrhistogram.New(LatencyLowest, LatencyHighest, LatencySigFigs)
	}
	if o.h != nil {
		l.h.Merge(o.h)
	}
	l.mergePlat(o)
	l.merge(o.n, o.min, o.max, o.total, o.mean, o.m2)
	for i, c := range o.buckets {
		l.buckets[i] += c
	}
}

// Clone returns a deep copy of l: recording into either afterwards does
// not change the other.
func (l *Latency) Clone() *Latency { return l.clone() }

// clone returns a deep copy of l.
func (l *Latency) clone() *Latency {
	c := *l
	if l.h != nil {
		c.h = l.h.Clone()
	}
	if l.plat != nil {
		p := *l.plat
		c.plat = &p
	}
	return &c
}

// Count returns the number of latencies recorded. It is 0 for a nil Latency,
// as are all the other statistics.
func (l *Latency) Count() int64 {
	if l == nil {
		return 0
	}
	return l.n
}

// Min returns the smallest latency recorded, in ns (exact).
func (l *Latency) Min() int64 {
	if l == nil {
		return 0
	}
	return l.min
}

// Max returns the largest latency recorded, in ns (exact).
func (l *Latency) Max() int64 {
	if l == nil {
		return 0
	}
	return l.max
}

// Total returns the sum of all latencies recorded, in ns (saturating at
// math.MaxInt64).
func (l *Latency) Total() int64 {
	if l == nil {
		return 0
	}
	return l.total
}

// Mean returns the mean latency in ns.
func (l *Latency) Mean() float64 {
	if l == nil {
		return 0
	}
	return l.mean
}

// Stddev returns the sample standard deviation (n-1 denominator, as fio
// prints it) in ns; 0 for fewer than two latencies.
func (l *Latency) Stddev() float64 {
	if l == nil || l.n < 2 {
		return 0
	}
	v := l.m2 / float64(l.n-1)
	if v <= 0 || math.IsNaN(v) {
		return 0
	}
	return math.Sqrt(v)
}

// Percentile returns the latency in ns at or below which p percent of the
// recorded latencies fall (p in 0..100), accurate to 3 significant digits
// and clamped to the exact [Min, Max]. It returns 0 for an empty Latency.
func (l *Latency) Percentile(p float64) int64 {
	if l == nil || l.n == 0 || l.h == nil {
		return 0
	}
	v := l.h.ValueAtPercentile(p)
	if v < l.min {
		v = l.min
	}
	if v > l.max {
		v = l.max
	}
	return v
}

// Buckets returns how many latencies fell into each of fio's latency
// buckets: ns buckets per [LatBucketsNs], us buckets per [LatBucketsUs] and
// ms buckets per [LatBucketsMs] (the last ms count is ">=2000" ms).
func (l *Latency) Buckets() (ns [10]uint64, us [10]uint64, ms [12]uint64) {
	if l == nil {
		return
	}
	copy(ns[:], l.buckets[0:10])
	copy(us[:], l.buckets[10:20])
	copy(ms[:], l.buckets[20:32])
	return
}

// latBucket returns the index into Latency.buckets for a latency in ns.
func latBucket(ns int64) int {
	switch {
	case ns < 1000:
		return bucketIndex(ns, latBoundsNs[:])
	case ns < 1000*1000:
		return 10 + bucketIndex(ns/1000, latBoundsNs[:])
	default:
		return 20 + bucketIndex(ns/(1000*1000), latBoundsMs[:])
	}
}

// bucketIndex returns the first i with v < bounds[i], or len(bounds).
func bucketIndex(v int64, bounds []int64) int {
	for i, b := range bounds {
		if v < b {
			return i
		}
	}
	return len(bounds)
}

// PercentAbove returns the percentage of recorded values above ns (found
// by bisecting Percentile, so as exact as the histogram's resolution).
func (l *Latency) PercentAbove(ns int64) float64 {
	if l.Count() == 0 || l.Max() <= ns {
		return 0
	}
	lo, hi := 0.0, 100.0
	for range 50 {
		mid := (lo + hi) / 2
		if l.Percentile(mid) > ns {
			hi = mid
		} else {
			lo = mid
		}
	}
	return 100 - hi
}

// Samples summarises periodic samples of a rate: fio's bandwidth (KiB/s)
// and IOPS (operations/s) samples, one per 500 ms window of a job's run.
// The zero value is empty and ready to use. Samples is not safe for
// concurrent use.
type Samples struct {
	n    int64
	min  float64
	max  float64
	mean float64
	m2   float64
}

// Add records one sample (KiB/s for bandwidth, operations/s for IOPS).
// NaN and infinite values are ignored.
func (s *Samples) Add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	s.n++
	if s.n == 1 {
		s.min, s.max, s.mean, s.m2 = v, v, v, 0
		return
	}
	if v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
	d := v - s.mean
	s.mean += d / float64(s.n)
	s.m2 += d * (v - s.mean)
}

// AddN records k samples of the same value v in O(1) (Chan's merge of
// running statistics), e.g. the zero-rate windows of a long idle stretch.
func (s *Samples) AddN(v float64, k int64) {
	if k <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if s.n == 0 {
		s.n, s.min, s.max, s.mean, s.m2 = k, v, v, v, 0
		return
	}
	s.min, s.max = min(s.min, v), max(s.max, v)
	n := s.n + k
	d := v - s.mean
	s.mean += d * float64(k) / float64(n)
	s.m2 += d * d * float64(s.n) * float64(k) / float64(n)
	s.n = n
}

// N returns the number of samples.
func (s *Samples) N() int64 { return s.n }

// Min returns the smallest sample, 0 when there is none.
func (s *Samples) Min() float64 { return s.min }

// Max returns the largest sample, 0 when there is none.
func (s *Samples) Max() float64 { return s.max }

// Mean returns the mean of the samples, 0 when there is none.
func (s *Samples) Mean() float64 { return s.mean }

// Stddev returns the sample standard deviation (n-1 denominator), 0 for
// fewer than two samples.
func (s *Samples) Stddev() float64 {
	if s.n < 2 || s.m2 <= 0 {
		return 0
	}
	return math.Sqrt(s.m2 / float64(s.n-1))
}

// addSum folds o into s the way fio combines the bandwidth and IOPS samples
// of the jobs of a group under group_reporting: the jobs run side by side,
// so minimum, maximum and mean add up (the group's rate is the sum of the
// jobs' rates), the sums of squared deviations add up and so do the sample
// counts.
func (s *Samples) addSum(o *Samples) {
	if o.n == 0 {
		return
	}
	if s.n == 0 {
		*s = *o
		return
	}
	s.min += o.min
	s.max += o.max
	s.mean += o.mean
	s.m2 += o.m2
	s.n += o.n
}
