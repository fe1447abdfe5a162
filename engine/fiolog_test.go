package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/report"
)

// logLine is one parsed line of a fio log: its fields as numbers (the
// priority column, hex with log_prio, as written in raw).
type logLine struct {
	f   []int64
	raw []string
}

// readLog parses a fio log, checking every line has n fields.
func readLog(t *testing.T, path string, n int) []logLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []logLine
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		parts := strings.Split(l, ", ")
		if len(parts) != n {
			t.Fatalf("%s:%d: %d fields, want %d: %q", path, i+1, len(parts), n, l)
		}
		ll := logLine{raw: parts}
		for _, p := range parts {
			v, err := strconv.ParseInt(p, 0, 64)
			if err != nil {
				t.Fatalf("%s:%d: %q: %v", path, i+1, p, err)
			}
			ll.f = append(ll.f, v)
		}
		out = append(out, ll)
	}
	return out
}

// TestLogsPerIO: without log_avg_msec every completed I/O has a line in
// each log, in fio's file names (the job's number from 1, clones
// counted), lat = slat + clat on each line, bw = bytes * 10^6 / clat, IOPS
// 1, the offset column within the job's file, times in ms that never go
// back and end within the job's runtime.
func TestLogsPerIO(t *testing.T) {
	dir := t.TempDir()
	job := fmt.Sprintf(`[j]
rw=randrw
bs=4k
size=1m
direct=1
ioengine=libaio
iodepth=4
numjobs=2
write_bw_log=%[1]s/x
write_lat_log=%[1]s/x
write_iops_log=%[1]s/x
log_offset=1
`, dir)
	res := run(t, job, Options{Device: "sim:ssd"})
	for n, js := range res.Run.Jobs {
		name := func(kind string) string { return filepath.Join(dir, fmt.Sprintf("x_%s.%d.log", kind, n+1)) }
		lat, slat, clat := readLog(t, name("lat"), 6), readLog(t, name("slat"), 6), readLog(t, name("clat"), 6)
		bw, iops := readLog(t, name("bw"), 6), readLog(t, name("iops"), 6)
		ios := js.Read.IOs + js.Write.IOs
		for _, l := range [][]logLine{lat, slat, clat, bw, iops} {
			if int64(len(l)) != int64(ios) {
				t.Fatalf("job %d: %d lines, want %d I/Os", n+1, len(l), ios)
			}
		}
		var reads int64
		last := int64(0)
		for i := range lat {
			if lat[i].f[1] != slat[i].f[1]+clat[i].f[1] {
				t.Errorf("job %d line %d: lat %d != slat %d + clat %d", n+1, i+1, lat[i].f[1], slat[i].f[1], clat[i].f[1])
			}
			if c := clat[i].f[1]; c > 0 && bw[i].f[1] != 4096*1_000_000/c {
				t.Errorf("job %d line %d: bw %d, want 4096e6/%d", n+1, i+1, bw[i].f[1], c)
			}
			if iops[i].f[1] != 1 || lat[i].f[3] != 4096 || lat[i].f[4]%4096 != 0 || lat[i].f[4] >= 1<<20 || lat[i].f[5] != 0 {
				t.Errorf("job %d line %d: %v", n+1, i+1, lat[i].raw)
			}
			if lat[i].f[0] < last {
				t.Errorf("job %d line %d: time %d after %d", n+1, i+1, lat[i].f[0], last)
			}
			last = lat[i].f[0]
			if lat[i].f[2] == 0 {
				reads++
			}
		}
		if reads != int64(js.Read.IOs) {
			t.Errorf("job %d: %d read lines, want %d", n+1, reads, js.Read.IOs)
		}
		if ms := js.Runtime / 1e6; last > ms {
			t.Errorf("job %d: last line at %d ms, runtime %d ms", n+1, last, ms)
		}
	}
}

