package engine

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// TestStatusReportsOnTheVirtualClock: with StatusInterval, a simulated
// run reports every 500 ms of virtual time, each report cumulative as
// fio's --status-interval ones: a running job with its runtime so far
// and its bytes by then, a finished one as it ended, one not started
// empty; the reports are as deterministic as the run, and the final
// report is unchanged by them.
func TestStatusReportsOnTheVirtualClock(t *testing.T) {
	src := "[global]\nrw=read\nbs=64k\nsize=1g\ntime_based\n[a]\nruntime=1s\n[b]\nstonewall\nruntime=1s\n"
	type seen struct {
		runtime [2]int64  // ms, of a and b
		bytes   [2]uint64 // read by a and b
		json    string
	}
	run := func(interval time.Duration) ([]seen, *Result) {
		jf, err := fio.Parse("status.fio", []byte(src), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		var got []seen
		opt := Options{Device: "sim:ssd", StatusInterval: interval, OnStatus: func(r *report.Run) {
			var s seen
			for i, j := range r.Jobs {
				s.runtime[i], s.bytes[i] = j.Runtime/1e6, j.Read.Bytes
			}
			var b bytes.Buffer
			report.WriteJSON(&b, r)
			s.json = jsonWallClock.ReplaceAllString(b.String(), "")
			got = append(got, s)
		}}
		res, err := Run(jf, opt)
		if err != nil {
			t.Fatal(err)
		}
		return got, res
	}
	got, res := run(500 * time.Millisecond)
	// a issues for 1 s, and ends when its last I/O does, a little after;
	// b starts then and issues for 1 s: reports at 0.5, 1, 1.5 and 2 s,
	// a still running at 1 s, b 1 ms short of its 0.5 s and 1 s then.
	want := [][2]int64{{500, 0}, {1000, 0}, {1000, 499}, {1000, 999}}
	if len(got) != len(want) {
		for _, s := range got {
			t.Logf("runtimes %v bytes %v", s.runtime, s.bytes)
		}
		t.Fatalf("%d reports, want %d", len(got), len(want))
	}
	for i, s := range got {
		if s.runtime != want[i] {
			t.Errorf("report %d: runtimes %v ms, want %v", i, s.runtime, want[i])
		}
	}
	a, b := res.Run.Jobs[0].Read.Bytes, res.Run.Jobs[1].Read.Bytes
	if got[0].bytes[0] == 0 || got[0].bytes[0] >= got[1].bytes[0] || got[1].bytes[0] >= a {
		t.Errorf("a's bytes at 0.5 s, 1 s: %d, %d; at its end %d: want rising", got[0].bytes[0], got[1].bytes[0], a)
	}
	if got[2].bytes[0] != a || got[1].bytes[1] != 0 || got[2].bytes[1] == 0 || got[2].bytes[1] >= got[3].bytes[1] || got[3].bytes[1] >= b {
		t.Errorf("at 1.5 s: a %d (its end %d), b %d (its end %d; at 1 s %d)", got[2].bytes[0], a, got[2].bytes[1], b, got[1].bytes[1])
	}
	again, res2 := run(500 * time.Millisecond)
	for i := range got {
		if i < len(again) && again[i].json != got[i].json {
			t.Errorf("report %d differs from run to run", i)
		}
	}
	_, plain := run(0)
	var w1, w2 bytes.Buffer
	report.WriteJSON(&w1, res2.Run)
	report.WriteJSON(&w2, plain.Run)
	if jsonWallClock.ReplaceAllString(w1.String(), "") != jsonWallClock.ReplaceAllString(w2.String(), "") {
		t.Error("the final report with status reports differs from the one without")
	}
}

// jsonWallClock matches the wall-clock fields of a JSON report.
var jsonWallClock = regexp.MustCompile(`(?m)^.*"(time|timestamp|timestamp_ms)" : .*$`)
