package trace_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/trace"
	"github.com/blkq-dev/blkq/workload/fio"
)

// corpus is the shared fio corpus, relative to this package.
const corpus = "../testdata/fio-3.33/"

// needTool returns the path of an outside tool. A missing tool skips the
// test, except under CI (CI=true), where it fails it: test.sh installs
// the tools, so CI must not pass by skipping.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not installed (apt-get install blktrace); CI must run this test", name)
		}
		t.Skipf("%s not installed (apt-get install blktrace)", name)
	}
	return p
}

// runJob runs a fio job file from the corpus on the simulated disk with
// the runtime capped (and sizes capped at 64 MiB), feeding the tracers.
func runJob(t testing.TB, file string, runtime time.Duration, tracers ...blkq.Tracer) *engine.Result {
	t.Helper()
	return runJobWith(t, file, engine.Options{RuntimeCap: runtime}, tracers...)
}

// runJobWith is runJob with more options.
func runJobWith(t testing.TB, file string, opt engine.Options, tracers ...blkq.Tracer) *engine.Result {
	t.Helper()
	jf, err := fio.ParseFile(filepath.Join(corpus, file))
	if err != nil {
		t.Fatal(err)
	}
	if opt.SizeCap == 0 {
		opt.SizeCap = 64 << 20
	}
	opt.Tracers = tracers
	res, err := engine.Run(jf, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// traceJob runs a corpus job and returns its binary trace and the Stats
// of the same run.
func traceJob(t testing.TB, file string, runtime time.Duration) ([]byte, *trace.Stats) {
	t.Helper()
	return traceJobWith(t, file, engine.Options{RuntimeCap: runtime})
}

// traceJobWith is traceJob with more options.
func traceJobWith(t testing.TB, file string, opt engine.Options) ([]byte, *trace.Stats) {
	t.Helper()
	var buf bytes.Buffer
	w := trace.NewWriter(&buf, trace.WriterOptions{})
	st := trace.NewStats()
	runJobWith(t, file, opt, w, st)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), st
}

// fixedDevice serves one request at a time, each in a fixed time, on a
// simulated loop.
type fixedDevice struct {
	loop     *sim.Loop
	service  time.Duration
	complete func(*blkq.Request, error)
	err      error // the outcome of every request
}

func (d *fixedDevice) Name() string                             { return "fixed" }
func (d *fixedDevice) Capacity() uint64                         { return 1 << 30 }
func (d *fixedDevice) Depth() int                               { return 1 }
func (d *fixedDevice) Attach(c func(rq *blkq.Request, e error)) { d.complete = c }
func (d *fixedDevice) Close() error                             { return nil }
func (d *fixedDevice) Issue(rq *blkq.Request) {
	d.loop.Schedule(d.service, func() { d.complete(rq, d.err) })
}

// scenario runs a small hand-checked workload: task "writer" (pid 7)
// plugs, queues writes at 0+8 and 8+8 (a back merge on the plug) and
// 100+8, and unplugs; then task "reader" (pid 9) reads 200+8 with the sync
// and meta flags. The device takes 1 ms per request, one at a time, FIFO.
func scenario(t testing.TB, devErr error, tracers ...blkq.Tracer) {
	t.Helper()
	loop := sim.NewLoop()
	dev := &fixedDevice{loop: loop, service: time.Millisecond, err: devErr}
	q, err := blkq.New(dev, loop, blkq.Config{Scheduler: "none"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range tracers {
		q.AddTracer(tr)
	}
	w := blkq.NewTask(7, "writer")
	r := blkq.NewTask(9, "reader")
	loop.Post(func() {
		q.Plug(w)
		for _, s := range []uint64{0, 8, 100} {
			q.Enqueue(w, &blkq.Bio{Op: blkq.OpWrite, Sector: s, Sectors: 8})
		}
		q.Finish(w)
	})
	loop.Schedule(500*time.Microsecond, func() {
		q.Enqueue(r, &blkq.Bio{Op: blkq.OpRead, Flags: blkq.FlagSync | blkq.FlagMeta, Sector: 200, Sectors: 8})
	})
	loop.Run()
	if err := q.Check(false); err != nil {
		t.Fatal(err)
	}
}
