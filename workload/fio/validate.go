package fio

import (
	"errors"
	"fmt"
)

// Validate makes the cross-option checks fio makes before running, beyond
// what Parse checks line by line: a job file with no jobs, wait_for naming
// no earlier job, zero or inverted block sizes, a size smaller than the
// smallest block size, rate limits that contradict each other, and zone
// options without their zonemode. All problems are returned, joined; each
// is a *ParseError pointing at the option's line (or the job's header when
// the option was not set in the file).
func Validate(jf *JobFile) error {
	if jf == nil {
		return errors.New("fio: nil job file")
	}
	if len(jf.Jobs) == 0 {
		return &ParseError{File: jf.Path, Msg: "no jobs defined"}
	}
	var errs []error
	seen := map[string]bool{}
	clones := 0
	groupSS := map[int]SteadyState{}
	for _, j := range jf.Jobs {
		fail := func(opt, val, format string, args ...any) {
			file, line := jf.Path, j.Line
			if l, ok := j.lines[opt]; ok {
				line = l
			}
			if f, ok := j.files[opt]; ok {
				file = f
			}
			errs = append(errs, &ParseError{File: file, Line: line, Option: opt, Value: val,
				Msg: "job " + quote(j.Name) + ": " + fmt.Sprintf(format, args...)})
		}
		ss := j.SteadyState
		if ss.Duration == 0 {
			ss = SteadyState{} // fio keeps none of an unused criterion
		}
		if g, ok := groupSS[j.GroupID]; ok && g != ss {
			fail("steadystate", "", "steadystate options must be the same for every job of a reporting group (fio rejects the job)")
		}
		groupSS[j.GroupID] = ss
		for _, o := range []string{"cmdprio_percentage", "cmdprio_bssplit", "cmdprio_class", "cmdprio"} {
			if _, set := j.lines[o]; set && j.IOEngine != "libaio" && j.IOEngine != "io_uring" {
				fail(o, "", "%s is an option of ioengine=libaio and io_uring, not %s (fio: bad option)", o, j.IOEngine)
				break
			}
		}
		if p := j.Priority; p.CmdPercentage != [2]int{} && (p.CmdBSSplit[0] != nil || p.CmdBSSplit[1] != nil) {
			fail("cmdprio_bssplit", "", "cmdprio_percentage and cmdprio_bssplit options are mutually exclusive")
		}
		if j.WaitFor != "" && !seen[j.WaitFor] {
			// fio only looks among the jobs defined above.
			fail("wait_for", j.WaitFor, "no job named %s before this one", quote(j.WaitFor))
		}
		for d, sp := range j.BSSplit {
			// Shares over 100% in all stand, as in fio (parseBSSplit).
			for _, s := range sp {
				if s.BS <= 0 {
					fail("bssplit", "", "%s block size %d is not positive", dirName(d), s.BS)
				}
			}
		}
		minBS := int64(-1)
		for d, r := range j.BS {
			if r.Min <= 0 || r.Min > r.Max {
				fail("bs", "", "%s block size range %d-%d is invalid", dirName(d), r.Min, r.Max)
				continue
			}
			if minBS < 0 || r.Min < minBS {
				minBS = r.Min
			}
		}
		if j.NumJobs < 1 {
			fail("numjobs", "", "numjobs %d is less than 1", j.NumJobs)
		}
		if j.IODepth < 1 {
			fail("iodepth", "", "iodepth %d is less than 1", j.IODepth)
		}
		if j.RWMixRead < 0 || j.RWMixRead > 100 {
			fail("rwmixread", "", "read share %d%% is outside 0..100", j.RWMixRead)
		}
		if j.Size > 0 && minBS > 0 && j.Size < minBS {
			fail("size", "", "size %d is smaller than the minimum block size %d", j.Size, minBS)
		}
		checkRates(j, fail)
		checkZones(j, fail)
		checkOverflow(j, fail)
		checkConditional(j, fail)
		clones += j.NumJobs
		seen[j.Name] = true
	}
	if clones > MaxJobs {
		errs = append(errs, &ParseError{File: jf.Path, Msg: fmt.Sprintf("maximum number of jobs reached: %d jobs (numjobs clones included) are more than fio's limit of %d", clones, MaxJobs)})
	}
	return errors.Join(errs...)
}

