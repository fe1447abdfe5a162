package report

// fio's latency histogram ("plat"), kept next to the HdrHistogram of a
// Latency because fio's reports print the histogram's bin values, not
// exact latencies: one read of 97,301 ns is 97,792 in fio's percentiles.
// To print what fio prints, blkq keeps the same bins, gives each the same
// value and selects percentiles by the same rule.
//
// The bins (fio's stat.h: 6 bits per group, 64 bins per group, 29 groups):
// values below 128 ns have a bin each; above, a value whose highest set bit
// is b (b >= 7) lands in group b-5, whose 64 bins each span 2^(b-6) ns,
// found by the 6 bits after the highest one. Values beyond the last group
// land in the last bin. A bin's value is the middle of its span (whole ns,
// rounded down), the value fio prints for every latency in it.
//
// Percentile selection (fio's calc_clat_percentiles): the percentiles are
// sorted ascending; walking the bins in order with a running count, the
// percentile p is the first bin at which the count reaches p/100 of the
// samples. fio makes that comparison in C's long double (x87 80-bit on
// amd64, 64-bit mantissa); platNeed does the same arithmetic in a
// big.Float of 64-bit precision, so that a count landing exactly on a
// boundary (2000 samples at 99.95%) selects the bin fio selects.

import (
	"math/big"
	"math/bits"
	"sort"
)

// fio's histogram geometry (stat.h FIO_IO_U_PLAT_BITS, _VAL, _GROUP_NR).
const (
	platBits   = 6
	platVal    = 1 << platBits
	platGroups = 29
	// PlatBins is the number of bins of fio's latency histogram (1856).
	PlatBins = platGroups * platVal
	// MaxPercentiles is the longest percentile_list fio takes
	// (FIO_IO_U_LIST_MAX_LEN); terse output always has this many fields.
	MaxPercentiles = 20
)

// PlatIndex returns the bin of fio's latency histogram (0 <= bin <
// [PlatBins]) that a latency of ns nanoseconds falls in.
func PlatIndex(ns uint64) int {
	msb := 0
	if ns > 0 {
		msb = bits.Len64(ns) - 1
	}
	if msb <= platBits {
		return int(ns)
	}
	errBits := msb - platBits
	base := (errBits + 1) << platBits
	offset := int((ns >> uint(errBits)) & (platVal - 1))
	return min(base+offset, PlatBins-1)
}

// PlatValue returns the value fio prints for every latency in bin idx,
// ns (0 <= idx < [PlatBins]): the middle of the bin's span.
func PlatValue(idx int) uint64 {
	if idx < platVal<<1 {
		return uint64(idx)
	}
	errBits := uint(idx>>platBits) - 1
	base := uint64(1) << (errBits + platBits)
	k := uint64(idx % platVal)
	return base + k<<errBits + 1<<(errBits-1)
}

// platHist is the count of latencies per bin.
type platHist [PlatBins]uint64

// A Bin is one non-empty bin of fio's histogram: the value fio prints for
// it (ns) and how many latencies fell into it.
type Bin struct {
	Value uint64 // the bin's value, ns (see [PlatValue])
	Count uint64
}

// Bins returns the non-empty bins of fio's histogram of l, in ascending
// value order, as fio's json+ "bins" lists them. Latencies of an hour or
// more are in the last bin, as in fio.
func (l *Latency) Bins() []Bin {
	if l == nil || l.plat == nil {
		return nil
	}
	var out []Bin
	for i, c := range l.plat {
		if c > 0 {
			out = append(out, Bin{Value: PlatValue(i), Count: c})
		}
	}
	return out
}

// FioPercentiles returns, for each percentile of list (percent, 0 < p <=
// 100), the value fio 3.33 prints for it (ns, a bin value), in the order of
// [SortedPercentiles](list) — fio sorts the list before it reports. It
// returns nil for an empty Latency.
func (l *Latency) FioPercentiles(list []float64) []uint64 {
	if l == nil || l.plat == nil || l.n == 0 {
		return nil
	}
	list = SortedPercentiles(list)
	out := make([]uint64, len(list))
	need := make([]uint64, len(list))
	for j, p := range list {
		need[j] = platNeed(p, uint64(l.n))
	}
	var sum uint64
	j := 0
	for i := 0; i < PlatBins && j < len(list); i++ {
		sum += l.plat[i]
		for j < len(list) && sum >= need[j] {
			out[j] = PlatValue(i)
			j++
		}
	}
	for ; j < len(list); j++ { // unreachable but for p > 100
		out[j] = PlatValue(PlatBins - 1)
	}
	return out
}

// SortedPercentiles returns list as fio uses it: up to its first 0 (fio's
// end of list) and at most [MaxPercentiles] long, sorted ascending. It is
// a copy.
func SortedPercentiles(list []float64) []float64 {
	var out []float64
	for _, p := range list {
		if p == 0 || len(out) == MaxPercentiles {
			break
		}
		out = append(out, p)
	}
	sort.Float64s(out)
	return out
}

// platNeed is the least count that passes fio's test count >= p/100*n,
// the product computed in 64-bit-mantissa arithmetic as C's long double on
// amd64: the ceiling of the product, since counts are whole.
func platNeed(p float64, n uint64) uint64 {
	const prec = 64
	t := new(big.Float).SetPrec(prec).SetFloat64(p)
	t.Quo(t, new(big.Float).SetPrec(prec).SetFloat64(100))
	t.Mul(t, new(big.Float).SetPrec(prec).SetUint64(n))
	k, _ := t.Uint64() // truncated
	if new(big.Float).SetUint64(k).Cmp(t) < 0 {
		k++ // t had a fraction: the next whole count
	}
	return k
}

// recordPlat counts n latencies of ns nanoseconds into l's fio histogram.
func (l *Latency) recordPlat(ns int64, n int64) {
	if l.plat == nil {
		l.plat = new(platHist)
	}
	l.plat[PlatIndex(uint64(ns))] += uint64(n)
}

// mergePlat adds o's fio histogram to l's.
func (l *Latency) mergePlat(o *Latency) {
	if o.plat == nil {
		return
	}
	if l.plat == nil {
		l.plat = new(platHist)
	}
	for i, c := range o.plat {
		l.plat[i] += c
	}
}
