package engine

import (
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// TestReplayEndsWhenItsLastRecordCompletesInline: a trace-timed replay
// on the null device whose last record is a flush (the cache flush of an
// fsync, FWS, as ftrace-blk-loop0.txt ends) ends. The null device serves
// that flush within its own submission, so its completion pumps the job
// from inside the loop that issued it, and finds the trace at its end:
// the inner pump finishes the job, and the outer loop must see that
// rather than ask the finished source for more, for ever (it did: 100 %
// CPU, deaf to SIGTERM). Each case runs under a deadline; a replay that
// does not end fails the test.
func TestReplayEndsWhenItsLastRecordCompletesInline(t *testing.T) {
	write := func(at time.Duration, sector uint64) ReplayRecord {
		return ReplayRecord{Time: at, PID: 7, Process: "fio", Op: blkq.OpWrite, Flags: blkq.FlagSync, Sector: sector, Sectors: 8, PlugFirst: true, PlugLast: true}
	}
	flush := ReplayRecord{Time: 40 * time.Microsecond, PID: 7, Process: "fio", Op: blkq.OpFlush, Flags: blkq.FlagSync}
	for _, c := range []struct {
		name   string
		recs   []ReplayRecord
		timing string
	}{
		{"writes then a flush, trace timing", []ReplayRecord{write(0, 0), write(10*time.Microsecond, 8), flush}, "trace"},
		{"a lone flush, trace timing", []ReplayRecord{flush}, "trace"},
		{"writes then a flush, afap", []ReplayRecord{write(0, 0), write(10*time.Microsecond, 8), flush}, "afap"},
	} {
		type outcome struct {
			res *Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := Replay("inline", c.recs, Options{Device: "null"}, ReplayOptions{Timing: c.timing})
			done <- outcome{res, err}
		}()
		select {
		case o := <-done:
			if o.err != nil {
				t.Fatalf("%s: %v", c.name, o.err)
			}
			if o.res.Replayed != len(c.recs) {
				t.Errorf("%s: replayed %d of %d records", c.name, o.res.Replayed, len(c.recs))
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the replay of %d records has not ended after 20 s", c.name, len(c.recs))
		}
	}
}
