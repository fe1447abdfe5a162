package engine

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim/traced"
	"github.com/blkq-dev/blkq/workload/iotrace"
)

// ktraceRecords reads a kernel trace of testdata/ktrace as replay records,
// with its plugs.
func ktraceRecords(t *testing.T, name string) []ReplayRecord {
	t.Helper()
	recs, _, err := iotrace.ReadFile(ktracePath(name), "")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]ReplayRecord, len(recs))
	for i, r := range recs {
		out[i] = ReplayRecord{Time: r.Time, PID: r.PID, Process: r.Process, Op: r.Op, Flags: r.Flags, Sector: r.Sector, Sectors: r.Sectors, Line: r.Line,
			PlugFirst: r.Plug&iotrace.PlugFirst != 0, PlugLast: r.Plug&iotrace.PlugLast != 0, PlugSlept: r.Plug&iotrace.PlugSlept != 0, Splits: r.Splits}
	}
	return out
}

func ktracePath(name string) string {
	return filepath.Join("..", "testdata", "ktrace", name+".txt")
}

// ktraceTimes are the service times of a kernel trace, for sim:trace.
func ktraceTimes(t *testing.T, name string) *traced.Times {
	t.Helper()
	evs, err := iotrace.ReadEventsFile(ktracePath(name), "")
	if err != nil {
		t.Fatal(err)
	}
	times := traced.NewTimes()
	for _, s := range iotrace.KernelServiceTimes(evs) {
		times.Add(s.Op, s.Sector, s.Sectors, s.D2C)
	}
	return times
}

// replayEvents replays recs and returns its Q events ("pid sector+n") and
// its M, F and D events, in order.
func replayEvents(t *testing.T, recs []ReplayRecord, opt Options, ro ReplayOptions) (qs, decisions []string) {
	t.Helper()
	opt.Tracers = []blkq.Tracer{blkq.TracerFunc(func(e *blkq.Event) {
		switch e.Action {
		case 'Q':
			qs = append(qs, fmt.Sprintf("%d %d+%d", e.PID, e.Sector, e.Sectors))
		case 'M', 'F', 'D':
			decisions = append(decisions, fmt.Sprintf("%c %v %d+%d", e.Action, e.Op, e.Sector, e.Sectors))
		}
	})}
	if _, err := Replay("ktrace", recs, opt, ro); err != nil {
		t.Fatal(err)
	}
	return qs, decisions
}

// TestReplayPlugsAsTheKernel: the kernel's plugs, replayed: fio's batches
// of 16 bios merge on the plug into 38 requests of 63 KiB on average
// (Linux 6.18's own trace, read-4k-qd32-batch16-cmin16-nomerges0-nr256:
// 562 M and 38 D); without the plugs (a trace that shows none) each bio
// reaches the device alone, which (served in the loop device's times)
// is idle enough that nothing merges.
func TestReplayPlugsAsTheKernel(t *testing.T) {
	const name = "read-4k-qd32-batch16-cmin16-nomerges0-nr256"
	recs := ktraceRecords(t, name)
	opt := Options{Device: "sim:trace", ServiceTimes: ktraceTimes(t, name)}
	_, dec := replayEvents(t, recs, opt, ReplayOptions{Timing: "trace"})
	if m, d := count(dec, "M"), count(dec, "D"); m != 562 || d != 38 {
		t.Fatalf("plugged as the trace shows: %d M and %d D, want the kernel's 562 and 38", m, d)
	}
	for i := range recs {
		recs[i].PlugFirst, recs[i].PlugLast, recs[i].PlugSlept = false, false, false
	}
	opt.ServiceTimes = ktraceTimes(t, name)
	_, dec = replayEvents(t, recs, opt, ReplayOptions{Timing: "trace"})
	if m, d := count(dec, "M"), count(dec, "D"); m != 0 || d != 600 {
		t.Fatalf("unplugged: %d M and %d D, want 0 and 600", m, d)
	}
}

// TestReplayAfapFlushesItsPlugs: an afap replay whose depth fills up while
// a plug is open flushes the plug (as a task blocking on its I/O has its
// plug flushed) rather than wait for completions its plugged requests
// would never give.
func TestReplayAfapFlushesItsPlugs(t *testing.T) {
	recs := ktraceRecords(t, "randread-4k-qd32-batch32-nomerges0-nr256")
	res, err := Replay("ktrace", recs, Options{Device: "sim:ssd"}, ReplayOptions{Timing: "afap", IODepth: 4})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Run.Jobs[0].Read.IOs; n != uint64(len(recs)) {
		t.Fatalf("%d of %d reads completed", n, len(recs))
	}
}

// TestTraceTimedNullReplayIsDeterministic: a trace-timed replay on the
// null device (the wall clock) submits the same bios in the same order and
// makes the same merges and requests on every run (issue 12): each record
// meets the queue as the completions of the ones before it left it, not
// as the machine's speed leaves it. With one task, the Q order is the
// trace's.
func TestTraceTimedNullReplayIsDeterministic(t *testing.T) {
	for _, c := range []struct {
		trace string
		nr    int
	}{
		{"rw-4k-qd32-batch32-nomerges0-nr256", 0},
		{"write-4k-qd32-batch32-nomerges0-nr256-jobs2", 0},
		{"randwrite-4k-qd32-batch32-nomerges0-nr4", 4},
	} {
		recs := ktraceRecords(t, c.trace)
		var firstQ, firstDec []string
		for run := range 4 {
			qs, dec := replayEvents(t, recs, Options{Device: "null", NrRequests: c.nr}, ReplayOptions{Timing: "trace"})
			if run == 0 {
				firstQ, firstDec = qs, dec
				if len(qs) != len(recs) {
					t.Fatalf("%s: %d Q events for %d records", c.trace, len(qs), len(recs))
				}
				continue
			}
			if !slices.Equal(qs, firstQ) {
				t.Fatalf("%s: run %d submitted in another order than run 0", c.trace, run)
			}
			if !slices.Equal(dec, firstDec) {
				t.Fatalf("%s: run %d merged or dispatched otherwise than run 0 (%d M, %d D; run 0 %d M, %d D)",
					c.trace, run, count(dec, "M"), count(dec, "D"), count(firstDec, "M"), count(firstDec, "D"))
			}
		}
		if c.nr == 0 && !strings.Contains(c.trace, "jobs2") {
			for i, q := range firstQ {
				if w := fmt.Sprintf("%d %d+%d", recs[i].PID, recs[i].Sector, recs[i].Sectors); q != w {
					t.Fatalf("%s: Q %d is %s, record %d is %s", c.trace, i, q, i, w)
				}
			}
		}
	}
}

// count counts the entries of dec that start with the action a.
func count(dec []string, a string) int {
	n := 0
	for _, d := range dec {
		if strings.HasPrefix(d, a+" ") {
			n++
		}
	}
	return n
}
