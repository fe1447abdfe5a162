package engine

// fio's --status-interval: the full report of the run so far, every
// interval of the run's clock, while the run lasts. As fio's, each report
// is cumulative (from the start of the run, not of the interval): a job
// still running is reported with its runtime up to now, a finished one as
// it ended, one not started as empty. On simulated devices the interval
// is virtual time, so the reports are as deterministic as the run; on
// real devices it is wall time. Unlike fio, a running job's cpu figures
// are those of its start (blkq shares the process's usage among the jobs
// when one starts or ends, cpu.go): they are filled in when it ends.

import (
	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// statusReports starts the status reports of Options.StatusInterval;
// stop ends them.
func (r *runner) statusReports() (stop func()) {
	if r.opt.StatusInterval <= 0 || r.opt.OnStatus == nil {
		return func() {}
	}
	return r.every(r.opt.StatusInterval, func(now blkq.Time) { r.opt.OnStatus(r.reportSoFar(now)) })
}

// reportSoFar is the run's report at now, while it runs.
func (r *runner) reportSoFar(now blkq.Time) *report.Run {
	for _, j := range r.jobs {
		if !j.state.started() || j.state.ended() || now < j.rampEnd {
			continue
		}
		j.st.sample(now) // the bandwidth and IOPS windows that have passed
		js := j.st.js
		js.Runtime = int64(now - j.rampEnd)
		for d := report.DirRead; d < report.NumDirs; d++ {
			if ds := js.Dir(d); ds.IOs > 0 {
				ds.Runtime = js.Runtime
			}
		}
	}
	r.flushProgress()
	r.disk.Flush(now)
	return r.report(now)
}
