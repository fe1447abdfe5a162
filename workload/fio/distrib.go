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

// The parameters fio 3.33 gives zipf and pareto when none follows the
// name (fio.h FIO_DEF_ZIPF, FIO_DEF_PARETO); normal's is 0.
const (
	defaultZipfTheta = 1.1
	defaultParetoH   = 0.2
)

// parseSkewed parses zipf, pareto and normal with their parameter and an
// optional center, as fio 3.33 reads them (options.c, read for
// behaviour): without a parameter fio's default; a number is read as C's
// sscanf("%lf") reads it, its leading decimal number and nothing after;
// zipf refuses only θ = 1 (θ = 0 is a uniform draw), pareto wants
// 0 < h < 1 and normal 0 ≤ σ < 100 (a percentage of the region), the
// center 0 ≤ c ≤ 1. fio takes "inf" and "nan" too, which draw nothing
// meaningful: blkq refuses them.
func parseSkewed(s, kind, rest string) (Distribution, error) {
	d := Distribution{Kind: kind, Center: -1}
	if kind == "gauss" {
		d.Kind = "normal"
	}
	switch d.Kind {
	case "zipf":
		d.Param = defaultZipfTheta
	case "pareto":
		d.Param = defaultParetoH
	}
	if !strings.Contains(s, ":") {
		return d, nil
	}
	ps, cs, hasCenter := strings.Cut(strings.TrimSpace(rest), ":")
	p, ok := cFloat(ps)
	if !ok {
		return d, badValue("bad random_distribution", s, "%s needs a number after the colon", kind)
	}
	switch d.Kind {
	case "zipf":
		if p == 1 {
			return d, badValue("bad random_distribution", s, "zipf's θ must not be 1 (fio: zipf theta must different than 1.0)")
		}
	case "pareto":
		if p <= 0 || p >= 1 {
			return d, badValue("bad random_distribution", s, "pareto's h must be above 0 and below 1 (fio)")
		}
	case "normal":
		if p < 0 || p >= 100 {
			return d, badValue("bad random_distribution", s, "normal's deviation is a percentage: at least 0, below 100 (fio)")
		}
	}
	d.Param = p
	if hasCenter {
		c, ok := cFloat(cs)
		if !ok || !(c >= 0 && c <= 1) {
			return d, badValue("bad random_distribution", s, "the center must be between 0 and 1")
		}
		d.Center = c
	}
	return d, nil
}

// cFloat reads the leading decimal number of s as C's sscanf("%lf")
// does: optional blanks and a sign, digits with an optional fraction,
// an optional exponent; what follows is ignored. ok is false without a
// number (and for inf, nan and hexadecimal floats, which blkq refuses).
func cFloat(s string) (float64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if strings.HasPrefix(s[i:], "0x") || strings.HasPrefix(s[i:], "0X") {
		return 0, false // a hexadecimal float
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		k := i + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			i = k
		}
	}
	f, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
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
