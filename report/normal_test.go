package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
)

// synth returns n integer latencies in [lo, hi], including lo and hi,
// whose mean is mean (to 1/n) and whose sample standard deviation is sd (to
// rounding): the other n-2 values take two levels. It lets a test rebuild
// the exact "min=, max=, avg=, stdev=" of a fio sample.
func synth(t *testing.T, n int, lo, hi int64, mean, sd float64) []int64 {
	t.Helper()
	sq := func(x float64) float64 { return x * x }
	m := n - 2
	mu := (float64(n)*mean - float64(lo) - float64(hi)) / float64(m)
	ss := float64(n-1)*sd*sd - sq(float64(lo)-mean) - sq(float64(hi)-mean) - float64(m)*sq(mu-mean)
	if ss < 0 {
		t.Fatalf("synth: infeasible")
	}
	s := math.Sqrt(ss / float64(m))
	var ks []int
	for k := 1; k < m; k++ {
		q := float64(k) / float64(m)
		if mu-s*math.Sqrt((1-q)/q) >= float64(lo) && mu+s*math.Sqrt(q/(1-q)) <= float64(hi) {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		t.Fatalf("synth: no two-level split fits [%d, %d]", lo, hi)
	}
	k := ks[len(ks)/2]
	q := float64(k) / float64(m)
	a := int64(math.Round(mu - s*math.Sqrt((1-q)/q)))
	b := int64(math.Round(mu + s*math.Sqrt(q/(1-q))))
	out := []int64{lo, hi}
	sum := lo + hi
	for i := 0; i < m; i++ {
		v := b
		if i < k {
			v = a
		}
		out = append(out, v)
		sum += v
	}
	diff := int64(math.Round(float64(n)*mean)) - sum
	for i := len(out) - 1; diff != 0 && i >= 2; i-- {
		if diff > 0 {
			out[i]++
			diff--
		} else {
			out[i]--
			diff++
		}
	}
	return out
}

func latOf(vals ...[]int64) *Latency {
	l := &Latency{}
	for _, vs := range vals {
		for _, v := range vs {
			l.Record(v)
		}
	}
	return l
}

func bs(b uint64) [NumDirs]BSRange {
	return [NumDirs]BSRange{{b, b}, {b, b}, {b, b}}
}

// seqreadRun rebuilds testdata/fio-normal-seqread-libaio.txt: one libaio
// job reading 256 x 64 KiB in 42 ms at iodepth 8.
func seqreadRun(t *testing.T) *Run {
	j := &JobStats{
		Name: "seqread", PID: 7542, Engine: "libaio", IODepth: 8, RW: "read", BS: bs(65536),
		SysCPU: 21.95, Ctx: 75, MinFlt: 138,
		IODepthHist:  [NumDepthBuckets]uint64{1, 2, 4, 249},
		SubmitHist:   [NumDepthBuckets]uint64{0, 64},
		CompleteHist: [NumDepthBuckets]uint64{0, 249, 1},
	}
	j.Read.IOs = 256
	j.Read.Bytes = 256 * 65536
	j.Read.Runtime = 42e6
	j.Read.Slat = latOf(synth(t, 256, 6100, 248500, 15210, 19910))
	j.Read.Lat = latOf(synth(t, 256, 670500, 1338500, 842740, 133320))
	// clat: 73 below 750 us, 160 below 1 ms, 23 from 1 ms ("750=28.52%,
	// 1000=62.50%", "2=8.98%"), with the sample's min, max, mean and stddev.
	sq := func(x float64) float64 { return x * x }
	m2, m3 := 860000.0, 1100000.0
	m1 := (256*827530 - 160*m2 - 23*m3) / 73
	within := 255*sq(130300) - 73*sq(m1-827530) - 160*sq(m2-827530) - 23*sq(m3-827530)
	s1, s3 := 30000.0, 60000.0
	s2 := math.Sqrt((within - 72*s1*s1 - 22*s3*s3) / 159)
	j.Read.Clat = latOf(
		synth(t, 73, 639500, 745000, m1, s1),
		synth(t, 160, 752000, 990000, m2, s2),
		synth(t, 23, 1005000, 1329500, m3, s3))
	return &Run{
		Version: "fio-3.33", Time: "Mon Nov 30 12:20:43 2026",
		Jobs:  []*JobStats{j},
		Disks: []DiskStats{{Name: "vda"}},
	}
}

// randrwRun rebuilds testdata/fio-normal-randrw-psync.txt: two psync
// clones doing 70/30 random 4 KiB I/O for 2 s under group_reporting.
func randrwRun(t *testing.T) *Run {
	// Completion latencies per fio bucket, read and write together (60255
	// I/Os), reproducing the sample's "lat (nsec/usec/msec)" lines; the
	// sample's own min and max are among them.
	type lv struct {
		v     int64
		n     int
		write int // how many of n are writes
	}
	clat := []lv{
		{741, 1, 0}, {900, 120, 0},
		{1222, 1, 1}, {1500, 11505, 0}, {3000, 13856, 13856}, {6000, 10976, 4224},
		{15000, 1265, 0}, {30000, 621, 0}, {70000, 3379, 0}, {150000, 17718, 0},
		{300000, 603, 0}, {600000, 96, 0}, {900000, 42, 0},
		{1500000, 48, 0}, {2382500, 1, 1}, {3000000, 17, 0}, {5000000, 5, 0}, {7371150, 1, 0},
	}
	var jobs [2]*JobStats
	for i := range jobs {
		jobs[i] = &JobStats{
			Name: "randrw", PID: 7519 + i, Clone: i > 0, Engine: "psync", IODepth: 1, RW: "randrw",
			BS: bs(4096), Sync: true, UsrCPU: 3.15, SysCPU: 31.02,
			Ctx: uint64(11474 + i), MinFlt: uint64(13 + i),
			JobOptions: [][2]string{{"rw", "randrw"}, {"rwmixread", "70"}, {"numjobs", "2"}},
		}
		jobs[i].Read.Runtime, jobs[i].Write.Runtime = 2001e6, 2001e6
		jobs[i].Read.Clat, jobs[i].Read.Lat = &Latency{}, &Latency{}
		jobs[i].Write.Clat, jobs[i].Write.Lat = &Latency{}, &Latency{}
		for _, s := range []float64{38076, 42707.995, 45584} {
			jobs[i].Read.BW.Add(s)
			jobs[i].Read.IOPS.Add(s / 4)
			jobs[i].Write.BW.Add(s * 0.43)
			jobs[i].Write.IOPS.Add(s * 0.43 / 4)
		}
	}
	k := 0
	for _, c := range clat {
		for n := 0; n < c.n; n++ {
			j := jobs[k%2]
			k++
			d := &j.Read
			if n < c.write {
				d = &j.Write
			}
			d.IOs++
			d.Bytes += 4096
			d.Clat.Record(c.v)
			d.Lat.Record(c.v + 20)
			j.IODepthHist[0]++
		}
	}
	return &Run{
		Version: "fio-3.33", Time: "Mon Nov 30 12:20:42 2026",
		Jobs:           jobs[:],
		GroupReporting: map[int]bool{0: true},
		Disks:          []DiskStats{{Name: "vda", ReadIOs: 20036, WriteIOs: 6756, WriteMerges: 7, ReadTicks: 2104, WriteTicks: 3324, InQueue: 5428, Util: 65.64}},
	}
}

var (
	reLatLine   = regexp.MustCompile(`^    (slat|clat| lat) \((nsec|usec|msec)\): min=\d+(\.\d)?k?, max=\d+(\.\d)?k?, avg= *\d+\.\d\d, stdev= *\d+\.\d\d$`)
	rePctHeader = regexp.MustCompile(`^    clat percentiles \((nsec|usec|msec)\):$`)
	reBWLine    = regexp.MustCompile(`^   bw \(  KiB/s\): min= *\d+, max= *\d+, per=\d+\.\d\d%, avg= *\d+\.\d\d, stdev= *\d+\.\d\d, samples=\d+$`)
	reIOPSLine  = regexp.MustCompile(`^   iops        : min= *\d+, max= *\d+, avg= *\d+\.\d\d, stdev= *\d+\.\d\d, samples=\d+$`)
)

// compareWithSample checks got against a fio sample line by line: lines
// are equal, except those for which shape(wantLine) returns a regexp the
// got line must match instead; skipWant lines of the sample have no
// counterpart in ours, skipGot lines of ours none in the sample.
func compareWithSample(t *testing.T, sample, got string, shape func(string) *regexp.Regexp, skipWant, skipGot func(string) bool) {
	t.Helper()
	var wl, gl []string
	for _, l := range strings.Split(strings.TrimSuffix(sample, "\n"), "\n") {
		if !skipWant(l) {
			wl = append(wl, l)
		}
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if !skipGot(l) {
			gl = append(gl, l)
		}
	}
	if len(wl) != len(gl) {
		t.Errorf("got %d lines, sample has %d\n--- got\n%s", len(gl), len(wl), got)
	}
	exact, shaped := 0, 0
	for i := 0; i < min(len(wl), len(gl)); i++ {
		if re := shape(wl[i]); re != nil {
			shaped++
			if !re.MatchString(gl[i]) {
				t.Errorf("line %d: %q does not match %v (sample: %q)", i+1, gl[i], re, wl[i])
			}
			continue
		}
		exact++
		if gl[i] != wl[i] {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, gl[i], wl[i])
		}
	}
	t.Logf("%d lines identical to fio's, %d checked for shape", exact, shaped)
}

