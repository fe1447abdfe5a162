package engine

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// genReader generates n records without holding them: 4 pids reading
// sequentially, one record every gap. Every sample records it samples the
// live heap (after a GC), so the test sees the replay's peak.
type genReader struct {
	n, i   int
	gap    time.Duration
	every  int
	peak   *uint64
	base   uint64
	ms     runtime.MemStats
	failAt int // > 0: return an error instead of record failAt
}

func (g *genReader) Next() (ReplayRecord, error) {
	if g.failAt > 0 && g.i == g.failAt {
		return ReplayRecord{}, errors.New("gen: bad record")
	}
	if g.i >= g.n {
		return ReplayRecord{}, io.EOF
	}
	i := g.i
	g.i++
	if g.peak != nil && i%g.every == 0 {
		runtime.GC()
		runtime.ReadMemStats(&g.ms)
		if g.ms.HeapAlloc > g.base {
			*g.peak = max(*g.peak, g.ms.HeapAlloc-g.base)
		}
	}
	pid := i % 4
	return ReplayRecord{Time: time.Duration(i) * g.gap, PID: pid, Process: "gen", Op: blkq.OpRead,
		Sector: uint64(pid)<<30 + uint64(i/4)*8, Sectors: 8, Line: i + 1}, nil
}

func (g *genReader) Close() error { return nil }

// TestReplayOfAMillionRecordsHoldsBoundedMemory: a generated trace of 1M
// records replays, in both timings, with a live heap far below the ~430
// bytes a record that holding the whole trace cost (the one byte a record
// of Result.Merged stays).
func TestReplayOfAMillionRecordsHoldsBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("replays 2M records; the race detector's shadow memory would swamp the figure")
	}
	const n = 1 << 20
	for _, timing := range []string{"afap", "trace"} {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		var peak uint64
		src := func() (ReplayReader, error) {
			return &genReader{n: n, gap: 20 * time.Microsecond, every: n / 16, peak: &peak, base: ms.HeapAlloc}, nil
		}
		res, err := ReplayStream("gen", src, Options{Device: "sim:ssd"}, ReplayOptions{Timing: timing})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Run.Jobs[0].Read.IOs; got != n {
			t.Fatalf("%s: %d reads, want %d", timing, got, n)
		}
		perRec := float64(peak) / n
		t.Logf("%s: peak live heap %.1f MiB over %d records: %.1f bytes/record", timing, float64(peak)/(1<<20), n, perRec)
		if perRec > 40 {
			t.Fatalf("%s: %.1f bytes of live heap per record, want at most 40", timing, perRec)
		}
	}
}

// TestReplayOfTraceWithBadRecordReplaysTheRecordsBeforeIt: a reader error
// ends the trace; the records before it replay and the error is a warning.
func TestReplayOfTraceWithBadRecordReplaysTheRecordsBeforeIt(t *testing.T) {
	src := func() (ReplayReader, error) { return &genReader{n: 100, gap: time.Millisecond, failAt: 60}, nil }
	res, err := ReplayStream("gen", src, Options{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Run.Jobs[0].Read.IOs; got != 60 {
		t.Fatalf("%d reads, want the 60 before the bad record", got)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "gen: bad record (replaying the 60 records before it)") {
		t.Fatalf("warnings %q", res.Warnings)
	}
	if _, err := ReplayStream("gen", func() (ReplayReader, error) { return &genReader{n: 0}, nil }, Options{}, ReplayOptions{}); err == nil {
		t.Fatal("an empty trace replayed")
	}
}

// TestReplayOutOfOrderBeyondTheWindowIsLateAndCounted: records within
// ReplayWindow of their place replay in time order; one further out is
// replayed when reached, and the warning counts it.
func TestReplayOutOfOrderBeyondTheWindowIsLateAndCounted(t *testing.T) {
	n := ReplayWindow + 100
	recs := make([]ReplayRecord, n)
	for i := range recs {
		recs[i] = ReplayRecord{Time: time.Duration(i+1) * time.Microsecond, Op: blkq.OpRead, Sector: uint64(i) * 8, Sectors: 8, Line: i + 1}
	}
	recs[5].Time, recs[6].Time = recs[6].Time, recs[5].Time // within the window
	recs[n-1].Time = 0                                      // belongs first, 16483 records late
	res, err := Replay("late", recs, Options{Device: "sim:ssd"}, ReplayOptions{Timing: "afap"})
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(res.Warnings, "\n")
	if !strings.Contains(w, "not in time order") || !strings.Contains(w, fmt.Sprintf("1 records were more than %d records out of time order", ReplayWindow)) {
		t.Fatalf("warnings %q", res.Warnings)
	}
	if got := res.Run.Jobs[0].Read.IOs; got != uint64(n) {
		t.Fatalf("%d reads, want %d", got, n)
	}
}

// TestReplayRecordsThatOverflowAreErrorsNamingTheRecord: a sector whose
// byte offset overflows an int64, and a trace time that overflows once
// divided by --speed, are errors naming the record's line.
func TestReplayRecordsThatOverflowAreErrorsNamingTheRecord(t *testing.T) {
	for _, c := range []struct {
		name string
		recs []ReplayRecord
		ro   ReplayOptions
		want string
	}{
		{"sector x512", []ReplayRecord{{Op: blkq.OpRead, Sector: 8, Sectors: 8, Line: 1}, {Op: blkq.OpRead, Sector: 1 << 54, Sectors: 8, Line: 2}}, ReplayOptions{}, "t:2: sectors 18014398509481984+8 end past byte 2^63-1"},
		{"range wraps", []ReplayRecord{{Op: blkq.OpRead, Sector: 1<<64 - 4, Sectors: 8, Line: 3}}, ReplayOptions{}, "t:3: sectors 18446744073709551612+8 overflow"},
		{"speed", []ReplayRecord{{Op: blkq.OpRead, Sectors: 8, Line: 1}, {Time: time.Hour, Op: blkq.OpRead, Sectors: 8, Line: 2}}, ReplayOptions{Speed: 1e-20}, "t:2: time 1h0m0s after the first record is, at --speed=1e-20, beyond"},
		{"span", []ReplayRecord{{Time: -1 << 62, Op: blkq.OpRead, Sectors: 8, Line: 1}, {Time: 1<<63 - 1, Op: blkq.OpRead, Sectors: 8, Line: 2}}, ReplayOptions{}, "t:2: time 9223372036854775807 ns is more than 2^63-1 ns after"},
	} {
		_, err := Replay("t", c.recs, Options{}, c.ro)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
