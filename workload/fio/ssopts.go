package fio

import (
	"strconv"
	"strings"
	"time"
)

// fio's steady state options (HOWTO "Steady state"): steadystate (ss),
// steadystate_duration (ss_dur) and steadystate_ramp_time (ss_ramp), as
// fio 3.33's options.c reads them. The job ends once its IOPS or
// bandwidth, sampled once a second, has been steady over the last
// ss_dur seconds (engine/steadystate.go).

// SteadyState are a job's steady state options.
type SteadyState struct {
	// Criterion is "iops" or "bw" (every sample within Limit of the
	// window's mean) or "iops_slope" or "bw_slope" (the least squares
	// slope under Limit); fio's default iops_slope.
	Criterion string
	// Limit is the threshold: IOPS, or bytes/s for bw, or a percentage
	// of the window's mean when Percent (fio's default 0.01%).
	Limit   float64
	Percent bool
	// Duration is ss_dur in whole seconds, as fio truncates it: the
	// window judged, one sample a second; 0 (fio's default) turns steady
	// state detection off.
	Duration time.Duration
	// RampTime is ss_ramp: samples are kept from one second after it,
	// counted from the job's start (fio's default 0).
	RampTime time.Duration
}

// defaultSteadyState is fio's default: iops_slope:0.01%, off.
func defaultSteadyState() SteadyState {
	return SteadyState{Criterion: "iops_slope", Limit: 0.01, Percent: true}
}

// ssModelled are the steady state options and their setters.
var ssModelled = []struct {
	spec    optSpec
	aliases []string
}{
	{optSpec{name: "steadystate", set: setSteadyState}, []string{"ss"}},
	{optSpec{name: "steadystate_duration", scalar: true, set: func(j *Job, c *optCtx) error {
		err := setDuration(&j.SteadyState.Duration, c, time.Second)
		j.SteadyState.Duration = j.SteadyState.Duration.Truncate(time.Second)
		return err
	}}, []string{"ss_dur"}},
	{optSpec{name: "steadystate_ramp_time", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.SteadyState.RampTime, c, time.Second)
	}}, []string{"ss_ramp"}},
}

// setSteadyState parses "criterion:limit", the limit a number with an
// optional '%', or for bw a size per second (kb_base's units).
func setSteadyState(j *Job, c *optCtx) error {
	crit, lim, ok := strings.Cut(c.value, ":")
	switch crit {
	case "iops", "iops_slope", "bw", "bw_slope":
	default:
		return badValue("bad steadystate", c.value, "want iops, iops_slope, bw or bw_slope, then :limit")
	}
	if !ok || lim == "" {
		return badValue("bad steadystate", c.value, "the threshold must be given after the criterion (%s:LIMIT)", crit)
	}
	ss := SteadyState{Criterion: crit, Duration: j.SteadyState.Duration, RampTime: j.SteadyState.RampTime}
	if n, found := strings.CutSuffix(strings.TrimSpace(lim), "%"); found || !strings.HasPrefix(crit, "bw") {
		v, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil {
			return badValue("bad steadystate", c.value, "threshold %q is not a number", n)
		}
		ss.Limit, ss.Percent = v, found
	} else {
		n, err := parseSize(lim, c.kb)
		if err != nil {
			return err
		}
		ss.Limit = float64(n)
	}
	j.SteadyState = ss
	return nil
}

func init() {
	for i := range ssModelled {
		s := &ssModelled[i].spec
		optionTable[s.name] = s
		for _, a := range ssModelled[i].aliases {
			optionTable[a] = s
		}
	}
}
