package engine

import (
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// sCounter counts the S events of each pid.
type sCounter map[int]uint64

func (c sCounter) Trace(e *blkq.Event) {
	if e.Action == 'S' {
		c[e.PID]++
	}
}

// TestRunWakeupsFromEventStream: the writers of the default job's shape
// sleep in request allocation; each job's sleeps are its S events, and
// every sleep of a finished run ended in exactly one wake-up, so the
// wake-ups the report shows equal the sleeps (the queue counts the same:
// Replay cross-checks it).
func TestRunWakeupsFromEventStream(t *testing.T) {
	for _, alloc := range []string{"fair", "legacy"} {
		s := sCounter{}
		res := run(t, `[global]
ioengine=libaio
direct=1
bs=4k
size=256m
runtime=2
time_based
[rand-writer]
rw=randwrite
iodepth=64
iodepth_low=16
numjobs=3
`, Options{Alloc: alloc, Tracers: []blkq.Tracer{s}})
		var total uint64
		for _, js := range res.Run.Jobs {
			b := js.Blkq
			if b.Sleeps != s[js.PID] {
				t.Errorf("%s: job %s[%d]: sleeps=%d, the trace has %d S events", alloc, js.Name, js.PID, b.Sleeps, s[js.PID])
			}
			if b.Wakeups != b.Sleeps {
				t.Errorf("%s: job %s: wakeups=%d, want %d (one per sleep)", alloc, js.Name, b.Wakeups, b.Sleeps)
			}
			if b.WaitLat.Count() == 0 && b.Sleeps > 0 {
				t.Errorf("%s: job %s slept %d times but no wait was recorded", alloc, js.Name, b.Sleeps)
			}
			total += b.Sleeps
		}
		if total == 0 {
			t.Fatalf("%s: no job slept: the test shows nothing", alloc)
		}
	}
}

// sleepyTrace is 16 pids each writing 8 scattered 4 KiB blocks at t=0, then
// reads that exhaust the read pool followed by read-ahead reads, all at
// t=1ms.
func sleepyTrace() []ReplayRecord {
	var recs []ReplayRecord
	line := 0
	add := func(at time.Duration, pid int, op blkq.Op, fl blkq.Flags, sector uint64) {
		line++
		recs = append(recs, ReplayRecord{Time: at, PID: pid, Op: op, Flags: fl, Sector: sector, Sectors: 8, Line: line})
	}
	for i := range 128 {
		add(0, i%16, blkq.OpWrite, 0, uint64(i)*1_000_003*8)
	}
	for i := range 8 {
		add(time.Millisecond, 100+i, blkq.OpRead, 0, uint64(i)*2_000_003*8)
	}
	for i := range 8 {
		add(time.Millisecond, 200, blkq.OpRead, blkq.FlagReadAhead, uint64(i)*3_000_017*8)
	}
	return recs
}

// TestReplayCountsWakeupsFromEvents: a replay whose tasks sleep in request
// allocation reports their sleeps and as many wake-ups (today's bug:
// wakeups=0), the same counts the queue keeps.
func TestReplayCountsWakeupsFromEvents(t *testing.T) {
	res, err := Replay("sleepy", sleepyTrace(), Options{NrRequests: 4, NoMerges: 2}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Run.Jobs[0].Blkq
	if b.Sleeps == 0 {
		t.Fatal("no sleeps: the test shows nothing")
	}
	if b.Wakeups != b.Sleeps {
		t.Errorf("wakeups=%d, sleeps=%d: want one wake-up per sleep", b.Wakeups, b.Sleeps)
	}
	if got := uint64(b.WaitLat.Count()); got == 0 || got > b.Sleeps {
		t.Errorf("waits=%d for %d sleeps", got, b.Sleeps)
	}
}

// TestReplayReadAheadDroppedIsNotAFailure: read-ahead records that find
// the read pool short are dropped, as Linux drops them; the replay
// counts them (ra dropped, fio's dropped I/Os) and does not fail.
func TestReplayReadAheadDroppedIsNotAFailure(t *testing.T) {
	res, err := Replay("sleepy", sleepyTrace(), Options{NrRequests: 4, NoMerges: 2}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if js.Error != 0 {
		t.Fatalf("the replay failed: err=%d %s", js.Error, js.ErrorText)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %q", res.Warnings)
	}
	b := js.Blkq
	if b.DroppedReadAhead == 0 {
		t.Fatal("no read-ahead dropped: the test shows nothing")
	}
	if js.Read.Dropped != b.DroppedReadAhead {
		t.Errorf("read drop_ios=%d, ra dropped=%d: want the same", js.Read.Dropped, b.DroppedReadAhead)
	}
	if got := js.Read.IOs + js.Read.Dropped; got != 16 {
		t.Errorf("reads completed %d + dropped %d = %d, want the trace's 16", js.Read.IOs, js.Read.Dropped, got)
	}
}

// TestJSONElapsedAsFio: "elapsed" is the run's time in whole seconds
// rounded up, the same for every job, as fio prints it (a job of 167 ms
// shows 1; a stonewalled job does not restart it).
func TestJSONElapsedAsFio(t *testing.T) {
	res := run(t, "[a]\nrw=read\nsize=1m\n[b]\nstonewall\nrw=read\nsize=1m\n", Options{})
	want := int64((res.Elapsed + time.Second - 1) / time.Second)
	if want < 1 {
		t.Fatalf("run of %v", res.Elapsed)
	}
	for _, js := range res.Run.Jobs {
		if js.Elapsed != want {
			t.Errorf("job %s: elapsed=%d, want %d (the run's %v, rounded up)", js.Name, js.Elapsed, want, res.Elapsed)
		}
	}
	if got := elapsedSecs(blkq.Time(167 * time.Millisecond)); got != 1 {
		t.Errorf("elapsed of 167 ms = %d, want 1", got)
	}
	if got := elapsedSecs(blkq.Time(2 * time.Second)); got != 2 {
		t.Errorf("elapsed of 2 s = %d, want 2", got)
	}
}
