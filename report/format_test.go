package report

import (
	"math"
	"regexp"
	"strings"
	"testing"
)

// Every case below is a value printed by fio 3.33 in the samples under
// testdata/samples/ (or quoted in docs/formats.md), with the raw number fio
// formatted (bytes, bytes/s or a count) reconstructed from the sample.
func TestNum2Str(t *testing.T) {
	cases := []struct {
		num    uint64
		maxLen int
		pow2   bool
		unit   string
		want   string
	}{
		// IOPS = 1000*ios/runtime_ms.
		{256 * 1000 / 42, 4, false, UnitNone, "6095"},
		{42173 * 1000 / 2001, 4, false, UnitNone, "21.1k"},
		{18082 * 1000 / 2001, 4, false, UnitNone, "9036"},
		{256000, 4, false, UnitNone, "256k"},
		{16000, 4, false, UnitNone, "16.0k"},
		{3550123, 4, false, UnitNone, "3550k"},
		{12800, 4, false, UnitNone, "12.8k"},
		// BW = 1000*bytes/runtime_ms, binary and decimal.
		{16777216 * 1000 / 42, 4, true, UnitBytesPerS, "381MiB/s"},
		{16777216 * 1000 / 42, 4, false, UnitBytesPerS, "399MB/s"},
		{172740608 * 1000 / 2001, 4, true, UnitBytesPerS, "82.3MiB/s"},
		{172740608 * 1000 / 2001, 4, false, UnitBytesPerS, "86.3MB/s"},
		{74063872 * 1000 / 2001, 4, true, UnitBytesPerS, "35.3MiB/s"},
		{74063872 * 1000 / 2001, 4, false, UnitBytesPerS, "37.0MB/s"},
		{1048576000, 4, true, UnitBytesPerS, "1000MiB/s"},
		{1048576000, 4, false, UnitBytesPerS, "1049MB/s"},
		{262144 * 1000 / 5, 4, true, UnitBytesPerS, "50.0MiB/s"},
		{262144 * 1000 / 5, 4, false, UnitBytesPerS, "52.4MB/s"},
		// io= sizes.
		{16777216, 4, true, UnitBytes, "16.0MiB"},
		{16777216, 4, false, UnitBytes, "16.8MB"},
		{172740608, 4, true, UnitBytes, "165MiB"},
		{172740608, 4, false, UnitBytes, "173MB"},
		{74063872, 4, true, UnitBytes, "70.6MiB"},
		{74063872, 4, false, UnitBytes, "74.1MB"},
		{1048576, 4, true, UnitBytes, "1024KiB"},
		{1048576, 4, false, UnitBytes, "1049kB"},
		{262144, 4, false, UnitBytes, "262kB"},
		{65536, 4, true, UnitBytes, "64.0KiB"},
		// Block sizes in the job header.
		{4096, 4, true, UnitBytes, "4096B"},
		{16384, 4, true, UnitBytes, "16.0KiB"},
		// Latency min/max (6 digits, no unit).
		{7371100, 6, false, UnitNone, "7371.1k"},
		{7371300, 6, false, UnitNone, "7371.3k"},
		{2382500, 6, false, UnitNone, "2382.5k"},
		{14212000, 6, false, UnitNone, "14212k"},
		{5199400, 6, false, UnitNone, "5199.4k"},
		{741, 6, false, UnitNone, "741"},
		{245305, 6, false, UnitNone, "245305"},
		// Edge cases.
		{0, 4, false, UnitNone, "0"},
		{0, 4, true, UnitBytes, "0B"},
		{9999, 4, false, UnitNone, "9999"},
		{10000, 4, false, UnitNone, "10.0k"},
		{^uint64(0), 4, true, UnitBytes, "15.0EiB"}, // 15.99 EiB: the quirk below
		// fio's quirk: a remainder rounding up to a whole unit prints ".0".
		{16*1048576 + 1000*1024, 4, true, UnitBytes, "16.0MiB"},
	}
	for _, c := range cases {
		if got := Num2Str(c.num, c.maxLen, c.pow2, c.unit); got != c.want {
			t.Errorf("Num2Str(%d, %d, %v, %q) = %q, want %q", c.num, c.maxLen, c.pow2, c.unit, got, c.want)
		}
	}
}

func TestDigits(t *testing.T) {
	for v, want := range map[uint64]int{0: 1, 9: 1, 10: 2, 99999: 5, 100000: 6, ^uint64(0): 20} {
		if got := digits(v); got != want {
			t.Errorf("digits(%d) = %d, want %d", v, got, want)
		}
	}
}

func TestLatUnit(t *testing.T) {
	cases := []struct {
		min, max  int64
		mean, dev float64
		want      string
	}{
		{6000, 248000, 15210, 19910, "usec"},        // seqread slat
		{741, 7371100, 81425.74, 131914.86, "nsec"}, // randrw clat: min below 1 us
		{3104, 58127, 5730.75, 7953.03, "usec"},
		{2000000, 9000000, 4e6, 2e6, "msec"},
		{2000000, 9000000, 4e6, 999, "nsec"}, // a steady latency stays in nsec, as in fio
		{0, 0, 0, 0, "nsec"},
	}
	for _, c := range cases {
		if got, _ := latUnit(c.min, c.max, c.mean, c.dev); got != c.want {
			t.Errorf("latUnit(%d, %d, %v, %v) = %s, want %s", c.min, c.max, c.mean, c.dev, got, c.want)
		}
	}
}