func TestWriteNormalSeqreadSample(t *testing.T) {
	sample, err := os.ReadFile("testdata/fio-normal-seqread-libaio.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteNormal(&out, seqreadRun(t)); err != nil {
		t.Fatal(err)
	}
	// Only the percentile values differ: fio's histogram reports bucket
	// values (even above max); ours are HdrHistogram's, clamped to max.
	shape := func(l string) *regexp.Regexp {
		if strings.HasPrefix(l, "     | ") {
			return percentileLine
		}
		return nil
	}
	no := func(string) bool { return false }
	compareWithSample(t, string(sample), out.String(), shape, no, no)
	if !strings.Contains(out.String(), "    clat percentiles (usec):\n     |  1.00th=[") {
		t.Errorf("percentile block not in usec with fio's layout:\n%s", out.String())
	}
}

func TestWriteNormalRandrwSample(t *testing.T) {
	sample, err := os.ReadFile("testdata/fio-normal-randrw-psync.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteNormal(&out, randrwRun(t)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	shape := func(l string) *regexp.Regexp {
		switch {
		case strings.HasPrefix(l, "     | "):
			return percentileLine
		case reLatLine.MatchString(l):
			return reLatLine
		case strings.HasPrefix(l, "   bw ("):
			return reBWLine
		case strings.HasPrefix(l, "   iops"):
			return reIOPSLine
		}
		return nil
	}
	skipWant := func(l string) bool { return strings.Contains(l, "Laying out IO file") }
	skipGot := func(l string) bool { return strings.HasPrefix(l, "  blkq: ") }
	compareWithSample(t, string(sample), got, shape, skipWant, skipGot)
	// The bandwidth share of the group, from the summed samples.
	if !strings.Contains(got, "per=99.93%") {
		t.Errorf("read bw share not 99.93%%:\n%s", got)
	}
	if !strings.Contains(got, "    clat percentiles (nsec):\n     |  1.00th=[   ") {
		t.Errorf("read percentiles not 7 wide in nsec")
	}
	// Two jobs in the group: the Jain line follows the Run status lines.
	if !regexp.MustCompile(`run=2001-2001msec\n  blkq: Jain's fairness index of per-job throughput: 1\.0000 \(2 jobs\)\n\nDisk stats`).MatchString(got) {
		t.Errorf("Jain line missing or misplaced:\n%s", got)
	}
}

