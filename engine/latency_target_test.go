package engine

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/report"
)

// latJob is random 4 KiB reads on sim:hdd, whose total latency grows
// with the queue's depth by about one service time (10 ms at the 90th
// percentile) per I/O queued: 90 % of the reads finish within 30 ms at
// depth 3, not at depth 4.
const latJob = "[r]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\nsize=1g\nruntime=60\ntime_based\n"

const latTargetOpts = "iodepth=16\nlatency_target=30ms\nlatency_window=1s\nlatency_percentile=90\n"

// TestLatencyTargetFindsTheDepth: fio's search starts at depth 1, doubles
// while windows pass (1, 2, 4), halves back between the last pass and
// the failure (3), and, finding 3 again, runs one more window there and
// ends: the job reports depth 3, and its figures are that final window's
// (about 1 s of the 60 s runtime). At depth 3 at most 10 % of the reads
// took longer than the 30 ms target; at depth 4, one deeper, more did,
// over a 20 s run at each fixed depth.
func TestLatencyTargetFindsTheDepth(t *testing.T) {
	res := run(t, latJob+latTargetOpts, Options{})
	js := res.Run.Jobs[0]
	target := int64(30 * time.Millisecond)
	if lt := js.LatencyTarget; lt == nil || lt.Depth != 3 || lt.TargetNs != target || lt.WindowUs != 1e6 || lt.Percentile != 90 {
		t.Fatalf("latency target %+v, want depth 3, target 30 ms, window 1 s, percentile 90", lt)
	}
	if rt := time.Duration(js.Runtime); rt < time.Second || rt > 1100*time.Millisecond {
		t.Errorf("runtime %v: want the final window's, about 1 s", rt)
	}
	if over := js.Read.Lat.PercentAbove(target); over > 10 {
		t.Errorf("final window: %.1f%% of reads over the target, want at most 10%%", over)
	}
	var out bytes.Buffer
	report.WriteNormal(&out, res.Run)
	if !strings.Contains(out.String(), "     latency   : target=30000000, window=1000000, percentile=90.00%, depth=3\n") {
		t.Errorf("no fio latency line:\n%s", out.String())
	}
	for _, c := range []struct {
		depth string
		over  bool
	}{{"3", false}, {"4", true}} {
		js := run(t, strings.Replace(latJob, "runtime=60", "runtime=20", 1)+"iodepth="+c.depth+"\n", Options{}).Run.Jobs[0]
		over := js.Read.Lat.PercentAbove(target)
		t.Logf("iodepth=%s: %.1f%% of %d reads over 30 ms", c.depth, over, js.Read.IOs)
		if (over > 10) != c.over {
			t.Errorf("iodepth=%s: %.1f%% over the target; want over 10%%: %v", c.depth, over, c.over)
		}
	}
}

// TestLatencyRunKeepsSearching: latency_run=1 searches for the whole
// runtime, so the job runs its 20 s and its statistics are never reset.
func TestLatencyRunKeepsSearching(t *testing.T) {
	js := run(t, strings.Replace(latJob, "runtime=60", "runtime=20", 1)+latTargetOpts+"latency_run=1\n", Options{}).Run.Jobs[0]
	if rt := time.Duration(js.Runtime); rt < 20*time.Second {
		t.Errorf("runtime %v, want the 20 s of runtime", rt)
	}
	if d := js.LatencyTarget.Depth; d < 2 || d > 4 {
		t.Errorf("depth %d when the run ended, want about 3", d)
	}
}

// TestLatencyTargetMissedAtDepthOne: with fio's latency_percentile=100
// one read over the target is a failure at once, and at depth 1 it is
// the job's error, as fio's lat_fatal: err=110 (ETIMEDOUT), "max latency
// exceeded", and fio's line on stderr.
func TestLatencyTargetMissedAtDepthOne(t *testing.T) {
	res, err := Run(parse(t, latJob+"iodepth=8\nlatency_target=1ms\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if js.Error != 110 || !strings.Contains(js.ErrorText, "func=max latency exceeded, error=Connection timed out") {
		t.Errorf("error %d %q, want 110, max latency exceeded", js.Error, js.ErrorText)
	}
	if js.Read.IOs != 1 {
		t.Errorf("%d reads, want the one that failed", js.Read.IOs)
	}
	if len(res.IOErrors) != 1 || !strings.HasPrefix(res.IOErrors[0], "fio: latency of ") || !strings.Contains(res.IOErrors[0], "exceeds specified max (1000000 nsec): sim:hdd read ") {
		t.Errorf("stderr lines %q", res.IOErrors)
	}
}

// TestNoLatencyTargetReportsTheDepth: without a target fio reports its
// defaults at the job's iodepth, and the percentile option as set.
func TestNoLatencyTargetReportsTheDepth(t *testing.T) {
	js := run(t, "[r]\nrw=read\nioengine=libaio\ndirect=1\niodepth=6\nsize=1m\nlatency_percentile=50\n", Options{}).Run.Jobs[0]
	if lt := js.LatencyTarget; lt == nil || *lt != (report.LatencyTarget{Percentile: 50, Depth: 6}) {
		t.Errorf("latency target %+v, want depth 6, percentile 50", lt)
	}
}

// TestConfiguredDepthReported: a sync engine runs one I/O at a time
// whatever iodepth says, but fio's header line ("iodepth=4") and JSON
// latency_depth report the configured depth, and so does blkq's report.
func TestConfiguredDepthReported(t *testing.T) {
	res := runBlkq(t, "[x]\nioengine=psync\nrw=randread\nsize=64k\niodepth=4\n", "sim:ssd")
	js := res.Run.Jobs[0]
	if js.IODepth != 4 || js.LatencyTarget == nil || js.LatencyTarget.Depth != 4 {
		t.Errorf("iodepth %d, latency depth %+v: want the configured 4", js.IODepth, js.LatencyTarget)
	}
	if n := js.IODepthHist[report.DepthBucket(1)]; n != js.Read.IOs {
		t.Errorf("%d of %d reads submitted at depth 1: a sync engine keeps one in flight", n, js.Read.IOs)
	}
}
