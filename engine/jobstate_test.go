package engine

import (
	"fmt"
	"testing"

	"github.com/blkq-dev/blkq/bcache"
	"github.com/blkq-dev/blkq/workload/fio"
)

// TestJobStateLife walks a job's phases: only a running job stops, a
// cancelled one never ran, and both end.
func TestJobStateLife(t *testing.T) {
	var s jobState
	s.stop()
	if s.phase != phaseWaiting || s.started() || s.ended() {
		t.Fatalf("a waiting job stopped: %+v", s)
	}
	s.begin()
	if !s.started() || s.stopping() {
		t.Fatalf("after begin: %+v", s)
	}
	s.stop()
	s.stop()
	if !s.stopping() || s.ended() {
		t.Fatalf("after stop: %+v", s)
	}
	s.finish()
	if !s.ended() || !s.ran() || s.stopping() {
		t.Fatalf("after finish: %+v", s)
	}
	var c jobState
	c.cancel()
	if !c.ended() || c.ran() || c.started() {
		t.Fatalf("after cancel: %+v", c)
	}
}

// TestJobStateSync: an fsync comes due, is issued, ends; end_fsync is
// remembered once issued.
func TestJobStateSync(t *testing.T) {
	var s jobState
	s.wantSync()
	if !s.syncDue() || s.syncBusy() {
		t.Fatalf("due: %+v", s)
	}
	s.issueSync(false)
	if s.syncDue() || !s.syncBusy() || s.endSynced {
		t.Fatalf("issued: %+v", s)
	}
	s.syncEnded()
	s.issueSync(true)
	s.syncEnded()
	if s.syncBusy() || !s.endSynced {
		t.Fatalf("end_fsync: %+v", s)
	}
}

// TestPathChosenOncePerJob: direct jobs go to the queue, buffered ones
// through the run's page cache (on every device), or to the queue if it
// has none (a file opened with O_DIRECT).
func TestPathChosenOncePerJob(t *testing.T) {
	direct, buffered := &job{spec: &fio.Job{Direct: true}}, &job{spec: &fio.Job{}}
	for _, tc := range []struct {
		name string
		r    *runner
		j    *job
		want string
	}{
		{"direct, cache", &runner{cache: &bcache.Cache{}}, direct, "engine.directPath"},
		{"buffered, cache", &runner{cache: &bcache.Cache{}}, buffered, "*engine.cachePath"},
		{"buffered, no cache", &runner{}, buffered, "engine.directPath"},
	} {
		if got := typeName(tc.r.pathFor(tc.j)); got != tc.want {
			t.Errorf("%s: path %s, want %s", tc.name, got, tc.want)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
