package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// TestStatusLineAsFio: fio's status line, from the jobs' states and
// counters: running jobs and files, the states condensed, the share done
// (elapsed/(elapsed+eta)), the last interval's rates per direction with
// fio's units, the eta; only "Jobs: N (f=F)" in the first 3 s; a shorter
// line pads over a longer one; every line ends with a carriage return.
func TestStatusLineAsFio(t *testing.T) {
	sec := blkq.Time(time.Second)
	r := &runner{}
	mk := func(spec *fio.Job, limit int64) *job {
		j := &job{r: r, spec: spec, limit: limit, st: newJobStats(&report.JobStats{})}
		r.jobs = append(r.jobs, j)
		return j
	}
	rr := mk(&fio.Job{RW: fio.RWRandRead, NrFiles: 1}, 100<<20)
	mk(&fio.Job{RW: fio.RWRandRead, NrFiles: 2}, 100<<20)
	done := mk(&fio.Job{RW: fio.RWWrite}, 1<<20)
	waiting := mk(&fio.Job{RW: fio.RWRandRW, RWMixRead: 50}, 1<<20)
	for _, j := range r.jobs[:3] {
		j.st.begin(0, 0)
	}
	done.st.finish(sec)
	_ = waiting
	// 40 MiB of 4 KiB reads in 4 s by the first job: 40% of 100 MiB, 6 s
	// to go at that rate.
	rr.st.eta.done.Store(40 << 20)
	rr.st.eta.dirBytes[report.DirRead].Store(40 << 20)
	rr.st.eta.dirIOs[report.DirRead].Store(10240)
	prev := statusPoint{wall: 3 * time.Second}
	prev.bytes[report.DirRead], prev.ios[report.DirRead] = 30<<20, 7680
	cur := r.statusNow(4 * time.Second)
	got := r.statusLine(4*sec, prev, cur, 0)
	want := "Jobs: 2 (f=3): [r(2),_(1),P(1)][40.0%][r=10.0MiB/s][r=2560 IOPS][eta 00m:06s]\r"
	if got != want {
		t.Errorf("status line\n got %q\nwant %q", got, want)
	}
	early := r.statusLine(4*sec, prev, statusPoint{wall: 2 * time.Second}, len(got)-1)
	if !strings.HasPrefix(early, "Jobs: 2 (f=3)    ") || len(early) != len(got) || !strings.HasSuffix(early, " \r") {
		t.Errorf("in the first 3 s: %q, want Jobs: 2 (f=3) padded to the last line's %d", early, len(got)-1)
	}
	if s := condenseStates([]byte("RRw_")); s != "R(2),w(1),_(1)" {
		t.Errorf("condensed %q", s)
	}
	mixed := &job{spec: &fio.Job{RW: fio.RWReadWrite, RWMixRead: 70}, st: newJobStats(&report.JobStats{})}
	mixed.st.begin(0, 0)
	if c := mixed.stateLetter(sec); c != 'M' {
		t.Errorf("sequential mixed job: %c, want M", c)
	}
	ramp := &job{spec: &fio.Job{RW: fio.RWRead, RampTime: 2 * time.Second}, st: newJobStats(&report.JobStats{})}
	ramp.st.begin(0, 0)
	if c := ramp.stateLetter(sec); c != '/' {
		t.Errorf("in ramp time: %c, want /", c)
	}
}
