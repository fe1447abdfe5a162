package engine

// fio's aggregate bandwidth logs (fio --bandwidth-log): agg-read_bw.log,
// agg-write_bw.log and agg-trim_bw.log, one line per direction every
// bwavgtime (500 ms, fio's default) of the run's clock, each the
// bandwidth of all jobs together since the previous line in fio's log
// format:
//
//	time, KiB/s, direction, 0, 0
//
// time in ms since the run started. fio takes these samples only when it
// computes its status line (on a terminal or with --eta=always), so its
// files stay empty otherwise; blkq always takes them. On simulated
// devices the period is on the virtual clock, so the lines are
// deterministic. No line is written while a running job is in its
// ramp_time, as fio skips them.

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// aggLogPeriod is fio's default bwavgtime, the aggregate logs' period.
const aggLogPeriod = 500 * time.Millisecond

// aggLogNames are fio's file names of the aggregate logs, by direction.
var aggLogNames = [report.NumDirs]string{"agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"}

// openAggLogs opens the aggregate logs in opt.LogDir and starts their
// sampler on the run's clock; stop ends the sampler.
func (r *runner) openAggLogs() (stop func(), err error) {
	if !r.opt.BandwidthLog {
		return func() {}, nil
	}
	var files [report.NumDirs]*logFile
	for d, name := range aggLogNames {
		path := name
		if r.opt.LogDir != "" {
			path = filepath.Join(r.opt.LogDir, name)
		}
		if r.logs == nil {
			r.logs = &runLogs{}
		}
		if files[d], err = r.logs.open(path, false); err != nil {
			return nil, fmt.Errorf("--bandwidth-log: %w", err)
		}
	}
	start := r.exec.Now()
	prev, prevAt := r.statusNow(0), start
	var line []byte
	return r.every(aggLogPeriod, func(now blkq.Time) {
		r.flushProgress() // (on the executor: every completion so far)
		cur := r.statusNow(0)
		if r.inRamp(now) {
			prev, prevAt = cur, now
			return
		}
		ms := int64(now-prevAt) / int64(time.Millisecond)
		for d, f := range files {
			var kib int64
			if ms > 0 {
				kib = 1000 * (cur.bytes[d] - prev.bytes[d]) / ms / 1024
			}
			line = strconv.AppendInt(line[:0], int64(now-start)/int64(time.Millisecond), 10)
			line = append(line, ", "...)
			line = strconv.AppendInt(line, kib, 10)
			line = append(line, ", "...)
			line = strconv.AppendInt(line, int64(d), 10)
			line = append(line, ", 0, 0\n"...)
			r.logs.write(f, line)
		}
		prev, prevAt = cur, now
	}), nil
}

// inRamp reports whether a running job is in its ramp_time at now.
func (r *runner) inRamp(now blkq.Time) bool {
	for _, j := range r.jobs {
		if j.state.started() && !j.state.ended() && now <= j.rampEnd && j.spec.RampTime > 0 {
			return true
		}
	}
	return false
}

// every calls f on the executor every period of the run's clock (virtual
// on simulated devices) until stop is called or the run's last job has
// finished.
func (r *runner) every(period time.Duration, f func(now blkq.Time)) (stop func()) {
	stopped := false
	var cancel func() bool
	var tick func()
	tick = func() {
		if stopped || r.left == 0 {
			return
		}
		f(r.exec.Now())
		cancel = r.exec.AfterFunc(period, tick)
	}
	cancel = r.exec.AfterFunc(period, tick)
	return func() {
		r.exec.Do(func() {
			stopped = true
			cancel()
		})
	}
}
