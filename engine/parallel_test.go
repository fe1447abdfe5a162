package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/report"
)

// chosen runs f and returns the parallel choice of each file run it
// made (parallelChosen).
func chosen(t *testing.T, f func()) []bool {
	t.Helper()
	var got []bool
	parallelChosen = func(p bool) { got = append(got, p) }
	defer func() { parallelChosen = nil }()
	f()
	return got
}

// readers is numjobs psync readers of a 1 MiB file, 256 reads each.
func readers(numjobs int, direct int, extra string) string {
	return "[global]\nioengine=psync\nbs=4k\nrw=randread\nsize=1m\ninvalidate=0\n" +
		"direct=" + string(rune('0'+direct)) + "\n" + extra + "[r]\nnumjobs=" + string(rune('0'+numjobs)) + "\n"
}

// TestParallelOnlyForIndependentReaders: a file run gives its jobs
// executors of their own when they only read and share nothing else;
// one job, a writer, a status interval, aggregate logs, a flow, verify,
// a per-job log or ioscheduler= keep them on the run's.
func TestParallelOnlyForIndependentReaders(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		src  string
		opt  Options
		want bool
	}{
		{"4 readers", readers(4, 0, ""), Options{}, true},
		{"4 direct readers", readers(4, 1, ""), Options{}, true},
		{"group_reporting", readers(4, 0, "group_reporting\n"), Options{}, true},
		{"1 reader", readers(1, 0, ""), Options{}, false},
		{"a writer", readers(3, 0, "") + "[w]\nrw=randwrite\n", Options{}, false},
		{"status interval", readers(4, 0, ""), Options{StatusInterval: 1e9, OnStatus: func(*report.Run) {}}, false},
		{"aggregate logs", readers(4, 0, ""), Options{BandwidthLog: true, LogDir: dir}, false},
		{"flow", readers(4, 0, "flow_id=1\nflow=1\n"), Options{}, false},
		{"verify", readers(4, 0, "verify=crc32c\n"), Options{}, false},
		{"bw log", readers(4, 0, "write_bw_log="+filepath.Join(dir, "l")+"\n"), Options{}, false},
		{"ioscheduler", readers(4, 0, "ioscheduler=none\n"), Options{}, false},
	}
	for _, c := range cases {
		c.opt.Device = "file:" + filepath.Join(dir, "f")
		// (Whether the run succeeds is not the point: verify= reads
		// blocks no verify wrote.)
		got := chosen(t, func() { Run(parse(t, c.src), c.opt) })
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: parallel %v; want [%v]", c.name, got, c.want)
		}
	}
}

// TestParallelReadersReadTheirShare: four readers on executors of their
// own, buffered and direct, each read all 256 of their blocks and no
// more, and the run's own check (every bio ended once, the pool whole)
// holds. Run with -race: they share the queue, the page cache, the
// device and the run's end.
func TestParallelReadersReadTheirShare(t *testing.T) {
	for _, direct := range []int{0, 1} {
		path := filepath.Join(t.TempDir(), "f")
		var res *Result
		got := chosen(t, func() { res = run(t, readers(4, direct, "group_reporting\n"), Options{Device: "file:" + path}) })
		if len(got) != 1 || !got[0] {
			t.Fatalf("direct=%d: parallel %v; want [true]", direct, got)
		}
		if len(res.Run.Jobs) != 4 {
			t.Fatalf("direct=%d: %d jobs; want 4", direct, len(res.Run.Jobs))
		}
		for _, js := range res.Run.Jobs {
			if js.Read.IOs != 256 || js.Read.Bytes != 1<<20 {
				t.Errorf("direct=%d: job %s read %d I/Os, %d bytes; want 256, 1 MiB", direct, js.Name, js.Read.IOs, js.Read.Bytes)
			}
		}
	}
}

// TestParallelStonewallAndExitall: on executors of their own, jobs after
// a stonewall start once the jobs before it have finished, and exitall
// ends the time_based jobs still running when its job finishes.
func TestParallelStonewallAndExitall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	src := "[global]\nioengine=psync\nbs=4k\nrw=randread\nsize=1m\ninvalidate=0\ndirect=0\n" +
		"[a]\nnumjobs=2\n" +
		"[b]\nstonewall\nnumjobs=2\ntime_based\nruntime=1h\n" +
		"[c]\nnumber_ios=64\nexitall\n"
	var res *Result
	got := chosen(t, func() { res = run(t, src, Options{Device: "file:" + path}) })
	if len(got) != 1 || !got[0] {
		t.Fatalf("parallel %v; want [true]", got)
	}
	ios := map[string][]uint64{}
	for _, js := range res.Run.Jobs {
		ios[js.Name] = append(ios[js.Name], js.Read.IOs)
	}
	for _, n := range ios["a"] {
		if n != 256 {
			t.Errorf("a: %d reads; want 256", n)
		}
	}
	if c := ios["c"]; len(c) != 1 || c[0] != 64 {
		t.Errorf("c: reads %v; want [64]", c)
	}
	if b := ios["b"]; len(b) != 2 {
		t.Errorf("b: %d jobs; want 2", len(b))
	}
	// b's runtime is an hour: the run ended because exitall stopped it.
	if res.Elapsed > 10*60*1e9 {
		t.Errorf("run took %v: exitall did not stop b", res.Elapsed)
	}
}

// TestParallelStop: an interruption of readers on executors of their own
// ends each, with the report of what ran; one before the run starts any
// runs nothing.
func TestParallelStop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	endlessReaders := readers(4, 0, "time_based\nruntime=1h\n")
	// (On the wall clock: buffered reads of a cached file make no queue
	// events for stopAfter to count.)
	stop := make(chan struct{})
	time.AfterFunc(100*time.Millisecond, func() { close(stop) })
	var res *Result
	got := chosen(t, func() { res = run(t, endlessReaders, Options{Device: "file:" + path, Stop: stop}) })
	if len(got) != 1 || !got[0] {
		t.Fatalf("parallel %v; want [true]", got)
	}
	var n uint64
	for _, js := range res.Run.Jobs {
		n += js.Read.IOs
	}
	if !res.Interrupted || n == 0 {
		t.Fatalf("interrupted %v after %d reads; want interrupted after some", res.Interrupted, n)
	}
	before := make(chan struct{})
	close(before)
	res = run(t, readers(4, 0, "startdelay=10ms\n"), Options{Device: "file:" + path, Stop: before})
	for _, js := range res.Run.Jobs {
		if js.Read.IOs != 0 || !res.Interrupted {
			t.Fatalf("stopped before the run: job %s read %d (interrupted %v); want none", js.Name, js.Read.IOs, res.Interrupted)
		}
	}
}
