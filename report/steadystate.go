package report

import (
	"bufio"
	"fmt"
)

// SteadyState is a job's steady state detection (fio's ss options), as
// fio 3.33 reports it: the "steadystate :" line of the normal report and
// the JSON "steadystate" object.
type SteadyState struct {
	// Criterion is "iops", "iops_slope", "bw" or "bw_slope"; Limit its
	// threshold (IOPS, bytes/s, or percent of the mean when Percent).
	Criterion string
	Limit     float64
	Percent   bool
	// Duration is the window, in seconds (one sample a second).
	Duration int
	// Attained says the criterion held and the job ended for it.
	Attained bool
	// Value is the criterion's last value (percent when Percent); Slope
	// and MaxDeviation the last slope (IOPS or bytes/s per second) and
	// largest deviation from the mean, whichever the criterion computes
	// (the other stays 0).
	Value, Slope, MaxDeviation float64
	// IOPS and BW are the window's samples, oldest first (IOPS, bytes/s),
	// Duration of them (zeros for samples not yet taken).
	IOPS, BW []uint64
}

func (s *SteadyState) slope() bool { return s.Criterion == "iops_slope" || s.Criterion == "bw_slope" }
func (s *SteadyState) iops() bool  { return s.Criterion == "iops" || s.Criterion == "iops_slope" }

func (s *SteadyState) pct() string {
	if s.Percent {
		return "%"
	}
	return ""
}

// means are fio's bw_mean and iops_mean: the window's sums over its
// length, in integers.
func (s *SteadyState) means() (bw, iops uint64) {
	if s.Duration == 0 {
		return 0, 0
	}
	for i := range s.BW {
		bw += s.BW[i]
		iops += s.IOPS[i]
	}
	return bw / uint64(s.Duration), iops / uint64(s.Duration)
}

// writeSteadyStateNormal writes fio's "  steadystate  : ..." line. The
// bandwidth's decimal form is fio's: its KiB/s figure read as kB/s.
func writeSteadyStateNormal(w *bufio.Writer, s *SteadyState) {
	bw, iops := s.means()
	kib := bw / 1024
	att := "no"
	if s.Attained {
		att = "yes"
	}
	what, how := "bw", " mean dev"
	if s.iops() {
		what = "iops"
	}
	if s.slope() {
		how = " slope"
	}
	fmt.Fprintf(w, "  steadystate  : attained=%s, bw=%s (%s), iops=%s, %s%s=%.3f%s\n", att,
		Num2Str(kib*1024, sigFigs, true, UnitBytesPerS), Num2Str(kib*1000, sigFigs, false, UnitBytesPerS),
		Num2Str(iops, sigFigs, false, UnitNone), what, how, fin(s.Value), s.pct())
}

// steadyStateJSON is fio's "steadystate" object; its limit and criterion
// strings are printed from single-precision floats, as fio prints them.
func steadyStateJSON(s *SteadyState) *jobj {
	o := &jobj{}
	o.add("ss", fmt.Sprintf("%s:%f%s", s.Criterion, float64(float32(s.Limit)), s.pct()))
	o.add("duration", s.Duration)
	o.add("attained", b2i(s.Attained))
	o.add("criterion", fmt.Sprintf("%f%s", float64(float32(fin(s.Value))), s.pct()))
	o.add("max_deviation", jfloat(s.MaxDeviation))
	o.add("slope", jfloat(s.Slope))
	bw, iops := s.means()
	d := &jobj{}
	d.add("bw_mean", bw)
	d.add("iops_mean", iops)
	var ia, ba jarr
	for i := range s.IOPS {
		ia = append(ia, s.IOPS[i])
		ba = append(ba, s.BW[i])
	}
	d.add("iops", ia)
	d.add("bw", ba)
	o.add("data", d)
	return o
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