// checkOverflow refuses byte counts that each parse but whose sum or product
// does not fit an int64 (fio's offsets are 64-bit too): the first byte of
// the last clone, its last byte, and the bytes of all loops. Without this
// the runner would have to saturate or wrap them silently.
func checkOverflow(j *Job, fail func(opt, val, format string, args ...any)) {
	const limit = "more than 2^63-1 bytes"
	off := j.Offset
	if j.OffsetPercent == 0 && j.OffsetIncrementPercent == 0 && j.NumJobs > 1 {
		inc, err := mulChecked(int64(j.NumJobs-1), j.OffsetIncrement)
		if err == nil {
			off, err = addChecked(off, inc)
		}
		if err != nil {
			fail("offset_increment", "", "offset %d + %d clones x offset_increment %d is %s", j.Offset, j.NumJobs-1, j.OffsetIncrement, limit)
			return
		}
	}
	if j.OffsetPercent == 0 && j.SizePercent == 0 {
		if _, err := addChecked(off, j.Size); err != nil {
			opt := "offset"
			if j.NumJobs > 1 && j.OffsetIncrement > 0 {
				opt = "offset_increment"
			}
			fail(opt, "", "the region ends past offset %d + size %d: %s", off, j.Size, limit)
			return
		}
	}
	io := j.IOSize
	if io == 0 {
		io = j.Size
	}
	if j.IOSizePercent == 0 && j.Loops > 1 {
		if _, err := mulChecked(io, int64(j.Loops)); err != nil {
			fail("loops", "", "%d loops of %d bytes are %s", j.Loops, io, limit)
		}
	}
}

// checkRates makes fio 3.33's rate checks (init.c fixup_options): a
// bandwidth and an IOPS limit are exclusive (any direction of one with any
// of the other), as are their minimums, and a direction's minimum may not
// exceed its limit.
func checkRates(j *Job, fail func(opt, val, format string, args ...any)) {
	sum := func(a [3]int64) int64 { return a[0] + a[1] + a[2] }
	switch {
	case sum(j.Rate) > 0 && sum(j.RateIOPS) > 0:
		fail("rate_iops", "", "rate and rate_iops are mutually exclusive (fio refuses the job)")
	case sum(j.RateMin) > 0 && sum(j.RateIOPSMin) > 0:
		fail("rate_iops_min", "", "rate_min and rate_iops_min are mutually exclusive (fio: rate and rate_iops are mutually exclusive)")
	}
	for d := range 3 {
		if j.Rate[d] > 0 && j.Rate[d] < j.RateMin[d] {
			fail("rate_min", "", "%s: rate_min %d B/s exceeds rate %d B/s (fio: minimum rate exceeds rate, ddir %d)", dirName(d), j.RateMin[d], j.Rate[d], d)
		}
		if j.RateIOPS[d] > 0 && j.RateIOPS[d] < j.RateIOPSMin[d] {
			fail("rate_iops_min", "", "%s: rate_iops_min %d exceeds rate_iops %d (fio: minimum rate exceeds rate, ddir %d)", dirName(d), j.RateIOPSMin[d], j.RateIOPS[d], d)
		}
	}
}

// checkZones makes fio 3.33's zonemode checks: zonemode=strided needs a
// zonesize, and a zonesize needs a zonemode other than none.
func checkZones(j *Job, fail func(opt, val, format string, args ...any)) {
	switch {
	case j.ZoneMode == "strided" && j.ZoneSize == 0:
		fail("zonemode", "", "zonemode=strided needs zonesize= (fio: --zonesize must be specified when using --zonemode=strided)")
	case j.ZoneMode == "none" && j.ZoneSize > 0:
		fail("zonesize", "", "zonesize= needs zonemode=strided (fio: --zonemode=none and --zonesize are not compatible)")
	}
}

func dirName(d int) string {
	switch d {
	case DirRead:
		return "read"
	case DirWrite:
		return "write"
	}
	return "trim"
}
