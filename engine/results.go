package engine

import (
	"fmt"
	"slices"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// report assembles the fio-style run report.
func (r *runner) report(end blkq.Time) *report.Run {
	now := time.Now()
	run := &report.Run{
		Timestamp:      now.Unix(),
		TimestampMs:    now.UnixMilli(),
		Time:           now.Format("Mon Jan _2 15:04:05 2006"),
		GroupReporting: map[int]bool{},
	}
	for _, j := range r.jobs {
		js := j.st.js
		j.st.untwin()
		j.src.describe(js)
		js.Elapsed = elapsedSecs(end)
		js.Percentiles = percentileOptions(j.spec.Stats)
		if d := j.spec.Stats.Description; d != "" {
			js.Description = d
		}
		// Sleeps, wake-ups, waits and dropped read-aheads come from the
		// event stream (pidStats).
		if j.st.cpu != nil && j.st.cpuState == 0 {
			js.CPUMeasured = true // never started (exitall): it used nothing
		}
		j.cpuReport(js)
		if j.spec.GroupReporting {
			run.GroupReporting[j.spec.GroupID] = true
		}
		run.Jobs = append(run.Jobs, js)
	}
	if r.jf != nil && len(r.jf.Jobs) > 0 {
		first := r.jf.Jobs[0]
		run.GlobalOptions = first.Options[:first.NumInherited]
	}
	d := r.disk
	util := 0.0
	if end > 0 {
		util = float64(d.IOTicks) / float64(end) * 100
	}
	ms := func(t blkq.Time) uint64 { return uint64(t / 1e6) }
	run.Disks = []report.DiskStats{{
		Name:         r.dev.Name(),
		ReadIOs:      d.IOs[blkq.OpRead],
		WriteIOs:     d.IOs[blkq.OpWrite],
		ReadMerges:   d.Merges[blkq.OpRead],
		WriteMerges:  d.Merges[blkq.OpWrite],
		ReadSectors:  d.Sectors[blkq.OpRead],
		WriteSectors: d.Sectors[blkq.OpWrite],
		ReadTicks:    ms(d.Ticks[blkq.OpRead]),
		WriteTicks:   ms(d.Ticks[blkq.OpWrite]),
		InQueue:      ms(d.TimeInQ),
		Util:         min(util, 100),
	}}
	if r.jf != nil && len(r.jf.Jobs) > 0 && !slices.ContainsFunc(r.jf.Jobs, func(j *fio.Job) bool { return j.Stats.DiskUtil }) {
		run.Disks = nil // disk_util=0 in every job: fio tracks no disk
	}
	return run
}

// percentileOptions are a job's percentile options as the report takes
// them.
func percentileOptions(s fio.StatOptions) *report.PercentileOptions {
	return &report.PercentileOptions{List: s.PercentileList, Precision: s.PercentilePrecision,
		Clat: s.ClatPercentiles, Lat: s.LatPercentiles, Slat: s.SlatPercentiles}
}

// progressEvery is the status line's period of wall time (fio's
// eta_interval, 1 s).
var progressEvery = time.Second

// statusClockSeen, when set (by tests), is called with the run's clock
// each status line is computed at, from the status goroutine.
var statusClockSeen func(now blkq.Time)

// progress prints fio's status line (status.go) every progressEvery of
// wall time while the run lasts; stop ends it, prints a newline after the
// last line, as fio does, and returns once its goroutine has exited.
//
// The run's clock belongs to the executor, so the line shows r.clock: the
// time of a recent queue event or job completion, stored every
// progressBatchSize of them (a buffered job under the dirty limits makes
// no queue events at all).
func (r *runner) progress() (stop func()) {
	if r.opt.Progress == nil {
		return func() {}
	}
	start := time.Now()
	tick := time.NewTicker(progressEvery)
	quit := make(chan struct{})
	exited := make(chan struct{})
	printed := false
	r.q.AddTracer(&progressClock{r: r})
	go func() {
		defer close(exited)
		prev, last := r.statusNow(0), 0
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			now := r.clock(blkq.Time(r.clockNow.Load()))
			if statusClockSeen != nil {
				statusClockSeen(now)
			}
			cur := r.statusNow(time.Since(start))
			line := r.statusLine(now, prev, cur, last)
			fmt.Fprint(r.opt.Progress, line)
			prev, last, printed = cur, len(line)-1, true
		}
	}()
	return func() {
		tick.Stop()
		close(quit)
		<-exited
		if printed {
			fmt.Fprintln(r.opt.Progress)
		}
	}
}

// progressClock is the progress line's view of the run's clock: the time
// of every progressBatchSize-th dispatch or completion, so that the line
// lags by a few events, not an atomic store per event. It names the two
// actions it consumes, so the queue sends it nothing else (a bio's Q, G,
// I, M events cost it nothing).
type progressClock struct {
	r      *runner
	events int // (Trace runs under the queue's lock)
}

func (p *progressClock) Actions() string { return "DC" }

func (p *progressClock) Trace(e *blkq.Event) {
	if p.events++; p.events%progressBatchSize == 0 {
		p.r.clockNow.Store(int64(e.Time))
	}
}

// jobPlace returns "FILE:LINE" of job j's section, for warnings: the file
// it came from when several job files make the run.
func jobPlace(jf *fio.JobFile, j *fio.Job) string {
	file := jf.Path
	if j.File != "" {
		file = j.File
	}
	if file == fio.CommandLinePath {
		return file // its lines are no one's to count
	}
	return fmt.Sprintf("%s:%d", file, j.Line)
}

// droppedReadAhead is the read-ahead bios the queue dropped for the jobs
// (on simulated devices the page cache's read-ahead is the jobs' own),
// once report has counted them.
func (r *runner) droppedReadAhead() int64 {
	var n int64
	for _, j := range r.jobs {
		n += int64(j.st.js.Blkq.DroppedReadAhead)
	}
	return n
}

// elapsedSecs is fio's JSON "elapsed": the run's time so far (here, to its
// end) in whole seconds rounded up, the same for every job.
func elapsedSecs(end blkq.Time) int64 {
	return int64((max(end, 0) + blkq.Time(time.Second) - 1) / blkq.Time(time.Second))
}
