package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// The logs and iologs against fio 3.33 itself (Debian's /usr/bin/fio) and
// fio's fiologparser.py: the same job file through both, side by side.

// fiologparser is fio's log parser, vendored with its licence.
const fiologparser = "../testdata/fio-tools/fiologparser.py"

// needOutside returns the path of an outside program. Missing, it skips
// the test, except under CI=true, where it fails it: test.sh installs fio,
// so CI must not pass by skipping.
func needOutside(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed (test.sh installs it); CI must run this test", name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// runFio runs fio on the job file text in dir.
func runFio(t *testing.T, dir, job string) {
	t.Helper()
	bin := needOutside(t, "fio")
	path := filepath.Join(dir, "job.fio")
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--output=/dev/null", path)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fio: %v\n%s", err, out)
	}
}

// runBlkq runs the job file text through the engine on device.
func runBlkq(t *testing.T, job, device string) *Result {
	t.Helper()
	jf, err := fio.Parse("job.fio", []byte(job), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if len(jf.Ignored) > 0 {
		t.Fatalf("ignored options %v", jf.Ignored)
	}
	res, err := Run(jf, Options{Device: device})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// parserLines runs fiologparser.py with args on a log and returns its
// output lines split at ", ".
func parserLines(t *testing.T, log string, args ...string) [][]float64 {
	t.Helper()
	py := needOutside(t, "python3")
	out, err := exec.Command(py, append(append([]string{fiologparser}, args...), log)...).CombinedOutput()
	if err != nil {
		t.Fatalf("fiologparser.py %v %s: %v\n%s", args, log, err, out)
	}
	var rows [][]float64
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var row []float64
		for _, f := range strings.Split(l, ", ") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatalf("fiologparser.py on %s: %q", log, l)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// rateJob is fio's null engine at 200 IOPS for 2 s, logging bandwidth,
// IOPS and latencies under PREFIX.
const rateJob = `[j]
ioengine=null
rw=randread
bs=4k
size=64m
rate_iops=200
time_based
runtime=2s
write_bw_log=%[1]s/j
write_iops_log=%[1]s/j
write_lat_log=%[1]s/j
%[2]s`

// timeSlack is how far apart, in ms, blkq's sample times (virtual, exact)
// and fio's (real, on a machine shared with other work) may be: fio's
// rate limiter falls behind by tens of ms under load, and catches up.
const timeSlack = 100

// near reports whether a and b are within frac of each other.
func near(a, b, frac float64) bool { return a >= b*(1-frac) && a <= b*(1+frac) }

// TestFiologparserReadsBlkqLogs: fio's fiologparser.py reads blkq's bw,
// IOPS and latency logs as it reads fio 3.33's for the same job, averaged
// (log_avg_msec=500) and per I/O (log_offset=1): the same number of
// columns on every line, sample times within timeSlack line by line,
// about as many lines (fio's run, in real time, may log one more window),
// the same direction, block size and priority columns, and values that
// agree where the job fixes them (200 IOPS, 800 KiB/s: fiologparser's
// averages within 5 %) and are latencies elsewhere; fio's fio2gnuplot
// averages blkq's bandwidth log as it averages fio's. The slat log is
// left out: fio's null engine at iodepth=1 is a sync engine and writes it
// empty, as blkq's does (TestFioNullEngineSyncAtDepth1).
func TestFiologparserReadsBlkqLogs(t *testing.T) {
	// Every tool first, so that CI=true fails at once on a missing one.
	needOutside(t, "fio")
	needOutside(t, "python3")
	needOutside(t, "fio2gnuplot")
	for _, mode := range []struct {
		name, opts string
		fields     int
	}{
		{"averaged", "log_avg_msec=500\n", 5},
		{"per-io", "log_offset=1\n", 6},
	} {
		t.Run(mode.name, func(t *testing.T) {
			fdir, bdir := t.TempDir(), t.TempDir()
			runFio(t, fdir, fmt.Sprintf(rateJob, fdir, mode.opts))
			runBlkq(t, fmt.Sprintf(rateJob, bdir, mode.opts), "sim:ssd") // virtual time: no jitter on blkq's side
			for _, kind := range []string{"bw", "iops", "lat", "clat"} {
				name := "j_" + kind + ".1.log"
				fl, bl := readLog(t, filepath.Join(fdir, name), mode.fields), readLog(t, filepath.Join(bdir, name), mode.fields)
				if len(fl) == 0 || len(bl) < len(fl)*98/100-1 || len(bl) > len(fl)*102/100+1 {
					t.Errorf("%s: blkq %d lines, fio %d", name, len(bl), len(fl))
				}
				for i := range min(len(fl), len(bl)) {
					f, b := fl[i].f, bl[i].f
					if d := f[0] - b[0]; d < -timeSlack || d > timeSlack {
						t.Errorf("%s line %d: blkq at %d ms, fio at %d", name, i+1, b[0], f[0])
						break
					}
					if f[2] != b[2] || f[3] != b[3] || f[len(f)-1] != b[len(b)-1] {
						t.Errorf("%s line %d: blkq %v, fio %v: direction, block size, prio differ", name, i+1, bl[i].raw, fl[i].raw)
						break
					}
				}
				fp, bp := parserLines(t, filepath.Join(fdir, name), "-f"), parserLines(t, filepath.Join(bdir, name), "-f")
				if len(fp) == 0 || len(bp) < len(fp)-1 || len(bp) > len(fp)+1 {
					t.Errorf("fiologparser -f %s: blkq %d intervals, fio %d", name, len(bp), len(fp))
				}
				// The last interval ends at the last sample, which fio's
				// real-time run may or may not have written.
				for i := range min(len(fp), len(bp)) - 1 {
					if len(fp[i]) != len(bp[i]) || fp[i][0]-bp[i][0] > timeSlack || bp[i][0]-fp[i][0] > timeSlack {
						t.Errorf("fiologparser -f %s line %d: blkq %v, fio %v", name, i+1, bp[i], fp[i])
					}
				}
				fs, bs := parserLines(t, filepath.Join(fdir, name)), parserLines(t, filepath.Join(bdir, name))
				t.Logf("%s: fiologparser: blkq %v, fio %v", name, bs[0][0], fs[0][0])
				switch kind {
				case "iops", "bw":
					if mode.name == "averaged" && !near(bs[0][0], fs[0][0], 0.05) {
						t.Errorf("%s: fiologparser's average: blkq %v, fio %v", name, bs[0][0], fs[0][0])
					}
				default:
					if bs[0][0] <= 0 {
						t.Errorf("%s: fiologparser's average latency %v ns", name, bs[0][0])
					}
				}
			}
			if mode.name == "averaged" {
				fg, bg := fio2gnuplotAvg(t, fdir), fio2gnuplotAvg(t, bdir)
				if !near(bg, fg, 0.05) {
					t.Errorf("fio2gnuplot -b: average bandwidth blkq %v, fio %v", bg, fg)
				}
			}
		})
	}
}

// fio2gnuplotAvg runs fio's fio2gnuplot on the bandwidth logs in dir
// (without rendering: gnuplot need not be installed) and returns the
// average it computes.
func fio2gnuplotAvg(t *testing.T, dir string) float64 {
	t.Helper()
	bin := needOutside(t, "fio2gnuplot")
	out := filepath.Join(dir, "gnuplot")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-b", "-d", out, "-k")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fio2gnuplot in %s: %v\n%s", dir, err, msg)
	}
	data, err := os.ReadFile(filepath.Join(out, "result.global"))
	if err != nil {
		t.Fatalf("fio2gnuplot in %s: %v", dir, err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "avg="); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("fio2gnuplot in %s: %q", dir, l)
			}
			return f
		}
	}
	t.Fatalf("fio2gnuplot in %s: no avg= in\n%s", dir, data)
	return 0
}

