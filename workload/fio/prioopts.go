package fio

import (
	"slices"
	"strconv"
	"strings"
)

// I/O priorities (HOWTO prio, prioclass, and the libaio and io_uring
// engines' cmdprio options), as fio 3.33 reads them: the job's own
// priority, and the share of I/Os (per direction, or per block size with
// cmdprio_bssplit) sent with another. Priorities are Linux's ioprio
// values: class << 13 | level.

// Priority are a job's I/O priority options.
type Priority struct {
	// Level and Class are prio= (0 highest .. 7) and prioclass= (0 none,
	// 1 real-time, 2 best-effort, 3 idle); Set says either was given (fio
	// then gives every I/O ioprio(Class, Level), class 0 taken as
	// best-effort).
	Level, Class int
	Set          bool
	// CmdPercentage is cmdprio_percentage= per direction (read, write):
	// the share of I/Os, 0..100, sent with ioprio(CmdClass, CmdLevel).
	CmdPercentage [2]int
	// CmdClass and CmdLevel are cmdprio_class= (1..3; 0, unset, means
	// real-time, as fio takes it) and cmdprio= (0..7) per direction.
	CmdClass, CmdLevel [2]int
	// CmdBSSplit is cmdprio_bssplit= per direction: for I/Os of a block
	// size, the shares sent with a priority; entries of 0% are dropped
	// and the rest sorted by block size, as fio does.
	CmdBSSplit [2][]PrioSplit
}

// PrioSplit is one entry of cmdprio_bssplit.
type PrioSplit struct {
	BS      int64 // bytes
	Percent int   // 1..100 of the I/Os of size BS
	// Prio is the entry's ioprio value, or -1 for the direction's
	// cmdprio_class and cmdprio ("bs/perc" without "/class/level").
	Prio int
}

// IOPrio is Linux's ioprio value of class and level as fio makes it:
// class 0 (none) is taken as best-effort (2).
func IOPrio(class, level int) int {
	if class == 0 {
		class = 2
	}
	return class<<13 | level
}

// UsesCmdprio reports whether the job sends some I/Os with a cmdprio
// priority.
func (p *Priority) UsesCmdprio() bool {
	return p.CmdPercentage != [2]int{} || p.CmdBSSplit[0] != nil || p.CmdBSSplit[1] != nil
}

// prioModelled are the priority options and their setters.
var prioModelled = []optSpec{
	{name: "prio", scalar: true, set: func(j *Job, c *optCtx) error {
		j.Priority.Set = true
		return setInt(&j.Priority.Level, c, 0, 7)
	}},
	{name: "prioclass", scalar: true, set: func(j *Job, c *optCtx) error {
		j.Priority.Set = true
		return setInt(&j.Priority.Class, c, 0, 3)
	}},
	{name: "cmdprio_percentage", set: func(j *Job, c *optCtx) error { return setReadWrite(&j.Priority.CmdPercentage, c, 0, 100) }},
	{name: "cmdprio_class", set: func(j *Job, c *optCtx) error { return setReadWrite(&j.Priority.CmdClass, c, 1, 3) }},
	{name: "cmdprio", set: func(j *Job, c *optCtx) error { return setReadWrite(&j.Priority.CmdLevel, c, 0, 7) }},
	{name: "cmdprio_bssplit", set: setCmdprioBSSplit},
}

// setReadWrite sets the read and write parts of a per-direction integer (fio's
// engine options have no trim part).
func setReadWrite(dst *[2]int, c *optCtx, lo, hi int64) error {
	return eachDir(c, func(d int, part string) error {
		n, err := parseInt(part, c.kb, lo, hi)
		if err == nil && d < 2 {
			dst[d] = int(n)
		}
		return err
	})
}

// setCmdprioBSSplit parses cmdprio_bssplit=READ,WRITE, each a ':' list
// of "bs/perc" or "bs/perc/class/level" (class and level capped at 3
// and 7, as fio caps them); a block size's shares may add up to 100%.
func setCmdprioBSSplit(j *Job, c *optCtx) error {
	return eachDir(c, func(d int, part string) error {
		if d >= 2 {
			return nil
		}
		var list []PrioSplit
		for _, e := range strings.Split(part, ":") {
			if e == "" {
				break
			}
			f := strings.Split(e, "/")
			if len(f) > 4 || len(f) == 3 {
				return badValue("bad cmdprio_bssplit", e, "want bs/perc or bs/perc/class/level")
			}
			bs, err := parseSize(f[0], c.kb)
			if err != nil {
				return err
			}
			s := PrioSplit{BS: bs, Prio: -1}
			nums := make([]int, len(f)-1)
			for i, x := range f[1:] {
				if x == "" && i == 0 && len(f) == 2 {
					break // "bs/": 0%
				}
				n, err := strconv.ParseUint(strings.TrimSpace(x), 10, 31)
				if err != nil {
					return badValue("bad cmdprio_bssplit", e, "%q is not a number", x)
				}
				nums[i] = int(n)
			}
			if len(nums) > 0 {
				s.Percent = min(nums[0], 100)
			}
			if len(nums) == 3 {
				s.Prio = IOPrio(min(nums[1], 3), min(nums[2], 7))
			}
			if s.Percent > 0 {
				list = append(list, s)
			}
		}
		slices.SortStableFunc(list, func(a, b PrioSplit) int { return int(min(max(a.BS-b.BS, -1), 1)) })
		for i := 0; i < len(list); {
			k, sum := i, 0
			for ; k < len(list) && list[k].BS == list[i].BS; k++ {
				sum += list[k].Percent
			}
			if sum > 100 {
				return badValue("bad cmdprio_bssplit", part, "the shares of block size %d add up to %d%%, more than 100%%", list[i].BS, sum)
			}
			i = k
		}
		j.Priority.CmdBSSplit[d] = list
		return nil
	})
}

func init() {
	for i := range prioModelled {
		optionTable[prioModelled[i].name] = &prioModelled[i]
	}
}
