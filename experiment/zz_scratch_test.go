package experiment

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/blkq-dev/blkq/engine"
)

func TestScratch(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	scale, _ := strconv.ParseFloat(os.Getenv("SCALE"), 64)
	ncpu, _ := strconv.Atoi(os.Getenv("NCPU"))
	mk := func(policy string, buffered bool) Config {
		o := dbenchOptions(policy)
		o.WakeJitter = 0
		o.CPU = engine.DefaultCPUOptions(ncpu)
		c := Config{Name: fmt.Sprintf("%s cpus=%d", policy, ncpu), Options: o}
		if buffered {
			c.Name += ", buffered"
			c.Jobs = dbenchBufferedJobs
		}
		return c
	}
	var cs []Config
	for _, b := range []bool{false, true} {
		for _, p := range []string{"legacy", "fair", "fair-nobatch", "fair-wakeall"} {
			cs = append(cs, mk(p, b))
		}
	}
	e := &Experiment{Name: "scratch", Jobs: dbenchJobs, Configs: cs, Analyze: func(out []*Outcome) *Table {
		tb := wakeTable(out)
		tb.Columns = append(tb.Columns, "cpu ms", "ctx", "task wakes", "rundelay max ms")
		for i, o := range out {
			c := o.Result.CPU
			tb.Rows[i] = append(tb.Rows[i], fmt.Sprintf("%.0f", float64(c.Busy)/1e6), fmt.Sprint(c.Switches), fmt.Sprint(c.Wakeups), fmt.Sprintf("%.2f", float64(c.RunDelayMax)/1e6))
		}
		return tb
	}}
	_, tab, err := Run(e, Options{Seed: 1, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(tab.Format())
}
