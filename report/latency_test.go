package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

func naiveStats(v []int64) (mean, sd float64) {
	var s float64
	for _, x := range v {
		s += float64(x)
	}
	mean = s / float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (float64(x) - mean) * (float64(x) - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

func approxEq(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestLatencyExactStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var v []int64
	l := &Latency{}
	for i := 0; i < 10000; i++ {
		x := int64(rng.ExpFloat64() * 150000)
		v = append(v, x)
		l.Record(x)
	}
	mean, sd := naiveStats(v)
	if !approxEq(l.Mean(), mean) || !approxEq(l.Stddev(), sd) {
		t.Errorf("mean/sd = %v/%v, want %v/%v", l.Mean(), l.Stddev(), mean, sd)
	}
	mn, mx, tot := v[0], v[0], int64(0)
	for _, x := range v {
		mn, mx, tot = min(mn, x), max(mx, x), tot+x
	}
	if l.Min() != mn || l.Max() != mx || l.Total() != tot || l.Count() != int64(len(v)) {
		t.Errorf("min/max/total/count = %d/%d/%d/%d, want %d/%d/%d/%d",
			l.Min(), l.Max(), l.Total(), l.Count(), mn, mx, tot, len(v))
	}
}

func TestLatencyPercentile(t *testing.T) {
	l := &Latency{}
	for i := int64(1); i <= 1000; i++ {
		l.Record(i) // below 2048 the histogram is exact
	}
	for p, want := range map[float64]int64{50: 500, 99: 990, 99.9: 999, 100: 1000, 1: 10} {
		if got := l.Percentile(p); got != want {
			t.Errorf("P%v = %d, want %d", p, got, want)
		}
	}
	// Three significant digits above that, and never beyond the exact max.
	l = &Latency{}
	l.Record(1234567)
	if got := l.Percentile(99.99); got != 1234567 {
		t.Errorf("single value percentile = %d, want it clamped to 1234567", got)
	}
	l.Record(2000000)
	if got := l.Percentile(50); math.Abs(float64(got-1234567)) > 1234567/1000 {
		t.Errorf("P50 = %d, want 1234567 within 0.1%%", got)
	}
}

func TestLatencyEmptyAndNil(t *testing.T) {
	var nilLat *Latency
	l := &Latency{}
	for _, x := range []*Latency{nilLat, l} {
		if x.Count() != 0 || x.Min() != 0 || x.Max() != 0 || x.Mean() != 0 || x.Stddev() != 0 || x.Percentile(50) != 0 || x.Total() != 0 {
			t.Errorf("empty latency has non-zero stats")
		}
		ns, us, ms := x.Buckets()
		for _, c := range append(append(ns[:], us[:]...), ms[:]...) {
			if c != 0 {
				t.Errorf("empty latency has bucket counts")
			}
		}
	}
	l.Merge(nil)
	l.Merge(&Latency{})
	if l.Count() != 0 {
		t.Errorf("merging empties counted something")
	}
	l.Record(7)
	if l.Stddev() != 0 {
		t.Errorf("stddev of one value = %v", l.Stddev())
	}
}

func TestLatencyMergeEqualsRecordAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b, all := &Latency{}, &Latency{}, &Latency{}
	for i := 0; i < 5000; i++ {
		x := int64(rng.NormFloat64()*2e5 + 1e6)
		if i%3 == 0 {
			a.Record(x)
		} else {
			b.Record(x)
		}
		all.Record(x)
	}
	m := &Latency{}
	m.Merge(a)
	m.Merge(b)
	if m.Count() != all.Count() || m.Min() != all.Min() || m.Max() != all.Max() || m.Total() != all.Total() ||
		!approxEq(m.Mean(), all.Mean()) || !approxEq(m.Stddev(), all.Stddev()) {
		t.Errorf("merged stats differ: %v/%v vs %v/%v", m.Mean(), m.Stddev(), all.Mean(), all.Stddev())
	}
	for _, p := range Percentiles {
		if m.Percentile(p) != all.Percentile(p) {
			t.Errorf("P%v: merged %d, all %d", p, m.Percentile(p), all.Percentile(p))
		}
	}
	if m.buckets != all.buckets {
		t.Errorf("merged buckets differ")
	}
	if a.Count()+b.Count() != m.Count() {
		t.Errorf("inputs changed by Merge")
	}
	// Self-merge doubles.
	n := a.Count()
	a.Merge(a)
	if a.Count() != 2*n {
		t.Errorf("self merge: %d, want %d", a.Count(), 2*n)
	}
}

func TestLatencyRecordEdges(t *testing.T) {
	l := &Latency{}
	l.Record(-5)
	l.Record(LatencyHighest * 10) // beyond the histogram: exact stats keep it
	if l.Min() != 0 || l.Max() != LatencyHighest*10 {
		t.Errorf("min/max = %d/%d", l.Min(), l.Max())
	}
	if p := l.Percentile(100); math.Abs(float64(p-LatencyHighest)) > float64(LatencyHighest)/1000 {
		t.Errorf("P100 = %d, want the histogram's ceiling %d (within 0.1%%)", p, LatencyHighest)
	}
	l.RecordN(100, 0)
	l.RecordN(100, -3)
	if l.Count() != 2 {
		t.Errorf("RecordN with n<=0 recorded something")
	}
	l.RecordN(100, 3)
	if l.Count() != 5 || l.Total() != LatencyHighest*10+300 {
		t.Errorf("RecordN: count %d total %d", l.Count(), l.Total())
	}
}

func TestLatencyBuckets(t *testing.T) {
	l := &Latency{}
	for _, v := range []int64{0, 1, 2, 999, 1000, 1999, 749999, 999999, 1000000, 1999999, 2000000, 1999999999, 2000000000, 1e12} {
		l.Record(v)
	}
	ns, us, ms := l.Buckets()
	wantNs := [10]uint64{2, 1, 0, 0, 0, 0, 0, 0, 0, 1}
	wantUs := [10]uint64{2, 0, 0, 0, 0, 0, 0, 0, 1, 1}
	wantMs := [12]uint64{2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2}
	if ns != wantNs || us != wantUs || ms != wantMs {
		t.Errorf("buckets\n ns %v want %v\n us %v want %v\n ms %v want %v", ns, wantNs, us, wantUs, ms, wantMs)
	}
}

func TestSamples(t *testing.T) {
	var s Samples
	if s.N() != 0 || s.Min() != 0 || s.Max() != 0 || s.Mean() != 0 || s.Stddev() != 0 {
		t.Errorf("empty samples not zero")
	}
	s.Add(61336)
	if s.Min() != 61336 || s.Max() != 61336 || s.Mean() != 61336 || s.Stddev() != 0 || s.N() != 1 {
		t.Errorf("one sample: %+v", s)
	}
	s.Add(math.NaN())
	s.Add(math.Inf(1))
	if s.N() != 1 {
		t.Errorf("NaN/Inf counted")
	}
	for _, v := range []float64{2, 4, 4, 4, 5, 5, 7, 9} {
		s.Add(v)
	}
	var t2 Samples
	for _, v := range []float64{2, 4, 4, 4, 5, 5, 7, 9} {
		t2.Add(v)
	}
	if t2.Mean() != 5 || !approxEq(t2.Stddev(), math.Sqrt(32.0/7)) || t2.Min() != 2 || t2.Max() != 9 {
		t.Errorf("samples stats: mean %v sd %v", t2.Mean(), t2.Stddev())
	}
	// Group sum: rates add up.
	var a, b Samples
	a.Add(10)
	a.Add(20)
	b.Add(1)
	b.Add(3)
	a.addSum(&b)
	if a.Min() != 11 || a.Max() != 23 || a.Mean() != 17 || a.N() != 4 {
		t.Errorf("addSum: %+v", a)
	}
	var z Samples
	z.addSum(&b)
	if z != b {
		t.Errorf("addSum into empty should copy")
	}
}
