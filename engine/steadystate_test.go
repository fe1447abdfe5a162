package engine

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// TestSteadyStateJudgeAsFio: the criterion of a full window is fio's: the
// windows and values are those fio 3.33 reported for steadystate.fio on
// ioengine=null with ss_dur=3s (iops:10%: largest deviation over the
// mean; bw_slope:1%: the slope over the mean divided in integers).
func TestSteadyStateJudgeAsFio(t *testing.T) {
	for _, c := range []struct {
		crit            string
		limit           float64
		samples         []uint64
		value, dev, slp float64
	}{
		{"iops", 10, []uint64{3438087, 3534825, 3661067}, 3.284020, 116407.333333, 0},
		{"bw_slope", 1, []uint64{52378083328, 50594607918, 52027990016}, -0.338798, 0, -175046656},
	} {
		w := &ssWindow{o: fio.SteadyState{Criterion: c.crit, Limit: c.limit, Percent: true}, dur: 3}
		var got bool
		for i, y := range c.samples {
			got = w.judge(y, y)
			if i < 2 && got {
				t.Fatalf("%s: steady after %d of 3 samples", c.crit, i+1)
			}
		}
		if !got || math.Abs(w.criterion-c.value) > 5e-7 || math.Abs(w.deviation-c.dev) > 5e-7 || math.Abs(w.slope-c.slp) > 5e-7 {
			t.Errorf("%s: steady=%v criterion %f deviation %f slope %f; fio: %f %f %f", c.crit, got, w.criterion, w.deviation, w.slope, c.value, c.dev, c.slp)
		}
	}
}

// TestSteadyStateCorpusEndsEarly: fio's steadystate.fio, unmodified, on
// the simulated disk: each group of four jobs ends once its measure is
// steady (the writers' IOPS within 10% of the mean over 30 s after a
// 10 s ramp, the readers' bandwidth slope under 1% over 10 s after 5 s),
// long before its 5 minutes; the readers after exactly 5+1+10 samples
// less one (the ramp's first second ends with the sixth tick). Its
// threads=1 is the tiobench profile's option, silently taken as fio takes
// it: no ignored options.
func TestSteadyStateCorpusEndsEarly(t *testing.T) {
	if raceEnabled {
		t.Skip("100 s of simulated writes through the page cache: too slow under -race")
	}
	jf, err := fio.ParseFile("../testdata/fio-3.33/steadystate.fio")
	if err != nil {
		t.Fatal(err)
	}
	for _, ig := range jf.Ignored {
		if !ig.Inert() {
			t.Errorf("%s is ignored", ig.Option)
		}
	}
	res, err := Run(jf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, js := range res.Run.Jobs {
		ss := js.SteadyState
		if ss == nil || !ss.Attained || js.Error != 0 {
			t.Fatalf("%s: steady state %+v, error %d", js.Name, ss, js.Error)
		}
		if js.Runtime >= int64(time.Minute)*5 {
			t.Errorf("%s ran its whole runtime", js.Name)
		}
	}
	read := res.Run.Jobs[4]
	if read.Runtime < 15e9 || read.Runtime > 15.1e9 || read.SteadyState.Duration != 10 || len(read.SteadyState.BW) != 10 {
		t.Errorf("readers: %v, window %d; want steady at 15 s over 10 samples", time.Duration(read.Runtime), read.SteadyState.Duration)
	}
	var out bytes.Buffer
	if err := report.WriteNormal(&out, res.Run); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "  steadystate  : attained=yes, bw="); n != 2 {
		t.Errorf("%d steadystate lines in\n%s", n, out.String())
	}
}

// TestSteadyStateWindowJSON: a job that never settles runs its runtime
// and reports attained 0 with the window's last ss_dur samples, oldest
// first; its JSON object has fio's keys in fio's order.
func TestSteadyStateWindowJSON(t *testing.T) {
	// Rate steps up every second: the slope never falls under 0.01%.
	src := "[j]\nrw=read\nbs=4k\ndirect=1\nfilename=/dev/sdb\ntime_based\nruntime=6\nss_dur=3\nrate_iops=%d\n"
	res := run(t, fmt.Sprintf(src, 100)+"ss=iops:1000\nramp_time=0\n", Options{Device: "sim:ssd"})
	ss := res.Run.Jobs[0].SteadyState
	if !ss.Attained || res.Run.Jobs[0].Runtime > 3.1e9 {
		t.Fatalf("a steady 100 IOPS job under iops:1000: %+v after %d ns", ss, res.Run.Jobs[0].Runtime)
	}
	if fmt.Sprint(ss.IOPS) != "[100 100 100]" || fmt.Sprint(ss.BW) != "[409600 409600 409600]" {
		t.Fatalf("window %v %v, want three samples of 100 IOPS", ss.IOPS, ss.BW)
	}
	res = run(t, fmt.Sprintf(src, 100)+"ss=bw_slope:0%\n", Options{Device: "sim:ssd"})
	js := res.Run.Jobs[0]
	if js.SteadyState.Attained || js.Runtime < 6e9 || fmt.Sprint(js.SteadyState.IOPS) != "[100 100 100]" {
		t.Fatalf("bw_slope:0%%, never under the limit: %+v after %d ns", js.SteadyState, js.Runtime)
	}
	var out bytes.Buffer
	if err := report.WriteJSON(&out, res.Run); err != nil {
		t.Fatal(err)
	}
	want := `"steadystate" : {
        "ss" : "bw_slope:0.000000%",
        "duration" : 3,
        "attained" : 0,
        "criterion" : "0.000000%",
        "max_deviation" : 0.000000,
        "slope" : 0.000000,
        "data" : {
          "bw_mean" : 409600,
          "iops_mean" : 100,
          "iops" : [
            100,
            100,
            100
          ],
          "bw" : [
            409600,
            409600,
            409600
          ]
        }
      }`
	if !strings.Contains(out.String(), want) {
		t.Fatalf("JSON lacks\n%s\nin\n%s", want, out.String())
	}
}
