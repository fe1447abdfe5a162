package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blkq-dev/blkq/experiment"
	"github.com/blkq-dev/blkq/lockstat"
	"github.com/spf13/cobra"
)

// latencyCommand is "blkq latency [flags]": the wake-up latency benchmark
// of package experiment (experiment/latency.go), printed as cyclictest
// prints its line, with the lock hold times and a histogram after it.
func latencyCommand(f *cliFlags, stdout io.Writer) *cobra.Command {
	return f.withFlags(&cobra.Command{
		Use:  "latency [flags]",
		Long: "Measures wake-up latency (cyclictest-like) while writers load the request layer.",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			return latency(experiment.LatencyOptions{Duration: f.duration, Interval: f.interval, Writers: f.writers, Dir: f.dir, CPUHold: f.cpuHold}, stdout)
		},
	}, latencyFlags)
}

// latency runs the benchmark o and prints what it measured.
func latency(o experiment.LatencyOptions, stdout io.Writer) error {
	if err := o.Check(); err != nil {
		var oe *experiment.OptionError
		if errors.As(err, &oe) {
			return usagef("--%s", oe)
		}
		return err
	}
	// Ctrl-C or SIGTERM ends the measurement early, from here on, so the
	// scratch file is always removed; a second one exits at once, and
	// removes it first (signal.go).
	in := notifyInterrupt(io.Discard) // no fio line: cyclictest prints none
	defer in.release()
	o.Stop = in.Stop()
	o.Scratch = func(path string) { in.onExit(func() { os.Remove(path) }) }
	r, err := experiment.Latency(o)
	if err != nil {
		return err
	}
	us := func(ns int64) float64 { return float64(ns) / 1e3 }
	fmt.Fprintf(stdout, "blkq latency: %d samples at %v, %d writers, %.1f MB written through the buffer cache\n",
		r.Lat.Count(), o.Interval, o.Writers, float64(r.Written)/1e6)
	fmt.Fprintf(stdout, "T: 0 I:%d C:%d Min:%8.0f Avg:%8.0f P99:%8.0f Max:%8.0f (µs of wake-up latency)\n",
		o.Interval.Microseconds(), r.Lat.Count(), us(r.Lat.Min()), r.Lat.Mean()/1e3, us(r.Lat.Percentile(99)), us(r.Lat.Max()))
	fmt.Fprintf(stdout, "lock holds (µs)     %9s  %8s %8s %8s  %8s %8s %8s\n", "holds", "wall p99", "max", ">100µs", "CPU p99", "max", ">100µs")
	lockLine(stdout, "queue lock", r.QueueLock)
	lockLine(stdout, "buffer cache lock", r.CacheLock)
	lockLine(stdout, "control", r.Control)
	fmt.Fprintln(stdout, "histogram of wake-up latency (µs: samples in each range):")
	for _, b := range r.Histogram {
		if b.HiUs == 0 {
			fmt.Fprintf(stdout, "  >= %-8d: %d\n", b.LoUs, b.Count)
		} else {
			fmt.Fprintf(stdout, "  %5d-%-5d: %d\n", b.LoUs, b.HiUs, b.Count)
		}
	}
	return nil
}

// lockLine prints one lock's hold times.
func lockLine(w io.Writer, name string, s lockstat.Stats) {
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Nanoseconds())/1e3) }
	fmt.Fprintf(w, "%-19s %9d  %8s %8s %8d", name, s.Holds, us(s.WallP99), us(s.WallMax), s.WallLong)
	if s.CPU {
		fmt.Fprintf(w, "  %8s %8s %8d", us(s.CPUP99), us(s.CPUMax), s.CPULong)
	}
	fmt.Fprintln(w)
}
