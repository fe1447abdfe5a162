package engine

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/trace"
)

// iologOp is one line of an iolog without its time.
type iologOp struct {
	file, act string
	off, n    int64
}

// readIolog parses a version 3 iolog: its I/O lines, in order, and the
// count of each file action.
func readIolog(t *testing.T, path string) (ops []iologOp, acts map[string]int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != "fio version 3 iolog" {
		t.Fatalf("%s: header %q", path, lines[0])
	}
	acts = map[string]int{}
	last := int64(-1)
	for i, l := range lines[1:] {
		f := strings.Fields(l)
		ts, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || ts < last {
			t.Fatalf("%s:%d: time %q after %d", path, i+2, f[0], last)
		}
		last = ts
		switch len(f) {
		case 3:
			acts[f[2]]++
		case 5:
			off, _ := strconv.ParseInt(f[3], 10, 64)
			n, _ := strconv.ParseInt(f[4], 10, 64)
			ops = append(ops, iologOp{f[1], f[2], off, n})
		default:
			t.Fatalf("%s:%d: %q", path, i+2, l)
		}
	}
	return ops, acts
}

// recordJob is a job with reads, writes and fsyncs over two files, spread
// in time by thinktime, that logs its I/O to DIR/a.iolog.
const recordJob = `[j]
directory=%[1]s
rw=randrw
bs=4k
size=256k
nrfiles=2
direct=1
ioengine=libaio
iodepth=4
fsync=8
thinktime=200
write_iolog=%[1]s/a.iolog
`

// replayJob replays DIR/a.iolog and logs what it issues to DIR/b.iolog.
const replayJob = `[r]
direct=1
ioengine=libaio
iodepth=4
read_iolog=%[1]s/a.iolog
write_iolog=%[1]s/b.iolog
%[2]s`

// TestIologRoundTrip: write_iolog logs every I/O and fsync of the job as
// fio's iolog v3 (each file added, opened and closed once, times that
// never go back), and read_iolog of that log issues the same I/O in the
// same order, at the same pace: the replay lasts as long as the run (1 %),
// twice as long at replay_time_scale=50, and less with replay_no_stall.
func TestIologRoundTrip(t *testing.T) {
	dir := t.TempDir()
	rec := run(t, fmt.Sprintf(recordJob, dir), Options{Device: "sim:ssd"})
	a, acts := readIolog(t, dir+"/a.iolog")
	js := rec.Run.Jobs[0]
	var syncs, reads uint64
	for _, o := range a {
		switch o.act {
		case "sync":
			syncs++
		case "read":
			reads++
		}
	}
	if uint64(len(a))-syncs != js.Read.IOs+js.Write.IOs || reads != js.Read.IOs || syncs == 0 {
		t.Fatalf("%d I/O lines (%d syncs, %d reads), the job did %d reads and %d writes", len(a), syncs, reads, js.Read.IOs, js.Write.IOs)
	}
	if acts["add"] != 2 || acts["open"] != 2 || acts["close"] != 2 {
		t.Errorf("file actions %v, want each of add, open, close twice", acts)
	}
	replay := func(opts string) (*Result, []iologOp) {
		os.Remove(dir + "/b.iolog")
		res := run(t, fmt.Sprintf(replayJob, dir, opts), Options{Device: "sim:ssd"})
		b, _ := readIolog(t, dir+"/b.iolog")
		return res, b
	}
	res, b := replay("")
	if fmt.Sprint(b) != fmt.Sprint(a) {
		t.Fatalf("the replay issued\n%v\nthe run\n%v", b, a)
	}
	if r := res.Run.Jobs[0]; r.Read.IOs != js.Read.IOs || r.Write.IOs != js.Write.IOs || r.Name != "r" {
		t.Errorf("replay %s: %d reads, %d writes; the run %d, %d", r.Name, r.Read.IOs, r.Write.IOs, js.Read.IOs, js.Write.IOs)
	}
	runtime := func(r *Result) float64 { return float64(r.Run.Jobs[0].Runtime) }
	if d := runtime(res)/runtime(rec) - 1; d < -0.01 || d > 0.01 {
		t.Errorf("replay %v, run %v: want within 1%%", runtime(res), runtime(rec))
	}
	half, _ := replay("replay_time_scale=50\n")
	if d := runtime(half)/runtime(rec) - 2; d < -0.02 || d > 0.02 {
		t.Errorf("replay_time_scale=50: %v, run %v: want twice as long", runtime(half), runtime(rec))
	}
	fast, nb := replay("replay_no_stall=1\n")
	if runtime(fast) >= runtime(rec)*3/4 || len(nb) != len(a) {
		t.Errorf("replay_no_stall: %v for %d I/Os, run %v for %d", runtime(fast), len(nb), runtime(rec), len(a))
	}
}

// TestIologReplayOptions: replay_scale divides offsets, replay_align
// aligns them down, replay_redirect sends every I/O to one file.
func TestIologReplayOptions(t *testing.T) {
	dir := t.TempDir()
	run(t, fmt.Sprintf(recordJob, dir), Options{Device: "sim:ssd"})
	a, _ := readIolog(t, dir+"/a.iolog")
	run(t, fmt.Sprintf(replayJob, dir, "replay_scale=3\nreplay_align=8k\nreplay_redirect="+dir+"/one\n"), Options{Device: "sim:ssd"})
	b, acts := readIolog(t, dir+"/b.iolog")
	if len(b) != len(a) || acts["add"] != 1 {
		t.Fatalf("%d I/O lines, %v; want %d and one file", len(b), acts, len(a))
	}
	for i := range a {
		want := a[i]
		want.file = dir + "/one"
		if want.act != "sync" {
			want.off = want.off / 3 &^ (8<<10 - 1)
		} else {
			want.off = b[i].off // a sync carries the previous I/O's offset
		}
		if b[i] != want {
			t.Fatalf("line %d: %v, want %v (from %v)", i+1, b[i], want, a[i])
		}
	}
}