func TestWriteNormalBlkqAndGroups(t *testing.T) {
	a, b, c := job("fast", 0, 4096*3000, 1000), job("slow", 0, 4096*1000, 1000), job("solo", 1, 4096*10, 5)
	a.Blkq = &BlkqJobStats{Sleeps: 3, Wakeups: 3, Waits: 3, WaitTotal: 4500000, WaitMax: 2500000, WaitP99: 2000000,
		DroppedReadAhead: 1, BackMerges: 7, FrontMerges: 2, RequestsIssued: 2991, RequestBytes: 4096 * 3000}
	a.CPUMeasured = true
	b.Description = "the slow one"
	b.Error, b.ErrorText = 5, "io error"
	r := &Run{Jobs: []*JobStats{a, b, c}, Ignored: []string{"ignored option cpus_allowed=0-3"}}
	var out bytes.Buffer
	if err := WriteNormal(&out, r); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"fast: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1\nslow: (g=0)",
		"solo: (g=1)",
		DefaultVersion + "\nStarting 3 processes\nblkq: ignored option cpus_allowed=0-3\n\nfast: (groupid=0, jobs=1): err= 0: pid=0: Thu Jan  1 00:00:00 1970\n",
		"  blkq     : alloc sleeps=3, wakeups=3, waits=3, wait max=2.50ms p99=2.00ms total=4.50ms, ra dropped=1\n",
		"  blkq     : merges back=7 front=2, requests=2991, avg request=4.0KiB\nslow: (groupid=0, jobs=1): err= 5 (io error): pid=0:",
		"  Description  : [the slow one]\n  read: IOPS=1000, BW=4000KiB/s (4096kB/s)(4000KiB/1000msec)\n",
		"\nRun status group 0 (all jobs):\n   READ: bw=15.6MiB/s (16.4MB/s), 4000KiB/s-11.7MiB/s (4096kB/s-12.3MB/s), io=15.6MiB (16.4MB), run=1000-1000msec\n" +
			"  blkq: Jain's fairness index of per-job throughput: 0.8000 (2 jobs)\n\nRun status group 1 (all jobs):\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Count(got, "Jain") != 1 {
		t.Errorf("Jain line printed for a one-job group:\n%s", got)
	}
	if strings.Contains(got, "Disk stats") {
		t.Errorf("disk stats without disks")
	}
	if strings.Contains(got, "slat") {
		t.Errorf("slat line without slat samples")
	}
}

