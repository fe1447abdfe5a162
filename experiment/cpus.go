package experiment

import (
	"fmt"

	"github.com/blkq-dev/blkq/engine"
)

// The 2002 experiments run their loads a second time on the CPU model
// (engine Options.CPU, docs/cpus.md), so that what the CPUs cost shows:
// context switches, submissions, woken tasks waiting for a CPU.

// cpus2002 is the CPUs of the 2002 configurations: one, as the only 2002
// machine the thread describes had (Randy Hron's K6-2 475 MHz, whose
// tiobench CPU figures give the model's cost of a submission). Andrew
// Morton's dbench machine is not described.
const cpus2002 = 1

// withCPUs returns cs again on the CPU model with n CPUs and its default
// costs, named with ", 1 CPU" (or ", n CPUs"). The run queue then decides
// which woken task runs first, so the random wake-up jitter that stood for
// the scheduler's choice is off.
func withCPUs(cs []Config, n int) []Config {
	var out []Config
	for _, c := range cs {
		c.Name += cpuSuffix(n)
		c.Options.CPU = engine.DefaultCPUOptions(n)
		c.Options.WakeJitter = 0
		out = append(out, c)
	}
	return out
}

func cpuSuffix(n int) string {
	if n == 1 {
		return ", 1 CPU"
	}
	return fmt.Sprintf(", %d CPUs", n)
}

// cpuColumns are the CPU model's columns of a table; cpuCells fills them
// for one outcome ("-" without the model).
var cpuColumns = []string{"CPU s", "ctx", "task wakes", "wake max ms"}

func cpuCells(o *Outcome) []string {
	c := o.Result.CPU
	if c == nil {
		return []string{"-", "-", "-", "-"}
	}
	return []string{f2(c.Busy.Seconds()), num(c.Switches), num(c.Wakeups), f2(float64(c.RunDelayMax) / 1e6)}
}

// cpuFigures are an outcome's totals under the CPU model.
type cpuFigures struct {
	busySecs        float64 // CPU time, all CPUs
	util            float64 // of the CPUs' time over the run, percent
	switches, wakes uint64
}

func cpuFigs(o *Outcome) cpuFigures {
	c := o.Result.CPU
	if c == nil {
		return cpuFigures{}
	}
	f := cpuFigures{busySecs: c.Busy.Seconds(), switches: c.Switches, wakes: c.Wakeups}
	if el := o.Result.Elapsed.Seconds(); el > 0 {
		f.util = 100 * f.busySecs / (el * float64(c.CPUs))
	}
	return f
}