// TestIologReplayErrors: a malformed or missing iolog is an error naming
// the job and the file (and the line).
func TestIologReplayErrors(t *testing.T) {
	dir := t.TempDir()
	bad := dir + "/bad.iolog"
	if err := os.WriteFile(bad, []byte("fio version 3 iolog\n1 f add\n2 f read 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{bad, bad + ":3"},
		{dir + "/missing", dir + "/missing"},
	} {
		_, err := Run(parse(t, "[j]\nread_iolog="+tc.path+"\n"), Options{Device: "sim:ssd"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `job "j"`) {
			t.Errorf("%s: err %v", tc.path, err)
		}
	}
}

// TestIologReplayOnFile: on a file: device, in real time, read_iolog
// issues the iolog's I/O in its order (timers a few ns apart may fire
// out of order; the replay keeps the log's), opens the file for writing
// although the job's rw is the default read, and its writes hold what the
// run's data check expects, buffered or direct.
func TestIologReplayOnFile(t *testing.T) {
	dir := t.TempDir()
	run(t, fmt.Sprintf(recordJob, dir), Options{Device: "sim:ssd"})
	a, _ := readIolog(t, dir+"/a.iolog")
	for _, direct := range []string{"0", "1"} {
		os.Remove(dir + "/b.iolog")
		job := fmt.Sprintf("[r]\nioengine=psync\ndirect=%s\nread_iolog=%[2]s/a.iolog\nwrite_iolog=%[2]s/b.iolog\n", direct, dir)
		res := run(t, job, Options{Device: "file:" + dir + "/dev"})
		b, _ := readIolog(t, dir+"/b.iolog")
		if fmt.Sprint(b) != fmt.Sprint(a) {
			t.Errorf("direct=%s: the replay issued\n%v\nthe log\n%v", direct, b, a)
		}
		if res.Verified == 0 {
			t.Errorf("direct=%s: no written sector checked", direct)
		}
	}
}

// TestIologReplayBlktrace: read_iolog takes a blktrace binary too, as fio
// does: its records go to the job's file, and replay_skip (which fio
// applies to blktrace replays only) leaves out the kinds it names.
func TestIologReplayBlktrace(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(dir + "/run.blktrace.0")
	if err != nil {
		t.Fatal(err)
	}
	w := trace.NewWriter(f, trace.WriterOptions{})
	rec := run(t, "[j]\nrw=randrw\nbs=4k\nsize=256k\ndirect=1\nioengine=libaio\niodepth=4\n", Options{Device: "sim:ssd", Tracers: []blkq.Tracer{w}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	js := rec.Run.Jobs[0]
	for _, tc := range []struct {
		skip          string
		reads, writes uint64
	}{
		{"", js.Read.IOs, js.Write.IOs},
		{"replay_skip=write\n", js.Read.IOs, 0},
		{"replay_skip=read,trim\n", 0, js.Write.IOs},
	} {
		job := fmt.Sprintf("[r]\nfilename=%[1]s/data\ndirect=1\nioengine=libaio\niodepth=4\nread_iolog=%[1]s/run.blktrace.0\nwrite_iolog=%[1]s/b.iolog\n%[2]s", dir, tc.skip)
		os.Remove(dir + "/b.iolog")
		res := run(t, job, Options{Device: "sim:ssd"})
		r := res.Run.Jobs[0]
		if r.Read.IOs != tc.reads || r.Write.IOs != tc.writes {
			t.Errorf("%q: %d reads, %d writes; want %d, %d", tc.skip, r.Read.IOs, r.Write.IOs, tc.reads, tc.writes)
		}
		b, acts := readIolog(t, dir+"/b.iolog")
		if acts["add"] != 1 || len(b) == 0 || b[0].file != dir+"/data" {
			t.Errorf("%q: files %v, first I/O %v; want all on %s/data", tc.skip, acts, b[:min(len(b), 1)], dir)
		}
	}
}

// TestIologPerClone: read_iolog=A:B gives each numjobs clone its own log,
// in turn, as fio does.
func TestIologPerClone(t *testing.T) {
	dir := t.TempDir()
	for i, n := range []string{"a", "b"} {
		log := fmt.Sprintf("fio version 3 iolog\n0 %[1]s/f%[2]s add\n1 %[1]s/f%[2]s read %[3]d 4096\n2 %[1]s/f%[2]s read %[3]d 8192\n", dir, n, 4096*(i+1))
		if err := os.WriteFile(dir+"/"+n+".iolog", []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, fmt.Sprintf("[r]\nnumjobs=3\nread_iolog=%[1]s/a.iolog:%[1]s/b.iolog\nwrite_lat_log=%[1]s/l\nlog_offset=1\n", dir), Options{Device: "sim:ssd"})
	for i, js := range res.Run.Jobs {
		if js.Read.IOs != 2 || js.Read.Bytes != 12288 {
			t.Errorf("clone %d: %d reads, %d bytes; want 2, 12288", i, js.Read.IOs, js.Read.Bytes)
		}
		want := int64(4096 * (i%2 + 1)) // a, b, a
		if l := readLog(t, fmt.Sprintf("%s/l_lat.%d.log", dir, i+1), 6); len(l) != 2 || l[0].f[4] != want || l[1].f[4] != want {
			t.Errorf("clone %d: lat log %v; want two reads at offset %d", i, l, want)
		}
	}
}
