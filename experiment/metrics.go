package experiment

import (
	"fmt"
	"sort"

	"github.com/blkq-dev/blkq/report"
)

// allocFigures are the request-allocation figures of one outcome.
type allocFigures struct {
	maxWait, p50, p99 float64 // ms, over every allocation wait
	maxOverMedian     float64
	sleeps, wakeups   uint64
	jain              float64 // of per-job throughput
	mbps              float64 // total throughput, MB/s
	tasks             int
	runMs             float64 // the run's length, ms
}

func figures(o *Outcome) allocFigures {
	var f allocFigures
	var waits []float64
	for _, w := range o.Waits {
		waits = append(waits, float64(w.Wait)/1e6)
	}
	sort.Float64s(waits)
	if n := len(waits); n > 0 {
		f.maxWait = waits[n-1]
		f.p50 = waits[n/2]
		f.p99 = waits[min(n-1, n*99/100)]
		if f.p50 > 0 {
			f.maxOverMedian = f.maxWait / f.p50
		}
	}
	var bw []float64
	var bytes, runtime float64
	for _, js := range o.Result.Run.Jobs {
		f.sleeps += js.Blkq.Sleeps
		f.wakeups += js.Blkq.Wakeups
		b := float64(js.Read.Bytes + js.Write.Bytes)
		if js.Runtime > 0 {
			bw = append(bw, b/(float64(js.Runtime)/1e9))
		}
		bytes += b
		runtime = max(runtime, float64(js.Runtime)/1e9)
	}
	f.tasks = len(o.Result.Run.Jobs)
	f.runMs = float64(o.Result.Elapsed) / 1e6
	f.jain = report.JainIndex(bw)
	if runtime > 0 {
		f.mbps = bytes / runtime / 1e6
	}
	return f
}

func ms(v float64) string { return fmt.Sprintf("%.0f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }
func f3(v float64) string { return fmt.Sprintf("%.3f", v) }
func num(v uint64) string { return fmt.Sprintf("%d", v) }
func pct(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return (a - b) / b * 100
}

// yesNo says whether a direction the original report found holds here.
func yesNo(ok bool) string {
	if ok {
		return "reproduced"
	}
	return "NOT reproduced"
}
