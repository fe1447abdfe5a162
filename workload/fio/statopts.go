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
	// DisableLat, DisableClat and DisableSlat are disable_lat=,
	// disable_clat= and disable_slat= (fio default 0): the job keeps no
	// total, completion or submission latencies. Without clat there are
	// no clat percentiles, latency buckets or fsync latencies either;
	// without lat, max_latency and latency_target are not checked (fio
	// checks them on the total latency it then does not measure).
	DisableLat, DisableClat, DisableSlat bool
	// DisableBW is disable_bw_measurement= (alias disable_bw): the job's
	// bandwidth log keeps no per-I/O entries (log_avg_msec=0); the
	// report's bandwidth samples, taken by fio's helper thread, stay.
	DisableBW bool
	// DiskUtil is disk_util= (fio default 1): report the disk's counters
	// ("Disk stats", JSON disk_util) for the job's device.
	DiskUtil bool
}

// DefaultPercentiles is fio 3.33's percentile_list default, in percent.
var DefaultPercentiles = []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// maxPercentiles is the longest percentile_list fio takes
// (FIO_IO_U_LIST_MAX_LEN).
const maxPercentiles = 20

// DefaultStatOptions are fio 3.33's defaults: clat percentiles at the default list.
func DefaultStatOptions() StatOptions {
	return StatOptions{PercentilePrecision: 2, ClatPercentiles: true, DiskUtil: true}
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

func init() {
	model("disable_lat", func(j *Job, c *optCtx) error { return setBool(&j.Stats.DisableLat, c) })
	model("disable_clat", func(j *Job, c *optCtx) error { return setBool(&j.Stats.DisableClat, c) })
	model("disable_slat", func(j *Job, c *optCtx) error { return setBool(&j.Stats.DisableSlat, c) })
	model("disable_bw_measurement", func(j *Job, c *optCtx) error { return setBool(&j.Stats.DisableBW, c) }, "disable_bw")
	model("disk_util", func(j *Job, c *optCtx) error { return setBool(&j.Stats.DiskUtil, c) })
	// gtod_reduce=1 turns the latencies, the bandwidth log's per-I/O
	// entries and every percentile off where it stands, as fio's callback
	// does (a later option may turn one on again); gtod_reduce=0 changes
	// nothing.
	model("gtod_reduce", func(j *Job, c *optCtx) error {
		var on bool
		if err := setBool(&on, c); err != nil || !on {
			return err
		}
		st := &j.Stats
		st.DisableLat, st.DisableClat, st.DisableSlat, st.DisableBW = true, true, true, true
		st.ClatPercentiles, st.LatPercentiles, st.SlatPercentiles = false, false, false
		return nil
	})
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