func TestWriteNormalSyncEngineHasNoSlat(t *testing.T) {
	j := job("s", 0, 4096*10, 10)
	j.Read.Slat = latOf([]int64{1500, 3500})
	j.Sync = true
	var out bytes.Buffer
	WriteNormal(&out, &Run{Jobs: []*JobStats{j}})
	if strings.Contains(out.String(), "slat") {
		t.Errorf("sync engine printed slat")
	}
	j.Sync = false
	out.Reset()
	WriteNormal(&out, &Run{Jobs: []*JobStats{j}})
	if !strings.Contains(out.String(), "    slat (usec): min=1, max=3, avg= 2.50, stdev= 1.41\n") {
		t.Errorf("async engine slat line missing:\n%s", out.String())
	}
}

func TestWriteNormalSyncOps(t *testing.T) {
	j := job("w", 0, 4096*64, 5)
	j.SyncOps = &SyncStats{IOs: 15, Lat: latOf([]int64{190000, 200000, 641000})}
	var out bytes.Buffer
	WriteNormal(&out, &Run{Jobs: []*JobStats{j}})
	got := out.String()
	if !regexp.MustCompile(`(?s)lat \(usec\)   : .*\n  fsync/fdatasync/sync_file_range:\n    sync \(usec\): min=190, max=641, avg=343\.67, stdev=257\.55\n    sync percentiles \(usec\):\n     \|  1\.00th=\[ *\d+\].*\n  cpu          :`).MatchString(got) {
		t.Errorf("sync block:\n%s", got)
	}
	if !strings.Contains(got, "issued rwts: total=64,0,0,15 ") {
		t.Errorf("sync count not in issued rwts:\n%s", got)
	}
}

