package report

import (
	"testing"
)

// The example: one read of 97,301 ns is 97,792 in fio's
// percentiles, the middle of its 1024 ns wide bin.
func TestPlatOneRead(t *testing.T) {
	l := &Latency{}
	l.Record(97301)
	for i, v := range l.FioPercentiles(Percentiles) {
		if v != 97792 {
			t.Fatalf("percentile %v: %d, want 97792", Percentiles[i], v)
		}
	}
	if b := l.Bins(); len(b) != 1 || b[0] != (Bin{Value: 97792, Count: 1}) {
		t.Errorf("bins %v, want [{97792 1}]", b)
	}
	if l.Min() != 97301 || l.Max() != 97301 {
		t.Errorf("min/max %d/%d: the exact value is kept beside the bins", l.Min(), l.Max())
	}
}

// Every value below 128 ns has a bin of its own; above, each group of 64
// bins doubles the width, and every value maps into the bin whose span
// holds it, the bin's value being inside the span.
func TestPlatBinsCoverValues(t *testing.T) {
	for v := uint64(0); v < 128; v++ {
		if i := PlatIndex(v); PlatValue(i) != v {
			t.Fatalf("%d: bin %d value %d", v, i, PlatValue(i))
		}
	}
	prev := uint64(0)
	for i := 1; i < PlatBins; i++ {
		if PlatValue(i) <= prev {
			t.Fatalf("bin %d value %d not above bin %d's %d", i, PlatValue(i), i-1, prev)
		}
		prev = PlatValue(i)
	}
	for _, v := range []uint64{128, 129, 255, 256, 1000, 4095, 4096, 97301, 1 << 20, 123456789, 1 << 33} {
		i := PlatIndex(v)
		lo, hi := PlatValue(i), PlatValue(i)
		if i+1 < PlatBins {
			hi = PlatValue(i + 1)
		}
		if i > 0 {
			lo = PlatValue(i - 1)
		}
		if v <= lo || v >= hi {
			t.Errorf("%d in bin %d (value %d): outside (%d, %d)", v, i, PlatValue(i), lo, hi)
		}
	}
	if PlatIndex(1<<62) != PlatBins-1 {
		t.Errorf("a huge value must land in the last bin")
	}
	if PlatBins != 1856 {
		t.Errorf("PlatBins %d, fio has 1856", PlatBins)
	}
}

// fio's selection: the first bin where the running count reaches p% of
// the samples, compared in long double. With 2000 samples 99.95% is
// 1999 in double arithmetic, but a little more in long double (99.95 is
// not exact in binary), so fio's 99.95th is the 2000th sample, not the
// 1999th.
func TestPlatSelection(t *testing.T) {
	l := &Latency{}
	l.RecordN(100, 1998)
	l.RecordN(50000, 1)
	l.RecordN(900000, 1)
	got := l.FioPercentiles([]float64{99.95, 50, 99.99})
	want := []uint64{100, PlatValue(PlatIndex(900000)), PlatValue(PlatIndex(900000))}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sorted percentile %d: %d, want %d", i, got[i], want[i])
		}
	}
	if s := SortedPercentiles([]float64{90, 10, 0, 50}); len(s) != 2 || s[0] != 10 || s[1] != 90 {
		t.Errorf("SortedPercentiles stops at 0 and sorts: %v", s)
	}
}

// Merging two Latency adds their bins.
func TestPlatMerge(t *testing.T) {
	a, b := &Latency{}, &Latency{}
	a.Record(1000)
	b.RecordN(1000, 2)
	b.Record(5000)
	a.Merge(b)
	bins := a.Bins()
	if len(bins) != 2 || bins[0].Count != 3 || bins[1].Count != 1 {
		t.Errorf("merged bins %v", bins)
	}
	a.Merge(a)
	if a.Bins()[0].Count != 6 {
		t.Errorf("self-merge doubles: %v", a.Bins())
	}
}
