package fio

// The options of how a job drives its queue: how many I/Os it submits in
// one call (iodepth_batch_submit) and reaps in one (iodepth_batch_complete_min,
// iodepth_batch_complete_max), whether it holds back an I/O that overlaps one
// in flight (serialize_overlap), who submits (io_submit_mode), and fio's
// search for the deepest queue that meets a latency target (latency_target,
// latency_window, latency_percentile, latency_run). They are stored as
// written; the engine applies fio's fix-ups (engine/batch.go,
// engine/latency_target.go, engine/overlap.go).

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// QueueOptions are a job's batching, overlap and latency-target options.
type QueueOptions struct {
	// BatchSubmit is iodepth_batch_submit= (alias iodepth_batch): how many
	// I/Os the job queues before the engine submits them in one call (fio
	// default 1; fio takes 0, or more than iodepth, as iodepth).
	BatchSubmit int
	// BatchCompleteMin is iodepth_batch_complete_min= (alias
	// iodepth_batch_complete): the fewest completions one reap waits for
	// (fio default 1; 0 with BatchCompleteMax 0: reap after every
	// submission).
	BatchCompleteMin int
	// BatchCompleteMax is iodepth_batch_complete_max=: the most completions
	// one reap takes (fio default 0, which fio raises to BatchCompleteMin).
	BatchCompleteMax int
	// SerializeOverlap is serialize_overlap=: a writing job with iodepth > 1
	// does not issue an I/O overlapping one in flight, it waits for it
	// (fio default 0).
	SerializeOverlap bool
	// SubmitMode is io_submit_mode=: "inline" (fio's default) or "offload"
	// (fio's worker threads submit; the same I/O is issued, so blkq runs
	// it inline).
	SubmitMode string
	// LatencyTarget is latency_target= (microseconds without a unit; 0:
	// none): fio searches for the deepest queue, up to iodepth, whose
	// LatencyPercentile of I/Os complete within it.
	LatencyTarget time.Duration
	// LatencyWindow is latency_window= (microseconds without a unit): how
	// long each depth is tried.
	LatencyWindow time.Duration
	// LatencyPercentile is latency_percentile=, in percent (fio default 100).
	LatencyPercentile float64
	// LatencyRun is latency_run=: keep searching for the whole run rather
	// than stopping once the depth is found (fio default 0).
	LatencyRun bool
	// MaxLatency is max_latency= per direction (microseconds without a
	// unit; 0: none): an I/O whose total latency exceeds it fails the
	// job with ETIMEDOUT, as fio's lat_fatal.
	MaxLatency [3]time.Duration
}

// defaultQueueOptions are fio 3.33's defaults.
func defaultQueueOptions() QueueOptions {
	return QueueOptions{BatchSubmit: 1, BatchCompleteMin: 1, SubmitMode: "inline", LatencyPercentile: 100}
}

// queueModelled is the option table's part for QueueOptions.
var queueModelled = []struct {
	spec    optSpec
	aliases []string
}{
	{optSpec{name: "iodepth_batch_submit", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Queue.BatchSubmit, c, 0, math.MaxInt32)
	}}, []string{"iodepth_batch"}},
	{optSpec{name: "iodepth_batch_complete_min", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Queue.BatchCompleteMin, c, 0, math.MaxInt32)
	}}, []string{"iodepth_batch_complete"}},
	{optSpec{name: "iodepth_batch_complete_max", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Queue.BatchCompleteMax, c, 0, math.MaxInt32)
	}}, nil},
	{optSpec{name: "serialize_overlap", set: func(j *Job, c *optCtx) error { return setBool(&j.Queue.SerializeOverlap, c) }}, nil},
	{optSpec{name: "io_submit_mode", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.Queue.SubmitMode, c, "inline", "offload")
	}}, nil},
	{optSpec{name: "latency_target", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.Queue.LatencyTarget, c, time.Microsecond)
	}}, nil},
	{optSpec{name: "latency_window", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.Queue.LatencyWindow, c, time.Microsecond)
	}}, nil},
	{optSpec{name: "latency_percentile", set: func(j *Job, c *optCtx) error {
		v := strings.TrimSpace(c.value)
		if strings.Contains(v, ":") {
			return badValue("bad latency_percentile", c.value, "a list; fio takes one value")
		}
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(p) {
			return badValue("bad latency_percentile", c.value, "not a number")
		}
		if p < 0 || p > 100 {
			return badValue("bad latency_percentile", c.value, "out of range 0..100")
		}
		j.Queue.LatencyPercentile = p
		return nil
	}}, nil},
	{optSpec{name: "latency_run", set: func(j *Job, c *optCtx) error { return setBool(&j.Queue.LatencyRun, c) }}, nil},
}