// TestLogsSharedFile: per_job_logs=0 drops the job's number and the
// jobs share the file: a line per I/O of either; without log_offset a
// line has 5 fields.
func TestLogsSharedFile(t *testing.T) {
	dir := t.TempDir()
	job := fmt.Sprintf("[j]\nrw=randread\nbs=4k\nsize=256k\ndirect=1\nnumjobs=2\nper_job_logs=0\nwrite_iops_log=%s/s\n", dir)
	res := run(t, job, Options{Device: "sim:ssd"})
	got := readLog(t, filepath.Join(dir, "s_iops.log"), 5)
	if want := res.Run.Jobs[0].Read.IOs + res.Run.Jobs[1].Read.IOs; uint64(len(got)) != want {
		t.Errorf("%d lines, want %d", len(got), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "s_iops.1.log")); err == nil {
		t.Error("per_job_logs=0 wrote s_iops.1.log")
	}
}

// TestLogsAveraged: with log_avg_msec the IOPS and bandwidth logs have one
// line per window at its end (rate_iops=1000 in windows of 100 ms: 100
// I/Os, 400 KiB in each: 1000 IOPS, 4000 KiB/s), block size 0; the
// latency log's lines are at least a window apart and each lies within
// the job's latency range; log_max_value logs values at least the means.
func TestLogsAveraged(t *testing.T) {
	read := func(maxValue int) (iops, bw, lat []logLine, res *Result) {
		dir := t.TempDir()
		job := fmt.Sprintf(`[j]
rw=randread
bs=4k
size=64m
rate_iops=1000
time_based
runtime=1s
write_iops_log=%[1]s/a
write_bw_log=%[1]s/a
write_lat_log=%[1]s/a
log_avg_msec=100
log_max_value=%[2]d
`, dir, maxValue)
		res = run(t, job, Options{Device: "sim:ssd"})
		return readLog(t, dir+"/a_iops.1.log", 5), readLog(t, dir+"/a_bw.1.log", 5), readLog(t, dir+"/a_lat.1.log", 5), res
	}
	iops, bw, lat, res := read(0)
	if len(iops) < 9 || len(iops) > 10 || len(bw) != len(iops) {
		t.Fatalf("%d IOPS lines, %d bw lines, want 9 or 10 (a 1 s run in 100 ms windows)", len(iops), len(bw))
	}
	for i, l := range iops {
		if l.f[0] != int64(100*(i+1)) || l.f[1] != 1000 || l.f[3] != 0 || bw[i].f[1] != 4000 || bw[i].f[0] != l.f[0] {
			t.Errorf("window %d: iops %v, bw %v; want time %d, 1000 IOPS, 4000 KiB/s, bs 0", i+1, l.raw, bw[i].raw, 100*(i+1))
		}
	}
	r := res.Run.Jobs[0].Read.Lat
	for i, l := range lat {
		if l.f[1] < r.Min() || l.f[1] > r.Max() {
			t.Errorf("lat line %d: %d outside the job's %d..%d ns", i+1, l.f[1], r.Min(), r.Max())
		}
		if i > 0 && l.f[0]-lat[i-1].f[0] < 100 && i < len(lat)-1 {
			t.Errorf("lat lines %d, %d: %d and %d ms, less than a window apart", i, i+1, lat[i-1].f[0], l.f[0])
		}
	}
	_, _, latMax, _ := read(1)
	if len(latMax) != len(lat) {
		t.Fatalf("log_max_value: %d lines, %d without", len(latMax), len(lat))
	}
	for i := range lat {
		if latMax[i].f[1] < lat[i].f[1] {
			t.Errorf("line %d: max %d below mean %d", i+1, latMax[i].f[1], lat[i].f[1])
		}
	}
}

