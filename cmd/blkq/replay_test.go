package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/trace"
)

// qEvents returns a trace's Q events as "op sector+sectors" lines, in order.
func qEvents(t *testing.T, path string) []string {
	t.Helper()
	recs, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range recs {
		r := &recs[i]
		if !r.IsNotify() && r.What() == trace.TAQueue {
			out = append(out, fmt.Sprintf("%s %d+%d", r.RWBS(), r.Sector, r.Sectors()))
		}
	}
	return out
}

// TestTraceRoundTrip: a corpus job run with --trace, then replayed from
// that trace (recorded timing), submits the same bios: op, sector, size,
// order.
func TestTraceRoundTrip(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "run.blktrace.0"), filepath.Join(dir, "replay.blktrace.0")
	if _, _, err := runCLI(t, "--runtime-cap=1s", "--trace", first, "../../testdata/fio-3.33/fio-rand-RW.fio"); err != nil {
		t.Fatal(err)
	}
	var o, e strings.Builder
	if err := cmdReplay([]string{"--trace", second, first}, &o, &e); err != nil {
		t.Fatalf("replay: %v\n%s", err, e.String())
	}
	a, b := qEvents(t, first), qEvents(t, second)
	if len(a) == 0 {
		t.Fatal("the run's trace has no Q events")
	}
	if len(a) != len(b) {
		t.Fatalf("run queued %d bios, replay %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("bio %d: run %q, replay %q", i, a[i], b[i])
		}
	}
	t.Logf("%d bios replayed identically", len(a))
}

func TestReplayCompareMQSim(t *testing.T) {
	for _, tr := range []string{"mqsim-tpcc-small.trace", "mqsim-wsrch-small.trace"} {
		for _, dev := range []string{"sim:hdd", "sim:ssd"} {
			var o, e strings.Builder
			err := cmdReplay([]string{"--device", dev, "--compare", "sched=none,mq-deadline,linus", "../../testdata/traces/" + tr}, &o, &e)
			if err != nil {
				t.Fatalf("%s on %s: %v", tr, dev, err)
			}
			for _, s := range []string{"sched=none", "sched=mq-deadline", "sched=linus"} {
				if !strings.Contains(o.String(), s) {
					t.Fatalf("%s on %s: table lacks %s:\n%s", tr, dev, s, o.String())
				}
			}
			t.Logf("%s on %s:\n%s", tr, dev, o.String())
		}
	}
}

// TestExperimentTrace: --trace on an experiment writes one blktrace per
// configuration that blkq's reader accepts.
func TestExperimentTrace(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "x")
	var o, e strings.Builder
	if err := cmdExperiment([]string{"--scale", "0.02", "--trace", prefix, "wakeall"}, &o, &e); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"fair-wake-one", "fair-wakeall"} {
		if q := qEvents(t, prefix+"-"+c+".blktrace.0"); len(q) == 0 {
			t.Fatalf("config %s: no Q events traced", c)
		}
	}
}

// TestLatencyProbe: blkq latency measures wake-ups under a write load and
// reports them with the hold times of the queue lock, the buffer cache
// lock and the control lock, each with some holds timed on both clocks.
func TestLatencyProbe(t *testing.T) {
	var o, e strings.Builder
	if err := cmdLatency([]string{"--duration", "300ms", "--writers", "2", "--dir", t.TempDir()}, &o, &e); err != nil {
		t.Fatal(err)
	}
	var samples int
	// At most one sample per 1 ms period of the 300 ms (none past the
	// end, no burst after falling behind); how many of them a loaded
	// machine lets the probe take is not the test's business.
	if _, err := fmt.Sscanf(o.String(), "blkq latency: %d samples", &samples); err != nil || samples < 1 || samples > 300 {
		t.Fatalf("want 1 to 300 samples at 1 kHz in 300 ms, got %d (%v):\n%s", samples, err, o.String())
	}
	for _, want := range []string{"T: 0 I:1000", "Max:", "histogram of wake-up latency"} {
		if !strings.Contains(o.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, o.String())
		}
	}
	for _, lock := range []string{"queue lock", "buffer cache lock", "control"} {
		found := false
		for _, line := range strings.Split(o.String(), "\n") {
			if !strings.HasPrefix(line, lock+" ") {
				continue
			}
			found = true
			var holds int
			var f [6]float64
			rest := strings.TrimSpace(strings.TrimPrefix(line, lock))
			if n, _ := fmt.Sscanf(rest, "%d %f %f %f %f %f %f", &holds, &f[0], &f[1], &f[2], &f[3], &f[4], &f[5]); n != 7 || holds == 0 || f[1] <= 0 || f[4] <= 0 {
				t.Fatalf("%s: want holds and wall and CPU figures, got %q", lock, line)
			}
		}
		if !found {
			t.Fatalf("output lacks the %s line:\n%s", lock, o.String())
		}
	}
}

// TestReplayOfAPipeIsRefusedBeforeReading: a trace given as a pipe (a
// FIFO here; a process substitution is one) is refused by name at once,
// instead of a parse error in the middle of the stream or a hang at the
// second open.
func TestReplayOfAPipeIsRefusedBeforeReading(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "trace.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{fifo}, {"--parse-only", fifo}, {"--format", "blktrace", fifo}} {
		done := make(chan error, 1)
		var o, e strings.Builder
		go func() { done <- cmdReplay(args, &o, &e) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "pipe, FIFO or socket") || !strings.Contains(err.Error(), fifo) {
				t.Errorf("replay %q: err = %v, want the FIFO refused by name", args, err)
			}
		case <-time.After(time.Minute): // no writer: an open of the FIFO would block for ever
			t.Fatalf("replay %q of a FIFO with no writer did not return", args)
		}
	}
}

// TestReplayCompareCountsWhatARuntimeCapLeft: under --runtime-cap each
// setting's line says how many of the trace's records it replayed, not
// the trace's length (it said "replayed 4322 records" for a replay its
// cap had stopped after 8).
func TestReplayCompareCountsWhatARuntimeCapLeft(t *testing.T) {
	const tr = "../../testdata/traces/mqsim-tpcc-small.trace"
	count := func(args ...string) (replayed, total int) {
		var o, e strings.Builder
		if err := cmdReplay(append(args, "--compare", "nomerges=0,2", tr), &o, &e); err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, l := range strings.Split(e.String(), "\n") {
			if strings.Contains(l, " replayed ") && strings.Contains(l, " wall") {
				var name string
				if _, err := fmt.Sscanf(l, "blkq: %s replayed %d of %d records", &name, &replayed, &total); err != nil {
					t.Fatalf("%q: %v", l, err)
				}
				lines++
			}
		}
		if lines != 2 {
			t.Fatalf("want one line per setting, got %d:\n%s", lines, e.String())
		}
		return replayed, total
	}
	all, total := count()
	if all != total || total == 0 {
		t.Fatalf("uncapped: replayed %d of %d", all, total)
	}
	capped, total2 := count("--runtime-cap", "1ms")
	if total2 != total || capped <= 0 || capped >= total {
		t.Fatalf("--runtime-cap 1ms: replayed %d of %d; want fewer than all %d", capped, total2, total)
	}
}