func TestWriteNormalTrimAndLatBuckets(t *testing.T) {
	j := &JobStats{Name: "t", RW: "randtrim", Engine: "null", IODepth: 1, BS: bs(4096)}
	j.Trim.IOs, j.Trim.Bytes, j.Trim.Runtime = 256, 1<<20, 1e6
	j.Trim.Clat = &Latency{}
	j.Trim.Clat.RecordN(30, 255)
	j.Trim.Clat.Record(10560)
	var out bytes.Buffer
	WriteNormal(&out, &Run{Jobs: []*JobStats{j}})
	got := out.String()
	for _, want := range []string{
		"  trim: IOPS=256k, BW=1000MiB/s (1049MB/s)(1024KiB/1msec)\n",
		"  lat (nsec)   : 50=99.61%\n  lat (usec)   : 20=0.39%\n",
		"   TRIM: bw=1000MiB/s (1049MB/s), 1000MiB/s-1000MiB/s (1049MB/s-1049MB/s), io=1024KiB (1049kB), run=1-1msec\n",
		"issued rwts: total=0,0,256,0 ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

func TestWriteNormalLatBucketWrap(t *testing.T) {
	j := job("x", 0, 4096, 1)
	j.Read.Clat = &Latency{}
	for _, v := range []int64{1500, 3000, 5000, 15000, 30000, 70000, 150000} {
		j.Read.Clat.Record(v)
	}
	var out bytes.Buffer
	WriteNormal(&out, &Run{Jobs: []*JobStats{j}})
	want := "  lat (usec)   : 2=14.29%, 4=14.29%, 10=14.29%, 20=14.29%, 50=14.29%\n  lat (usec)   : 100=14.29%, 250=14.29%\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("want\n%s in\n%s", want, out.String())
	}
}

func TestWriteNormalEmptyAndZeroIO(t *testing.T) {
	for name, r := range map[string]*Run{
		"nil":     nil,
		"empty":   {},
		"zero IO": {Jobs: []*JobStats{{Name: "idle", RW: "read"}}, Disks: []DiskStats{{Name: "sim0"}}},
		"starved": {Jobs: []*JobStats{{Name: "starved", RW: "read", Blkq: &BlkqJobStats{Sleeps: 1}}, job("hog", 0, 4096*10, 10)}},
	} {
		var out bytes.Buffer
		if err := WriteNormal(&out, r); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := out.String()
		if strings.Contains(got, "NaN") || strings.Contains(got, "Inf") {
			t.Errorf("%s: NaN/Inf in\n%s", name, got)
		}
		switch name {
		case "nil", "empty":
			if got != DefaultVersion+"\nStarting 0 processes\n\n" {
				t.Errorf("%s: %q", name, got)
			}
		case "zero IO":
			if strings.Contains(got, "groupid") || strings.Contains(got, "READ:") || !strings.Contains(got, "Run status group 0") {
				t.Errorf("%s: a job without I/O is skipped, its group still listed:\n%s", name, got)
			}
		case "starved":
			if !strings.Contains(got, "starved: (groupid=0, jobs=1)") ||
				!strings.Contains(got, "IO depths    : 1=0.0%") ||
				!strings.Contains(got, "submit    : 0=0.0%, 4=0.0%") ||
				!strings.Contains(got, "Jain's fairness index of per-job throughput: 0.5000 (2 jobs)") {
				t.Errorf("%s: a job starved of requests must show:\n%s", name, got)
			}
		}
	}
}

func TestWriteNormalDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	WriteNormal(&a, randrwRun(t))
	WriteNormal(&b, randrwRun(t))
	if a.String() != b.String() {
		t.Errorf("same input, different output")
	}
}

