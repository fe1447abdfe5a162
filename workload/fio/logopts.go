package fio

import (
	"math"
	"strings"
)

// fio's log options (HOWTO "Measurements and reporting" and "I/O replay"):
// the per-I/O logs of write_bw_log, write_iops_log, write_lat_log and
// write_hist_log, and the iologs of write_iolog and read_iolog with the
// replay_* options. They live in a table of their own, registered in
// optionTable by init below, so the log options stay in one place; a
// modelled entry replaces the "known but not modelled" one of the same
// name from knownopts.go.

// Logs are a job's log and iolog options, fio's defaults when unset.
type Logs struct {
	// BW, IOPS, Lat and Hist say whether write_bw_log, write_iops_log,
	// write_lat_log (the slat, clat and lat logs) and write_hist_log
	// (clat_hist) are on; BWPrefix... are the file name prefixes given as
	// their value, "" for fio's default: the job's name.
	BW, IOPS, Lat, Hist                         bool
	BWPrefix, IOPSPrefix, LatPrefix, HistPrefix string
	// AvgMsec is log_avg_msec: average the samples over windows of this
	// many milliseconds (0, fio's default: one entry per I/O).
	AvgMsec int
	// MaxValue is log_max_value: with AvgMsec, log each window's largest
	// sample instead of its mean.
	MaxValue bool
	// HistMsec is log_hist_msec (0: no histogram entries); HistCoarseness
	// is log_hist_coarseness, 0..6: 2^N adjacent bins summed per column.
	HistMsec, HistCoarseness int
	// Offset and Prio are log_offset and log_prio: add each I/O's offset
	// column, and write the priority as fio's ioprio value (hex) instead
	// of 0/1 for "real-time class".
	Offset, Prio bool
	// PerJob is per_job_logs (fio's default true): the job's number in
	// the file names; false shares one file among the jobs of a prefix.
	PerJob bool

	// WriteIolog is write_iolog=: the file fio's iolog (version 3) of the
	// job's I/O is appended to, "" for none.
	WriteIolog string
	// ReadIolog is read_iolog=: an iolog (version 2 or 3) replayed as the
	// job's I/O in place of its offsets, "" for none.
	ReadIolog string
	// ReplayNoStall is replay_no_stall: issue the iolog's I/O as fast as
	// the job's depth allows, ignoring its times.
	ReplayNoStall bool
	// ReplayRedirect is replay_redirect=: the one file all of the iolog's
	// I/O goes to.
	ReplayRedirect string
	// ReplayAlign is replay_align= in bytes: offsets aligned down to it.
	ReplayAlign int64
	// ReplayScale is replay_scale= (fio's default 1): offsets divided by it.
	ReplayScale int64
	// ReplayTimeScale is replay_time_scale= in percent (fio's default
	// 100): the iolog's times run at this percentage of their speed.
	ReplayTimeScale int
	// ReplaySkip is replay_skip=: the I/O kinds ("read", "write", "trim",
	// "sync") the replay leaves out.
	ReplaySkip []string
}

// defaultLogs returns fio's defaults.
func defaultLogs() Logs { return Logs{PerJob: true, ReplayScale: 1, ReplayTimeScale: 100} }

// logModelled are the log options and their setters.
var logModelled = []optSpec{
	{name: "write_bw_log", bare: bareYes, set: func(j *Job, c *optCtx) error {
		j.Logs.BW, j.Logs.BWPrefix = true, logPrefix(c)
		return nil
	}},
	{name: "write_iops_log", bare: bareYes, set: func(j *Job, c *optCtx) error {
		j.Logs.IOPS, j.Logs.IOPSPrefix = true, logPrefix(c)
		return nil
	}},
	{name: "write_lat_log", bare: bareYes, set: func(j *Job, c *optCtx) error {
		j.Logs.Lat, j.Logs.LatPrefix = true, logPrefix(c)
		return nil
	}},
	{name: "write_hist_log", bare: bareYes, set: func(j *Job, c *optCtx) error {
		j.Logs.Hist, j.Logs.HistPrefix = true, logPrefix(c)
		return nil
	}},
	{name: "log_avg_msec", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Logs.AvgMsec, c, 0, math.MaxInt32)
	}},
	{name: "log_hist_msec", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Logs.HistMsec, c, 0, math.MaxInt32)
	}},
	{name: "log_hist_coarseness", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Logs.HistCoarseness, c, 0, 6) // fio's range
	}},
	{name: "log_max_value", set: func(j *Job, c *optCtx) error { return setBool(&j.Logs.MaxValue, c) }},
	{name: "log_offset", set: func(j *Job, c *optCtx) error { return setBool(&j.Logs.Offset, c) }},
	{name: "log_prio", set: func(j *Job, c *optCtx) error { return setBool(&j.Logs.Prio, c) }},
	{name: "per_job_logs", set: func(j *Job, c *optCtx) error { return setBool(&j.Logs.PerJob, c) }},
	{name: "write_iolog", set: func(j *Job, c *optCtx) error { j.Logs.WriteIolog = c.value; return nil }},
	{name: "read_iolog", set: func(j *Job, c *optCtx) error { j.Logs.ReadIolog = c.value; return nil }},
	{name: "replay_no_stall", set: func(j *Job, c *optCtx) error { return setBool(&j.Logs.ReplayNoStall, c) }},
	{name: "replay_redirect", set: func(j *Job, c *optCtx) error { j.Logs.ReplayRedirect = c.value; return nil }},
	{name: "replay_align", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseSize(c.value, c.kb)
		j.Logs.ReplayAlign = n
		return err
	}},
	{name: "replay_scale", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseInt(c.value, c.kb, 1, math.MaxInt64)
		j.Logs.ReplayScale = n
		return err
	}},
	{name: "replay_time_scale", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Logs.ReplayTimeScale, c, 1, math.MaxInt32)
	}},
	{name: "replay_skip", bare: bareYes, set: setReplaySkip},
}

// logPrefix is the value of a write_*_log option: "" when bare (fio then
// names the files after the job).
func logPrefix(c *optCtx) string {
	if c.bare {
		return ""
	}
	return c.value
}

// setReplaySkip parses replay_skip's comma list (fio's "flush" is "sync").
func setReplaySkip(j *Job, c *optCtx) error {
	j.Logs.ReplaySkip = nil
	if c.bare {
		return nil
	}
	for _, k := range strings.Split(c.value, ",") {
		switch k = strings.TrimSpace(k); k {
		case "read", "write", "trim", "sync":
		case "flush":
			k = "sync"
		default:
			return badValue("bad value", k, "want read, write, trim or sync")
		}
		j.Logs.ReplaySkip = append(j.Logs.ReplaySkip, k)
	}
	return nil
}

func init() {
	for i := range logModelled {
		optionTable[logModelled[i].name] = &logModelled[i]
	}
}