// iologIO is an I/O of a replay: direction (fio's 0 read, 1 write), offset
// in the file and length.
type iologIO struct{ dir, off, n int64 }

// iologIOs are the reads and writes of a version 3 iolog, in order.
func iologIOs(t *testing.T, path string) []iologIO {
	ops, _ := readIolog(t, path)
	var out []iologIO
	for _, o := range ops {
		switch o.act {
		case "read":
			out = append(out, iologIO{0, o.off, o.n})
		case "write":
			out = append(out, iologIO{1, o.off, o.n})
		}
	}
	return out
}

// mixedJob reads and writes DIR/data at random with fsyncs, on a sync
// engine, logging its I/O to DIR/OUT.
const mixedJob = `[j]
filename=%[1]s/data
rw=randrw
bs=4k
size=256k
ioengine=psync
fsync=8
write_iolog=%[1]s/%[2]s
`

// TestFioReplaysBlkqIolog: fio 3.33 reads the iolog blkq writes and issues
// the same I/O, in order (fio writes no iolog while it replays one, so its
// I/O is read from its latency log with log_offset: a line per I/O,
// direction, block size and offset, in completion order, which on a sync
// engine is issue order), and as many fsyncs.
func TestFioReplaysBlkqIolog(t *testing.T) {
	dir := t.TempDir()
	res := runBlkq(t, fmt.Sprintf(mixedJob, dir, "blkq.iolog"), "sim:ssd")
	want := iologIOs(t, dir+"/blkq.iolog")
	if err := os.WriteFile(dir+"/data", make([]byte, 256<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	runFio(t, dir, fmt.Sprintf("[r]\nioengine=psync\nread_iolog=%[1]s/blkq.iolog\nwrite_lat_log=%[1]s/r\nlog_offset=1\n", dir))
	var got []iologIO
	for _, l := range readLog(t, dir+"/r_lat.1.log", 6) {
		got = append(got, iologIO{l.f[2], l.f[4], l.f[3]})
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("fio replayed\n%v\nblkq issued\n%v", got, want)
	}
	if js := res.Run.Jobs[0]; uint64(len(want)) != js.Read.IOs+js.Write.IOs || js.SyncOps == nil || js.SyncOps.IOs == 0 {
		t.Errorf("blkq's iolog has %d I/Os; its job did %d reads, %d writes, syncs %+v", len(want), js.Read.IOs, js.Write.IOs, js.SyncOps)
	}
}

// TestBlkqReplaysFioIolog: blkq reads the iolog fio 3.33 writes and
// issues what fio issued: its own iolog of the replay lists the same
// reads, writes and syncs, in the same order, as fio's.
func TestBlkqReplaysFioIolog(t *testing.T) {
	dir := t.TempDir()
	runFio(t, dir, fmt.Sprintf(mixedJob, dir, "fio.iolog"))
	res := runBlkq(t, fmt.Sprintf("[r]\nioengine=psync\nread_iolog=%[1]s/fio.iolog\nwrite_iolog=%[1]s/blkq.iolog\n", dir), "sim:ssd")
	fops, _ := readIolog(t, dir+"/fio.iolog")
	bops, _ := readIolog(t, dir+"/blkq.iolog")
	if len(fops) == 0 || fmt.Sprint(bops) != fmt.Sprint(fops) {
		t.Errorf("blkq replayed\n%v\nfio issued\n%v", bops, fops)
	}
	var syncs uint64
	for _, o := range fops {
		if o.act == "sync" {
			syncs++
		}
	}
	if js := res.Run.Jobs[0]; js.Read.IOs+js.Write.IOs+syncs != uint64(len(fops)) || js.SyncOps == nil || js.SyncOps.IOs != syncs {
		t.Errorf("blkq's replay: %d reads, %d writes, syncs %+v; fio's iolog %d lines, %d syncs", js.Read.IOs, js.Write.IOs, js.SyncOps, len(fops), syncs)
	}
}

// TestHistLogAgainstFio: blkq's clat histogram log has fio 3.33's shape
// for the same job: as many lines, at the same times (within timeSlack),
// with the same number of columns, directions and block sizes, and the
// same completions in all. Each of blkq's lines holds the completions of
// its interval at 200 IOPS, one per 5 ms, to within the one or two at
// its edges (sim:ssd's clock is virtual); fio's
// run on the wall clock, whose rate limiter catches up in bursts on a
// loaded machine (81 then 119 seen), so only its total is compared.
func TestHistLogAgainstFio(t *testing.T) {
	const job = "[j]\nioengine=null\nrw=randread\nbs=4k\nsize=64m\nrate_iops=200\ntime_based\nruntime=2s\nwrite_hist_log=%s/j\nlog_hist_msec=500\nlog_hist_coarseness=2\n"
	fdir, bdir := t.TempDir(), t.TempDir()
	runFio(t, fdir, fmt.Sprintf(job, fdir))
	runBlkq(t, fmt.Sprintf(job, bdir), "sim:ssd")
	fields := 3 + report.PlatBins>>2
	fl, bl := readLog(t, fdir+"/j_clat_hist.1.log", fields), readLog(t, bdir+"/j_clat_hist.1.log", fields)
	if len(fl) == 0 || len(bl) < len(fl)-1 || len(bl) > len(fl)+1 {
		t.Fatalf("blkq %d lines, fio %d", len(bl), len(fl))
	}
	sum := func(l logLine) (n int64) {
		for _, v := range l.f[3:] {
			n += v
		}
		return n
	}
	var fioAll, blkqAll, prev int64
	for i := range min(len(fl), len(bl)) {
		f, b := fl[i], bl[i]
		fioAll, blkqAll = fioAll+sum(f), blkqAll+sum(b)
		want := (b.f[0] - prev) / 5
		prev = b.f[0]
		if d := f.f[0] - b.f[0]; d < -timeSlack || d > timeSlack || f.f[1] != b.f[1] || f.f[2] != b.f[2] || sum(b) < want-2 || sum(b) > want+2 {
			t.Errorf("line %d: blkq time %d dir %d bs %d count %d (want %d±2); fio %d %d %d %d", i+1, b.f[0], b.f[1], b.f[2], sum(b), want, f.f[0], f.f[1], f.f[2], sum(f))
		}
	}
	if !near(float64(blkqAll), float64(fioAll), 0.05) {
		t.Errorf("completions on the lines both logs have: blkq %d, fio %d", blkqAll, fioAll)
	}
}

// TestNumberIOsPerLoopAsFio: number_ios holds for each loop, as in fio
// 3.33: loops=3 with number_ios=10 issues 30 reads in fio and in blkq
// (and a loop that ends at the file's end before number_ios, 16 reads
// of 64 KiB, is done). Which blocks a loop after a number_ios-ended one
// reads differs: fio goes on from where the loop stopped, blkq begins
// the file again.
func TestNumberIOsPerLoopAsFio(t *testing.T) {
	for _, opts := range []string{"number_ios=10\nloops=3", "number_ios=20\nloops=2", "number_ios=10\nrw=randread\nloops=2"} {
		job := "[x]\nioengine=null\nsize=64k\nbs=4k\n" + opts + "\n"
		dir := t.TempDir()
		runFio(t, dir, job+"write_iolog="+dir+"/fio.log\n")
		var fioReads uint64
		data, err := os.ReadFile(dir + "/fio.log")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) == 5 && f[2] == "read" {
				fioReads++
			}
		}
		res := runBlkq(t, job, "null")
		if got := res.Run.Jobs[0].Read.IOs; got != fioReads || got == 0 {
			t.Errorf("%q: blkq %d reads, fio %d", opts, got, fioReads)
		}
	}
}
