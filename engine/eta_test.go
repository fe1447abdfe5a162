package engine

import (
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// TestProgressETAFormatAsFio: the progress line's eta is written as fio's
// status line writes it: [eta 00m:03s], hours and days only when needed.
func TestProgressETAFormatAsFio(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "00m:00s"},
		{3*time.Second + 900*time.Millisecond, "00m:03s"},
		{125 * time.Second, "02m:05s"},
		{time.Hour + 2*time.Minute + 3*time.Second, "01h:02m:03s"},
		{26*time.Hour + 5*time.Second, "01d:02h:00m:05s"},
		{-time.Second, "00m:00s"},
	} {
		if got := fioETA(c.d); got != c.want {
			t.Errorf("fioETA(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestProgressETAEstimate: a size-limited job is done at its rate so far,
// capped by its runtime; a time_based job ends with its runtime; a
// stonewalled segment to come adds its runtime; a simulated run's estimate
// turns into wall time at the rate the run goes.
func TestProgressETAEstimate(t *testing.T) {
	mk := func(r *runner, spec *fio.Job, limit int64, segment int) *job {
		j := &job{r: r, spec: spec, limit: limit, segment: segment, st: newJobStats(&report.JobStats{})}
		r.jobs = append(r.jobs, j)
		return j
	}
	sec := blkq.Time(time.Second)
	r := &runner{}
	if _, ok := r.etaRemaining(sec); ok {
		t.Error("an estimate with no job running")
	}
	sized := mk(r, &fio.Job{}, 1000, 0)
	sized.st.begin(0, 0)
	sized.st.eta.done.Store(250)
	if rem, ok := r.etaRemaining(sec); !ok || rem != 3*time.Second {
		t.Errorf("a quarter done in 1 s: eta %v %v, want 3s", rem, ok)
	}
	timed := mk(r, &fio.Job{TimeBased: true, Runtime: 10 * time.Second}, 1000, 0)
	timed.st.begin(0, 0)
	if rem, _ := r.etaRemaining(sec); rem != 9*time.Second {
		t.Errorf("time_based 10 s at 1 s, beside the sized job's 3 s: eta %v, want the longer, 9s", rem)
	}
	sized.st.finish(2 * sec)
	if rem, _ := r.etaRemaining(4 * sec); rem != 6*time.Second {
		t.Errorf("time_based 10 s at 4 s: eta %v, want 6s", rem)
	}
	capped := mk(&runner{}, &fio.Job{Runtime: 2 * time.Second}, 1000, 0)
	capped.st.begin(0, 0)
	capped.st.eta.done.Store(100)
	if rem, ok := capped.etaRemaining(sec); !ok || rem != time.Second {
		t.Errorf("10%% done in 1 s with runtime=2: eta %v, want 1s (the runtime's end)", rem)
	}
	mk(r, &fio.Job{TimeBased: true, Runtime: 5 * time.Second}, 0, 1)
	if rem, _ := r.etaRemaining(4 * sec); rem != 11*time.Second {
		t.Errorf("with a 5 s stonewalled job to come: eta %v, want 11s", rem)
	}
	if got := etaWall(3*time.Second, sec, 100*time.Millisecond, true); got != 300*time.Millisecond {
		t.Errorf("simulated 1 s in 100 ms of wall time, 3 s left: %v, want 300ms", got)
	}
	if got := etaWall(3*time.Second, sec, 100*time.Millisecond, false); got != 3*time.Second {
		t.Errorf("real clock: %v, want 3s", got)
	}
}

// TestProgressClockFollowsBufferedJobs: the progress line's clock is the
// later of the queue's last event and the jobs' last completions, so a
// buffered job whose writes stay in the page cache still moves it. The
// completions reach the line in batches of progressBatchSize (and at
// flushes on the executor): the clock is the batch's last completion.
func TestProgressClockFollowsBufferedJobs(t *testing.T) {
	r := &runner{}
	j := &job{r: r, spec: &fio.Job{}, st: newJobStats(&report.JobStats{})}
	r.jobs = []*job{j}
	j.st.begin(0, 0)
	u := &ioUnit{j: j}
	u.bio.Op = blkq.OpWrite
	u.bio.Sectors = 8
	for i := range progressBatchSize {
		j.st.record(u, blkq.Time(2*time.Second)+blkq.Time(i+1)*blkq.Time(time.Second)/progressBatchSize)
	}
	if got := r.clock(blkq.Time(time.Second)); got != blkq.Time(3*time.Second) {
		t.Errorf("clock = %v, want the job's last completion at 3s", time.Duration(got))
	}
	if got := j.st.eta.dirIOs[report.DirWrite].Load(); got != progressBatchSize {
		t.Errorf("%d writes on the line after a batch, want %d", got, progressBatchSize)
	}
	j.st.record(u, blkq.Time(4*time.Second))
	if got := r.clock(blkq.Time(time.Second)); got != blkq.Time(3*time.Second) {
		t.Errorf("clock = %v before the next batch, want 3s still", time.Duration(got))
	}
	r.flushProgress()
	if got := r.clock(blkq.Time(time.Second)); got != blkq.Time(4*time.Second) {
		t.Errorf("clock = %v after a flush, want the completion at 4s", time.Duration(got))
	}
	if got := r.clock(blkq.Time(5 * time.Second)); got != blkq.Time(5*time.Second) {
		t.Errorf("clock = %v, want the queue's later event at 5s", time.Duration(got))
	}
}