// TestLogsPrio: the last column is 1 for the real-time class, 0 otherwise;
// with log_prio it is fio's ioprio value in hex (class << 13 | level).
func TestLogsPrio(t *testing.T) {
	for _, tc := range []struct {
		opts string
		want string
	}{
		{"prioclass=1\nprio=3\n", "1"},
		{"prioclass=3\n", "0"},
		{"prioclass=1\nprio=3\nlog_prio=1\n", "0x2003"},
		{"prio=5\nlog_prio=1\n", "0x4005"},
		{"log_prio=1\n", "0x0000"},
	} {
		dir := t.TempDir()
		run(t, fmt.Sprintf("[j]\nrw=read\nbs=4k\nsize=64k\nwrite_lat_log=%s/p\n%s", dir, tc.opts), Options{Device: "sim:ssd"})
		for _, l := range readLog(t, dir+"/p_clat.1.log", 5) {
			if l.raw[4] != tc.want {
				t.Errorf("%q: prio column %q, want %q", tc.opts, l.raw[4], tc.want)
				break
			}
		}
	}
}

// TestLogsBadPath: a log that cannot be created is an error naming it.
func TestLogsBadPath(t *testing.T) {
	_, err := Run(parse(t, "[j]\nrw=read\nbs=4k\nsize=64k\nwrite_bw_log=/nonexistent/dir/x\n"), Options{Device: "sim:ssd"})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/dir/x_bw.1.log") || !strings.Contains(err.Error(), `job "j"`) {
		t.Errorf("err %v", err)
	}
}

// TestHistLog: write_hist_log writes NAME_clat_hist.N.log as fio does: a
// line per log_hist_msec window of the direction with 1856 >>
// log_hist_coarseness bin columns, which count the window's completions
// (on sim:ssd a read's clat is 97,301 ns: fio's bin 735, whose value fio
// prints as 97,792). As in fio, whose "not started" is a start at 0 ms,
// the clock starts at the first completion after 0 ms (5 ms at 200 IOPS),
// so the lines are at 505, 1005 and 1505 ms, the first with 102 reads:
// what fio 3.33 writes for this job.
func TestHistLog(t *testing.T) {
	if b := report.PlatIndex(97301); b != 735 {
		t.Fatalf("bin of 97301 ns: %d, want 735", b)
	}
	if b := report.PlatIndex(100); b != 100 || report.PlatIndex(1<<62) != report.PlatBins-1 {
		t.Fatalf("bins of 100 ns, 2^62 ns: %d, %d", b, report.PlatIndex(1<<62))
	}
	for _, coarse := range []int{0, 2, 6} {
		dir := t.TempDir()
		res := run(t, fmt.Sprintf("[j]\nrw=randread\nbs=4k\nsize=64m\ndirect=1\nrate_iops=200\ntime_based\nruntime=2s\nwrite_hist_log=%s/h\nlog_hist_msec=500\nlog_hist_coarseness=%d\n", dir, coarse), Options{Device: "sim:ssd"})
		lines := readLog(t, dir+"/h_clat_hist.1.log", 3+report.PlatBins>>coarse)
		if len(lines) != 3 {
			t.Fatalf("coarseness %d: %d lines, want 3 (windows of 500 ms in 2 s, the last unwritten)", coarse, len(lines))
		}
		var total int64
		for i, l := range lines {
			col := 3 + 735>>coarse
			want := int64(100)
			if i == 0 {
				want = 102
			}
			if l.f[0] != int64(500*(i+1)+5) || l.f[1] != 0 || l.f[2] != 4096 || l.f[col] != want {
				t.Errorf("coarseness %d line %d: time %d, dir %d, bs %d, column %d holds %d; want %d reads", coarse, i+1, l.f[0], l.f[1], l.f[2], col, l.f[col], want)
			}
			for _, v := range l.f[3:] {
				total += v
			}
		}
		if ios := int64(res.Run.Jobs[0].Read.IOs); total > ios || total < ios-101 {
			t.Errorf("coarseness %d: %d completions in the lines, the job did %d", coarse, total, ios)
		}
	}
}
