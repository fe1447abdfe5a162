package report

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Unit suffixes for [Num2Str].
const (
	UnitNone      = ""    // plain number (IOPS)
	UnitBytes     = "B"   // a size: "16.0MiB"
	UnitBytesPerS = "B/s" // a rate: "381MiB/s"
)

const (
	sigFigs        = 4 // fio's default significant figures for sizes and rates
	latencyFigures = 6 // digits fio allows min/max on a latency line
)

var (
	siPrefixes  = []string{"", "k", "M", "G", "T", "P", "E"}
	iecPrefixes = []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
)

// Num2Str formats num the way fio prints sizes, rates and counts:
//
//   - a number with at most maxLen digits is printed as is ("6095");
//   - otherwise it is divided by 1000 (1024 when pow2) until it has at most
//     maxLen digits, and the prefix k/M/G... (Ki/Mi/Gi... when pow2) is
//     added ("21.1k", "381MiB/s");
//   - the digits left over (maxLen minus the integer digits, minus one for
//     the point) are filled with decimals taken from the remainder of the
//     last division only ("16.0MiB", "82.3MiB/s"); with no room for a
//     decimal the number is rounded half up on that remainder ("165MiB").
//
// Like fio, a remainder that rounds up to a whole unit prints as ".0"
// without carrying into the integer part (16.97 MiB prints as "16.0MiB"):
// this keeps our output identical to fio's for the same numbers.
//
// unit is appended after the prefix: [UnitNone], [UnitBytes] or
// [UnitBytesPerS].
func Num2Str(num uint64, maxLen int, pow2 bool, unit string) string {
	base := uint64(1000)
	prefixes := siPrefixes
	if pow2 {
		base = 1024
		prefixes = iecPrefixes
	}
	if maxLen < 1 {
		maxLen = 1
	}
	p := 0
	var rem uint64
	divided := false
	for p < len(prefixes)-1 && digits(num) > maxLen {
		rem = num % base
		num /= base
		p++
		divided = true
	}
	if !divided {
		return strconv.FormatUint(num, 10) + unit
	}
	room := maxLen - digits(num)
	if room <= 1 {
		if rem >= base/2 {
			num++
		}
		return strconv.FormatUint(num, 10) + prefixes[p] + unit
	}
	frac := strconv.FormatFloat(float64(rem)/float64(base), 'f', room-1, 64)
	// frac is "0.ddd", or "1.000" when the remainder rounds up: keep only
	// the digits after the point either way.
	return strconv.FormatUint(num, 10) + "." + frac[2:] + prefixes[p] + unit
}

// digits returns the number of decimal digits of v (1 for 0).
func digits(v uint64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// fmtSize formats a byte count for the job header ("4096B", "64.0KiB").
func fmtSize(b uint64) string { return Num2Str(b, sigFigs, true, UnitBytes) }

// latUnit chooses the unit of a latency summary line as fio does: msec when
// min, max, mean and stddev all exceed 1 ms, else usec when they all exceed
// 1 us, else nsec. It returns the unit name and divisor.
func latUnit(min, max int64, mean, dev float64) (string, int64) {
	if min > 1e6 && max > 1e6 && mean > 1e6 && dev > 1e6 {
		return "msec", 1e6
	}
	if min > 1e3 && max > 1e3 && mean > 1e3 && dev > 1e3 {
		return "usec", 1e3
	}
	return "nsec", 1
}

// latLine formats "    clat (usec): min=639, max=1329, avg=827.53,
// stdev=130.30" for a non-empty latency; name is "slat", "clat", " lat"
// or "sync".
func latLine(name string, l *Latency) string {
	mn, mx, mean, dev := l.Min(), l.Max(), l.Mean(), l.Stddev()
	u, div := latUnit(mn, mx, mean, dev)
	mn /= div
	mx /= div
	mean /= float64(div)
	dev /= float64(div)
	return fmt.Sprintf("    %s (%s): min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n",
		name, u, Num2Str(uint64(mn), latencyFigures, false, UnitNone),
		Num2Str(uint64(mx), latencyFigures, false, UnitNone), fin(mean), fin(dev))
}

// percentileBlock formats fio's "clat percentiles (usec):" block for a
// non-empty latency, from fio's histogram at po's percentiles (sorted, as
// fio prints them); name is "slat", "clat", "lat" or "sync".
func percentileBlock(name string, l *Latency, po PercentileOptions) string {
	list := SortedPercentiles(po.List)
	vals := l.FioPercentiles(list)
	if len(vals) == 0 {
		return ""
	}
	minv, maxv := vals[0], vals[0]
	for _, v := range vals {
		minv, maxv = min(minv, v), max(maxv, v)
	}
	var b strings.Builder
	unit, divisor, scale := "nsec", uint64(1), 0
	switch {
	case minv > 2000000 && maxv > 99999999:
		unit, divisor, scale = "msec", 1000000, 2
	case minv > 2000 && maxv > 99999:
		unit, divisor, scale = "usec", 1000, 1
	}
	fmt.Fprintf(&b, "    %s percentiles (%s):\n", name, unit)
	width := max(5, digits(maxv/divisor))
	perLine := max((80-7)/(po.Precision+10+width), 1)
	for i, v := range vals {
		if i%perLine == 0 {
			b.WriteString("     |")
		}
		for k := 0; k < scale; k++ {
			v = (v + 999) / 1000
		}
		sep := ","
		if i == len(vals)-1 {
			sep = "\n"
		}
		fmt.Fprintf(&b, " %*.*fth=[%*d]%s", po.Precision+3, po.Precision, list[i], width, v, sep)
		if i != len(vals)-1 && i%perLine == perLine-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// pct returns 100*n/total, raised to floor when n > 0 but the percentage is
// smaller (fio shows any non-zero share as at least 0.01% for latency
// buckets, 0.1% for depths). It is 0 when total is 0.
func pct(n, total uint64, floor float64) float64 {
	if total == 0 {
		return 0
	}
	v := float64(n) / float64(total) * 100
	if n > 0 && v < floor {
		v = floor
	}
	return v
}

// fin replaces NaN and infinities by 0 so no report ever prints them.
func fin(v float64) float64 {
	if v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308 {
		return 0
	}
	return v
}

// runTime returns r.Time, or Timestamp formatted like ctime in UTC.
func runTime(r *Run) string {
	if r.Time != "" {
		return r.Time
	}
	return time.Unix(r.Timestamp, 0).UTC().Format("Mon Jan _2 15:04:05 2006")
}

// runVersion returns r.Version or DefaultVersion.
func runVersion(r *Run) string {
	if r.Version != "" {
		return r.Version
	}
	return DefaultVersion
}

// Strerror is the C library's text for errno e ("No space left on
// device"), as fio prints it: Go's text, which is the same but for the
// capital; "Success" for 0.
func Strerror(e int) string {
	if e == 0 {
		return "Success"
	}
	s := syscall.Errno(e).Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}
