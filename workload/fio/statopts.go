package fio

// The reporting options blkq models: which latency percentiles a job's
// report shows, at which percentiles, and the job's description. They
// change no I/O, only what the report prints (report.JobStats's
// Percentiles and Description).

import (
	"strconv"
	"strings"
)

// StatOptions are a job's reporting options.
type StatOptions struct {
	// PercentileList is percentile_list=, in percent as written (fio sorts
	// it before it reports); nil: fio's default, [DefaultPercentiles].
	PercentileList []float64
	// PercentilePrecision is the number of decimals the text report prints
	// each percentile with: the most any entry of percentile_list= has
	// (2 for fio's default list).
	PercentilePrecision int
	// ClatPercentiles, LatPercentiles and SlatPercentiles are
	// clat_percentiles= (fio's default 1), lat_percentiles= and
	// slat_percentiles= (default 0).
	ClatPercentiles, LatPercentiles, SlatPercentiles bool
	// Description is description=, printed in the reports as fio prints
	// it ("" for none).
	Description string
}

// DefaultPercentiles is fio 3.33's percentile_list default, in percent.
var DefaultPercentiles = []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// maxPercentiles is the longest percentile_list fio takes
// (FIO_IO_U_LIST_MAX_LEN).
const maxPercentiles = 20

// DefaultStatOptions are fio 3.33's defaults: clat percentiles at the default list.
func DefaultStatOptions() StatOptions {
	return StatOptions{PercentilePrecision: 2, ClatPercentiles: true}
}

// statModelled is the option table's part for StatOptions.
var statModelled = []struct {
	spec    optSpec
	aliases []string
}{
	{optSpec{name: "percentile_list", set: setPercentileList}, nil},
	{optSpec{name: "clat_percentiles", set: func(j *Job, c *optCtx) error { return setBool(&j.Stats.ClatPercentiles, c) }}, nil},
	{optSpec{name: "lat_percentiles", set: func(j *Job, c *optCtx) error { return setBool(&j.Stats.LatPercentiles, c) }}, nil},
	{optSpec{name: "description", set: func(j *Job, c *optCtx) error { j.Stats.Description = c.value; return nil }}, nil},
	{optSpec{name: "slat_percentiles", set: func(j *Job, c *optCtx) error { return setBool(&j.Stats.SlatPercentiles, c) }}, nil},
}

// setPercentileList parses percentile_list=P1:P2:..., each 0..100, at most
// 20, as fio does.
func setPercentileList(j *Job, c *optCtx) error {
	parts := strings.Split(c.value, ":")
	if len(parts) > maxPercentiles {
		return badValue("bad percentile_list", c.value, "%d percentiles; fio takes at most %d", len(parts), maxPercentiles)
	}
	list := make([]float64, 0, len(parts))
	prec := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return badValue("bad percentile_list", c.value, "%q is not a number", p)
		}
		if v < 0 || v > 100 {
			return badValue("bad percentile_list", c.value, "%s is out of range 0..100", p)
		}
		if _, frac, ok := strings.Cut(p, "."); ok {
			n := 0
			for n < len(frac) && frac[n] >= '0' && frac[n] <= '9' {
				n++
			}
			prec = max(prec, n)
		}
		list = append(list, v)
	}
	j.Stats.PercentileList, j.Stats.PercentilePrecision = list, prec
	return nil
}