func TestLatLineMsec(t *testing.T) {
	l := &Latency{}
	for _, v := range []int64{2e6, 5e6, 9e6, 12e6} {
		l.Record(v)
	}
	got := latLine("clat", l)
	want := "    clat (msec): min=2, max=12, avg= 7.00, stdev= 4.40\n"
	if got != want {
		t.Errorf("latLine = %q, want %q", got, want)
	}
}

var percentileLine = regexp.MustCompile(`^     \|( +\d{1,2}\.\d\dth=\[ *\d+\],)* +\d{1,2}\.\d\dth=\[ *\d+\],?$`)

func TestPercentileBlockLayout(t *testing.T) {
	cases := []struct {
		name    string
		values  []int64
		unit    string
		perLine int
		width   int
	}{
		{"usec", []int64{668000, 700000, 800000, 1330000}, "usec", 4, 5},
		{"nsec wide", []int64{1128, 71168, 4554752}, "nsec", 3, 7},
		{"nsec narrow", []int64{1784, 68096, 684032}, "nsec", 4, 6},
		{"nsec small", []int64{10, 20, 30}, "nsec", 4, 5},
		{"msec", []int64{3e6, 4e6, 200e6}, "msec", 4, 5},
	}
	for _, c := range cases {
		l := &Latency{}
		for _, v := range c.values {
			l.RecordN(v, 100)
		}
		block := percentileBlock("clat", l, defaultPercentileOptions.withList())
		lines := strings.Split(strings.TrimSuffix(block, "\n"), "\n")
		if want := "    clat percentiles (" + c.unit + "):"; lines[0] != want {
			t.Errorf("%s: header %q, want %q", c.name, lines[0], want)
		}
		body := lines[1:]
		wantLines := (len(Percentiles) + c.perLine - 1) / c.perLine
		if len(body) != wantLines {
			t.Errorf("%s: %d lines, want %d:\n%s", c.name, len(body), wantLines, block)
		}
		for i, ln := range body {
			if !percentileLine.MatchString(ln) {
				t.Errorf("%s: bad line %q", c.name, ln)
			}
			n := strings.Count(ln, "th=[")
			if i < len(body)-1 && n != c.perLine {
				t.Errorf("%s: line %d has %d entries, want %d", c.name, i, n, c.perLine)
			}
			if strings.HasSuffix(ln, ",") == (i == len(body)-1) {
				t.Errorf("%s: line %q: only the last line ends without a comma", c.name, ln)
			}
		}
		m := regexp.MustCompile(`th=\[( *\d+)\]`).FindStringSubmatch(body[0])
		if len(m[1]) != c.width {
			t.Errorf("%s: value width %d, want %d (%q)", c.name, len(m[1]), c.width, body[0])
		}
	}
}

func TestPercentileBlockSeqreadShape(t *testing.T) {
	// fio's own first line for the seqread sample, with its percentile values.
	want := "     |  1.00th=[  668],  5.00th=[  668], 10.00th=[  693], 20.00th=[  734],"
	l := &Latency{}
	// fio's run had 256 reads. fio's rule: percentile p is the first bin at
	// which the running count reaches p/100*256, so 1% and 5% (2.56 and
	// 12.8) fall on the 13th read, 10% (25.6) on the 26th, 20% (51.2) on
	// the 52nd; fio prints the bin's value (667648, 692224, 733184 ns),
	// rounded up to whole us.
	for _, vc := range [][2]int64{{667400, 13}, {692500, 13}, {733500, 26}, {1335500, 204}} {
		l.RecordN(vc[0], vc[1])
	}
	got := strings.Split(percentileBlock("clat", l, defaultPercentileOptions.withList()), "\n")[1]
	if got != want {
		t.Errorf("first percentile line\n got %q\nwant %q", got, want)
	}
}

func TestPct(t *testing.T) {
	if got := pct(1, 21718, 0.1); got != 0.1 {
		t.Errorf("small share not raised to the floor: %v", got)
	}
	if got := pct(0, 21718, 0.1); got != 0 {
		t.Errorf("zero share: %v", got)
	}
	if got := pct(5, 0, 0.1); got != 0 {
		t.Errorf("zero total: %v", got)
	}
}

func TestRunTimeDerived(t *testing.T) {
	r := &Run{Timestamp: 1796041247}
	if got, want := runTime(r), "Mon Nov 30 12:20:47 2026"; got != want {
		t.Errorf("runTime = %q, want %q", got, want)
	}
	r = &Run{Timestamp: 1796041247 - 29*86400}
	if got, want := runTime(r), "Sun Nov  1 12:20:47 2026"; got != want {
		t.Errorf("runTime = %q, want %q (ctime pads the day with a space)", got, want)
	}
}

func TestSamplesAddN(t *testing.T) {
	var a, b Samples
	for _, v := range []float64{3, 5} {
		a.Add(v)
		b.Add(v)
	}
	for range 1000 {
		a.Add(0)
	}
	b.AddN(0, 1000)
	if a.N() != b.N() || a.Min() != b.Min() || a.Max() != b.Max() ||
		math.Abs(a.Mean()-b.Mean()) > 1e-12 || math.Abs(a.Stddev()-b.Stddev()) > 1e-9 {
		t.Fatalf("AddN(0, 1000) = %+v, 1000 Adds = %+v", b, a)
	}
}
