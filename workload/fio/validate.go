package fio

import (
	"errors"
	"fmt"
)

// Validate makes the cross-option checks fio makes before running, beyond
// what Parse checks line by line: a job file with no jobs, wait_for naming
// no earlier job, bssplit percentages above 100, zero or inverted block
// sizes, and a size smaller than the smallest block size. All problems are
// returned, joined; each is a *ParseError pointing at the option's line (or
// the job's header when the option was not set in the file).
func Validate(jf *JobFile) error {
	if jf == nil {
		return errors.New("fio: nil job file")
	}
	if len(jf.Jobs) == 0 {
		return &ParseError{File: jf.Path, Msg: "no jobs defined"}
	}
	var errs []error
	seen := map[string]bool{}
	for _, j := range jf.Jobs {
		fail := func(opt, val, format string, args ...any) {
			line := j.Line
			if l, ok := j.lines[opt]; ok {
				line = l
			}
			errs = append(errs, &ParseError{File: jf.Path, Line: line, Option: opt, Value: val,
				Msg: fmt.Sprintf("job %q: ", j.Name) + fmt.Sprintf(format, args...)})
		}
		if j.WaitFor != "" && !seen[j.WaitFor] {
			// fio only looks among the jobs defined above.
			fail("wait_for", j.WaitFor, "no job named %q before this one", j.WaitFor)
		}
		for d, sp := range j.BSSplit {
			sum := 0
			for _, s := range sp {
				sum += s.Percent
				if s.BS <= 0 {
					fail("bssplit", "", "%s block size %d is not positive", dirName(d), s.BS)
				}
			}
			if sum > 100 {
				fail("bssplit", "", "%s percentages add up to %d%%, more than 100%%", dirName(d), sum)
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
		seen[j.Name] = true
	}
	return errors.Join(errs...)
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
