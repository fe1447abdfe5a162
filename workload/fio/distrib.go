package fio

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// The options that shape where random I/O lands and when I/O is issued:
// random_distribution, random_generator, rate_process and the thinktime
// variants, as fio 3.33 parses them.

// Distribution is random_distribution=: how random offsets are spread
// over a file's blocks.
type Distribution struct {
	// Kind is "random" (uniform, fio's default), "zipf", "pareto",
	// "normal", "zoned" or "zoned_abs".
	Kind string
	// Param is zipf's θ, pareto's h or normal's standard deviation (a
	// percentage of the file); 0 for the others.
	Param float64
	// Center is where the hottest block sits, as a fraction of the file
	// in [0, 1] ("zipf:1.2:0.3"); -1 when not given (fio then places it
	// at random, or at the start for normal).
	Center float64
	// Zones are zoned's and zoned_abs's zones per direction (DirRead,
	// DirWrite, DirTrim), in order from the file's start; a direction
	// not given uses the one before it, as fio does.
	Zones [3][]Zone
}

// Zone is one zone of a zoned distribution: Access percent of the I/Os
// land in it, uniformly. Its extent is RangePercent percent of the file
// (zoned) or Size bytes (zoned_abs).
type Zone struct {
	Access       int // 1..100
	RangePercent int // zoned: 0..100
	Size         int64
}

// parseDistribution parses "random", "zipf:θ[:center]", "pareto:h[:center]",
// "normal:σ[:center]" (alias "gauss"), "zoned:A/R:A/R...[,...]" or
// "zoned_abs:A/SIZE:...[,...]".
func parseDistribution(s string, kb int64) (Distribution, error) {
	d := Distribution{Center: -1}
	kind, rest, _ := strings.Cut(strings.TrimSpace(s), ":")
	switch kind {
	case "random":
		d.Kind = kind
		return d, nil
	case "zipf", "pareto", "normal", "gauss":
		return parseSkewed(s, kind, rest)
	case "zoned", "zoned_abs":
		d.Kind = kind
		var last []Zone
		parts := strings.Split(rest, ",")
		if len(parts) > 3 {
			return d, badValue("bad random_distribution", s, "more than three directions")
		}
		for dir := range 3 {
			if dir < len(parts) && strings.TrimSpace(parts[dir]) != "" {
				z, err := parseZones(s, kind, parts[dir], kb)
				if err != nil {
					return d, err
				}
				last = z
			}
			d.Zones[dir] = last
		}
		if len(d.Zones[0]) == 0 {
			return d, badValue("bad random_distribution", s, "%s needs at least one zone (access%%/range)", kind)
		}
		return d, nil
	}
	return d, badValue("bad random_distribution", s, "want random, zipf:θ, pareto:h, normal:σ, zoned:... or zoned_abs:...")
}

// parseSkewed parses zipf, pareto and normal with their parameter and an
// optional center.
func parseSkewed(s, kind, rest string) (Distribution, error) {
	d := Distribution{Kind: kind, Center: -1}
	if kind == "gauss" {
		d.Kind = "normal"
	}
	ps, cs, hasCenter := strings.Cut(rest, ":")
	p, err := strconv.ParseFloat(strings.TrimSpace(ps), 64)
	if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
		return d, badValue("bad random_distribution", s, "%s needs a number after the colon", kind)
	}
	switch d.Kind {
	case "zipf":
		if p <= 0 || p == 1 {
			return d, badValue("bad random_distribution", s, "zipf's θ must be above 0 and not 1 (fio)")
		}
	case "pareto":
		if p <= 0 || p >= 1 {
			return d, badValue("bad random_distribution", s, "pareto's h must be between 0 and 1 (fio)")
		}
	case "normal":
		if p < 0 || p > 100 {
			return d, badValue("bad random_distribution", s, "normal's deviation is a percentage: 0 to 100")
		}
	}
	d.Param = p
	if hasCenter {
		c, err := strconv.ParseFloat(strings.TrimSpace(cs), 64)
		if err != nil || !(c >= 0 && c <= 1) {
			return d, badValue("bad random_distribution", s, "the center must be between 0 and 1")
		}
		d.Center = c
	}
	return d, nil
}

// parseZones parses one direction's "A/R:A/R..." list. The access shares
// must add up to 100, and zoned's ranges too (fio refuses the job
// otherwise).
func parseZones(s, kind, list string, kb int64) ([]Zone, error) {
	var zs []Zone
	access, ranges := 0, 0
	for _, item := range strings.Split(list, ":") {
		a, r, ok := strings.Cut(strings.TrimSpace(item), "/")
		if !ok {
			return nil, badValue("bad random_distribution", s, "zone %q is not access%%/range", item)
		}
		acc, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil || acc < 0 || acc > 100 {
			return nil, badValue("bad random_distribution", s, "zone %q: the access share is a percentage", item)
		}
		z := Zone{Access: acc}
		if kind == "zoned" {
			rp, err := strconv.Atoi(strings.TrimSpace(r))
			if err != nil || rp < 0 || rp > 100 {
				return nil, badValue("bad random_distribution", s, "zone %q: the range is a percentage of the file", item)
			}
			z.RangePercent = rp
			ranges += rp
		} else {
			n, err := parseSize(r, kb)
			if err != nil || n <= 0 {
				return nil, badValue("bad random_distribution", s, "zone %q: the range is a size in bytes", item)
			}
			z.Size = n
		}
		access += acc
		zs = append(zs, z)
	}
	if access != 100 {
		return nil, badValue("bad random_distribution", s, "the access shares add up to %d%%, want 100%%", access)
	}
	if kind == "zoned" && ranges != 100 {
		return nil, badValue("bad random_distribution", s, "the ranges add up to %d%%, want 100%%", ranges)
	}
	return zs, nil
}

// distributionOptions are the modelled options of this file.
var distributionOptions = []struct {
	spec    optSpec
	aliases []string
}{
	{optSpec{name: "random_distribution", set: func(j *Job, c *optCtx) error {
		d, err := parseDistribution(c.value, c.kb)
		if err == nil {
			j.RandomDistribution = d
		}
		return err
	}}, nil},
	{optSpec{name: "random_generator", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.RandomGenerator, c, "tausworthe", "lfsr", "tausworthe64")
	}}, nil},
	{optSpec{name: "rate_process", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.RateProcess, c, "linear", "poisson")
	}}, nil},
	{optSpec{name: "thinktime_spin", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.ThinkTimeSpin, c, time.Microsecond)
	}}, nil},
	{optSpec{name: "thinktime_blocks_type", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.ThinkTimeBlocksType, c, "complete", "issue")
	}}, nil},
	{optSpec{name: "thinktime_iotime", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.ThinkTimeIOTime, c, time.Second)
	}}, nil},
	{optSpec{name: "offset_align", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseSize(c.value, c.kb)
		j.OffsetAlign = n
		return err
	}}, nil},
}
