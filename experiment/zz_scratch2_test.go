package experiment

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/engine"
)

func TestScratch2(t *testing.T) {
	if os.Getenv("SCRATCH2") == "" {
		t.Skip()
	}
	scale, _ := strconv.ParseFloat(os.Getenv("SCALE"), 64)
	var cs []Config
	add := func(name string, o engine.Options) { cs = append(cs, Config{Name: name, Options: o}) }
	for _, p := range []string{"legacy", "fair"} {
		o := dbenchOptions(p)
		add(p+" jitter2ms", o)
		o.WakeJitter = 0
		add(p+" jitter0", o)
		o.CPU = engine.DefaultCPUOptions(1)
		o.CPU.Submit, o.CPU.ContextSwitch = 0, 0
		add(p+" cpu1 free", o)
		o.CPU = engine.DefaultCPUOptions(1)
		add(p+" cpu1", o)
		o.CPU.Submit = 5 * time.Microsecond
		add(p+" cpu1 submit5us", o)
		o.WakeJitter = 2 * time.Millisecond
		o.CPU = engine.CPUOptions{}
	}
	e := &Experiment{Name: "scratch", Jobs: dbenchJobs, Configs: cs, Analyze: func(out []*Outcome) *Table {
		tb := wakeTable(out)
		tb.Columns = append(tb.Columns, "ctx")
		for i, o := range out {
			s := "-"
			if c := o.Result.CPU; c != nil {
				s = fmt.Sprint(c.Switches)
			}
			tb.Rows[i] = append(tb.Rows[i], s)
		}
		return tb
	}}
	_, tab, err := Run(e, Options{Seed: 1, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(tab.Format())
}
