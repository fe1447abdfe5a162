package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// synthetic returns n records from 4 pids: sequential 8-sector reads per
// pid, one every 100 µs.
func synthetic(n int) []ReplayRecord {
	var recs []ReplayRecord
	for i := range n {
		pid := i % 4
		recs = append(recs, ReplayRecord{Time: time.Duration(i) * 100 * time.Microsecond, PID: pid, Op: blkq.OpRead,
			Sector: uint64(pid)<<30 + uint64(i/4)*8, Sectors: 8, Line: i + 1})
	}
	return recs
}

func TestReplayTimings(t *testing.T) {
	for _, timing := range []string{"trace", "afap"} {
		res, err := Replay("synthetic", synthetic(2000), Options{}, ReplayOptions{Timing: timing, IODepth: 8})
		if err != nil {
			t.Fatalf("%s: %v", timing, err)
		}
		js := res.Run.Jobs[0]
		if js.Read.IOs != 2000 {
			t.Fatalf("%s: %d reads completed, want 2000", timing, js.Read.IOs)
		}
		t.Logf("%s: %.0f ms, %d requests (merges %d)", timing, float64(res.Elapsed)/1e6, js.Blkq.RequestsIssued, js.Blkq.BackMerges)
	}
}

func TestReplayWrapAndStrict(t *testing.T) {
	recs := []ReplayRecord{{Op: blkq.OpWrite, Sector: 1 << 40, Sectors: 8, Line: 7}}
	res, err := Replay("big", recs, Options{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "wrapped") {
		t.Fatalf("no wrap warning: %v", res.Warnings)
	}
	if _, err := Replay("big", recs, Options{}, ReplayOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "big:7") {
		t.Fatalf("--strict: want an error naming big:7, got %v", err)
	}
}

// TestReplayIsAJobOfTheRunner: a replay runs as one job of the runner
// that runs fio jobs, so what the runner does for a job it does for a
// replay: an afap replay's submit calls are counted by how many records
// each carried (the first call fills the depth: 8 records, in the 5-8
// bucket), and every record's completion is one reap.
func TestReplayIsAJobOfTheRunner(t *testing.T) {
	res, err := Replay("synthetic", synthetic(400), Options{}, ReplayOptions{Timing: "afap", IODepth: 8})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	var calls, ios uint64
	for _, n := range js.SubmitHist {
		calls += n
	}
	if js.SubmitHist[report.BatchBucket(8)] == 0 {
		t.Errorf("no submit call carried 5-8 records: %v", js.SubmitHist)
	}
	for _, n := range js.CompleteHist {
		ios += n
	}
	if ios != 400 || calls == 0 || calls >= 400 {
		t.Errorf("%d completions (want 400), %d submit calls (want 1..399): %v", ios, calls, js.SubmitHist)
	}
}

// TestReplayStopsAtRuntimeCap: Options.RuntimeCap ends a replay as it
// ends a fio job: the records in flight complete, the rest are not
// replayed, and a warning says how many were.
func TestReplayStopsAtRuntimeCap(t *testing.T) {
	const cap = 20 * time.Millisecond // records every 100 µs: about 200 arrive
	res, err := Replay("synthetic", synthetic(2000), Options{RuntimeCap: cap}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Run.Jobs[0].Read.IOs
	if n == 0 || n >= 2000 || res.Elapsed < cap {
		t.Fatalf("%d of 2000 records replayed in %v: want some, not all, and at least %v", n, res.Elapsed, cap)
	}
	want := fmt.Sprintf("with %d of 2000 records replayed", n)
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, want) }) {
		t.Fatalf("warnings %q: want one saying %q", res.Warnings, want)
	}
}