// TestCPUNotMeasuredIsSaid: a blkq job whose CPU figures were not measured
// (a simulated run) gets a line saying so after its blkq lines, and JSON
// "cpu_measured": false; a measured one gets neither.
func TestCPUNotMeasuredIsSaid(t *testing.T) {
	for _, measured := range []bool{false, true} {
		j := job("sim", 0, 4096*10, 10)
		j.Blkq = &BlkqJobStats{}
		j.CPUMeasured = measured
		r := &Run{Jobs: []*JobStats{j}}
		var out, js bytes.Buffer
		if err := WriteNormal(&out, r); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		note := strings.Contains(out.String(), "  blkq     : cpu not measured: ")
		if note == measured {
			t.Errorf("measured=%v: note printed=%v:\n%s", measured, note, out.String())
		}
		var got struct {
			Jobs []struct {
				Blkq map[string]any `json:"blkq"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal(js.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if v, ok := got.Jobs[0].Blkq["cpu_measured"].(bool); !ok || v != measured {
			t.Errorf("measured=%v: JSON cpu_measured = %v", measured, got.Jobs[0].Blkq["cpu_measured"])
		}
	}
}

// TestWriteLatencyTarget: a job's latency_target search is reported as fio
// 3.33 reports it, target in ns and window in µs (the line of a fio run
// with latency_target=500us, latency_window=200ms, latency_percentile=90:
// "latency   : target=500000, window=200000, percentile=90.00%, depth=16"),
// in the text and in the JSON; without one, fio's defaults at the iodepth.
func TestWriteLatencyTarget(t *testing.T) {
	j := job("x", 0, 4096*10, 10)
	j.IODepth = 16
	var out bytes.Buffer
	WriteNormal(&out, &Run{Jobs: []*JobStats{j}})
	if !strings.Contains(out.String(), "     latency   : target=0, window=0, percentile=100.00%, depth=16\n") {
		t.Errorf("no target:\n%s", out.String())
	}
	j.LatencyTarget = &LatencyTarget{TargetNs: 500000, WindowUs: 200000, Percentile: 90, Depth: 4}
	out.Reset()
	WriteNormal(&out, &Run{Jobs: []*JobStats{j}})
	if !strings.Contains(out.String(), "     latency   : target=500000, window=200000, percentile=90.00%, depth=4\n") {
		t.Errorf("target:\n%s", out.String())
	}
	out.Reset()
	if err := WriteJSON(&out, &Run{Jobs: []*JobStats{j}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"latency_depth" : 4,`, `"latency_target" : 500000,`, `"latency_percentile" : 90.000000,`, `"latency_window" : 200000`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, out.String())
		}
	}
}

// TestCPUModelledIsSaid: a job whose CPU figures come from the CPU model
// gets a line with its task's wake-ups and wake-up latency instead of
// "not measured", the same figures in JSON, and group_reporting adds the
// wake-ups and merges the latencies.
func TestCPUModelledIsSaid(t *testing.T) {
	mk := func(wakeups uint64, lat ...int64) *JobStats {
		j := job("sim", 0, 4096*10, 10)
		d := NewLatency()
		for _, ns := range lat {
			d.Record(ns)
		}
		j.Blkq = &BlkqJobStats{CPU: &CPUJobStats{CPUs: 2, Wakeups: wakeups, RunDelay: d}}
		return j
	}
	r := &Run{Jobs: []*JobStats{mk(3, 5_000, 2_000_000, 10_000)}}
	var out, js bytes.Buffer
	if err := WriteNormal(&out, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  blkq     : cpu modelled, cpus=2: task wakeups=3, wake-up latency max=2.00ms") || strings.Contains(out.String(), "cpu not measured") {
		t.Errorf("text:\n%s", out.String())
	}
	var got struct {
		Jobs []struct {
			Blkq map[string]any `json:"blkq"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if b := got.Jobs[0].Blkq; b["task_wakeups"] != 3.0 || b["wakeup_latency_max_ns"] != 2e6 || b["cpu_modelled_cpus"] != 2.0 {
		t.Errorf("JSON blkq %v", b)
	}
	c := combine([]*JobStats{mk(3, 5_000), mk(4, 7_000, 9_000)})
	if cc := c.Blkq.CPU; cc == nil || cc.Wakeups != 7 || cc.RunDelay.Count() != 3 || cc.RunDelay.Max() != 9_000 || cc.CPUs != 2 {
		t.Errorf("combined %+v", c.Blkq.CPU)
	}
}
