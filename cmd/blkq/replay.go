package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/experiment"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/trace"
	"github.com/blkq-dev/blkq/workload/iotrace"
)

// cmdReplay runs "blkq replay TRACE [flags]": a recorded block trace
// through the request layer onto a device, reported as blkq run reports.
func cmdReplay(args []string, stdout, stderr io.Writer) error {
	var f runFlags
	fs := flag.NewFlagSet("blkq replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	format := fs.String("format", "", "trace format: blktrace, blkparse, ftrace, disksim, msr, spc, fio-iolog (default: detected from the content)")
	timing := fs.String("timing", "trace", "trace: recorded arrival times (open loop); afap: as fast as possible (closed loop)")
	speed := fs.Float64("speed", 1, "with --timing=trace, replay this many times faster")
	iodepth := fs.Int("iodepth", 32, "with --timing=afap, records in flight")
	timeUnit := fs.Duration("time-unit", 0, "time unit of a DiskSim trace's arrival times (MQSim writes ns, the default; DiskSim's own traces use ms: --time-unit=1ms)")
	strict := fs.Bool("strict", false, "fail on an address beyond the device instead of wrapping it")
	kernelMerges := fs.Bool("kernel-merges", false, "for blkparse/ftrace traces: compare blkq's merges of the Q events with the kernel's own M/F events in the trace")
	compare := fs.String("compare", "", "run under several settings and print one table, e.g. sched=none,mq-deadline,linus or nomerges=0,2")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: blkq replay [flags] TRACE\n\nReplays a block trace through the request layer.\n\nflags:")
		fs.PrintDefaults()
	}
	rest, ok, err := parseFlags(fs, args)
	if !ok {
		return err
	}
	if len(rest) != 1 {
		return usagef("replay: want one trace file, got %d arguments (blkq replay -h)", len(rest))
	}
	path := rest[0]
	base, err := f.options()
	if err != nil {
		return err
	}
	switch {
	case f.runtimeCap != 0:
		return usagef("--runtime-cap: a replay runs the whole trace and has no runtime to cap")
	case base.SizeCap > 0 && !strings.HasPrefix(base.Device, "file:"):
		return usagef("--size-cap: in a replay it sizes a file: device; %s keeps its size", deviceName(base.Device))
	case !(*speed >= 1e-6) || *speed > 1e9:
		// Below a millionth, a second of trace lasts over eleven days.
		return usagef("--speed=%v: want a number from 1e-6 to 1e9 (2 = twice as fast, 0.5 = half as fast)", *speed)
	case *iodepth < 1:
		return usagef("--iodepth=%d: want at least 1", *iodepth)
	case *timing != "trace" && *timing != "afap":
		return usagef("--timing=%.40s: want trace or afap", *timing)
	case *timeUnit < 0 || *timeUnit > 0 && !powerOfTen(int64(*timeUnit)):
		return usagef("--time-unit=%v: want a power of ten of nanoseconds, such as 1ns, 100ns, 1us, 1ms or 1s", *timeUnit)
	case *compare != "" && (f.format != "normal" || f.output != "" || f.traceFile != ""):
		return usagef("--compare prints one text table: it does not combine with --output-format, --output or --trace")
	}
	var settings []compareSetting
	if *compare != "" {
		// Every value is checked before the first replay starts.
		if settings, err = compareSettings(*compare, base); err != nil {
			return err
		}
	}
	// From here on SIGINT and SIGTERM stop the replay and print its
	// report (signal.go); the report goes through in.out, after fio's line.
	in := notifyInterrupt(stdout)
	defer in.release()
	stdout = in.out
	base.Stop = in.Stop()
	src, err := traceSource(path, *format, *timeUnit)
	if err != nil {
		return err
	}
	ro := engine.ReplayOptions{Timing: *timing, Speed: *speed, IODepth: *iodepth, Strict: *strict}
	if f.parseOnly {
		// As run --parse-only: the trace is read and checked, nothing runs.
		n, warn, err := engine.CheckTrace(path, src, ro)
		if err != nil {
			return err
		}
		if warn != nil {
			fmt.Fprintf(stderr, "blkq: %v (a replay would replay the %d records before it)\n", warn, n)
		}
		fmt.Fprintf(stderr, "blkq: %s: %d records parsed\n", path, n)
		return nil
	}
	if *compare != "" {
		if err := replayCompare(path, src, base, ro, settings, stdout, stderr); err != nil {
			return err
		}
		return in.err(0)
	}
	var tw *trace.Writer
	if f.traceFile != "" {
		if tw, err = trace.Create(f.traceFile, trace.WriterOptions{}); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		base.Tracers = append(base.Tracers, tw)
		in.onExit(func() { tw.Close() }) // a second signal: end it at a record
	}
	res, err := engine.ReplayStream(path, src, base, ro)
	// A trace that could not be written (ENOSPC) fails the command, but
	// after the report: the run itself ran and its figures are true.
	var traceErr error
	if tw != nil {
		if cerr := tw.Close(); cerr != nil {
			traceErr = fmt.Errorf("--trace %s: %w", f.traceFile, cerr)
		}
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "blkq: %s\n", w)
	}
	if *kernelMerges {
		line, err := compareKernelMerges(path, *format, res.Merged)
		if err != nil {
			return err
		}
		fmt.Fprintln(stderr, line)
	}
	if err := f.writeReport(stdout, res.Run); err != nil {
		return err
	}
	if traceErr != nil {
		in.err(0) // decided: a signal now is too late
		return traceErr
	}
	js := res.Run.Jobs[0]
	failed := 0
	if js.Error != 0 {
		failed = 1
	}
	if err := in.err(failed); err != nil {
		return err
	}
	if js.Error != 0 {
		return fmt.Errorf("the replay failed: %s", js.ErrorText)
	}
	return nil
}

// traceSource opens the trace file at path (package iotrace: the format
// detected from the first 64 KiB unless given) and returns the source of
// its records for engine.ReplayStream, which reads them as it replays.
func traceSource(path, format string, unit time.Duration) (engine.ReplaySource, error) {
	open, err := iotrace.Open(path, iotrace.Format(format), unit)
	if err != nil {
		return nil, err
	}
	return func() (engine.ReplayReader, error) {
		f, err := open()
		if err != nil {
			return nil, err
		}
		return replayRecords{f}, nil
	}, nil
}

// replayRecords gives an iotrace.File's records to the engine.
type replayRecords struct{ *iotrace.File }

func (r replayRecords) Next() (engine.ReplayRecord, error) {
	x, err := r.File.Next()
	if err != nil {
		return engine.ReplayRecord{}, err
	}
	return engine.ReplayRecord{Time: x.Time, PID: x.PID, Process: x.Process, Op: x.Op, Flags: x.Flags, Sector: x.Sector, Sectors: x.Sectors, Line: x.Line}, nil
}

// replayCompare replays src under each of settings (from --compare) and
// prints one table.
func replayCompare(path string, src engine.ReplaySource, base engine.Options, ro engine.ReplayOptions, settings []compareSetting, stdout, stderr io.Writer) error {
	var rows [][]string
	nrecs := 0
	for i, set := range settings {
		opt := set.opt
		start := time.Now()
		res, err := engine.ReplayStream(path, src, opt, ro)
		if err != nil {
			return fmt.Errorf("%s: %w", set.name, err)
		}
		nrecs = len(res.Merged)
		if i == 0 {
			for _, w := range res.Warnings {
				fmt.Fprintf(stderr, "blkq: %s\n", w)
			}
		}
		rows = append(rows, report.NewCompareRow(set.name, res.Run.Jobs[0], res.Run.Disks, res.Elapsed).Cells())
		fmt.Fprintf(stderr, "blkq: %s replayed %d records in %s wall\n", set.name, nrecs, time.Since(start).Round(time.Millisecond))
		if res.Interrupted {
			// The table shows what ran: this setting's row is partial,
			// the settings after it did not run.
			rows[len(rows)-1][0] += " (interrupted)"
			break
		}
	}
	fmt.Fprintf(stdout, "%s: %d records on %s, timing %s\n\n", path, nrecs, deviceName(base.Device), ro.Timing)
	fmt.Fprint(stdout, (&experiment.Table{Columns: report.CompareColumns, Rows: rows}).Format())
	return nil
}

func deviceName(d string) string {
	if d == "" {
		return "sim:hdd"
	}
	return d
}

// compareKernelMerges reads the kernel's own merge decisions from a
// blkparse or ftrace trace and compares them, bio by bio, with blkq's.
func compareKernelMerges(path, format string, ours []byte) (string, error) {
	f, err := iotrace.FileFormat(path, iotrace.Format(format))
	if err != nil {
		return "", err
	}
	if f != iotrace.FormatBlkparse && f != iotrace.FormatFtrace {
		return "", fmt.Errorf("--kernel-merges: %s is a %s trace; only blkparse and ftrace traces carry the kernel's merges", path, f)
	}
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	theirs, err := iotrace.ReadKernelMerges(fh, path, f)
	if err != nil && len(theirs) == 0 {
		return "", err
	}
	a := iotrace.CompareMerges(theirs, ours)
	return fmt.Sprintf("blkq: merges vs the kernel's own: %d bios; the kernel merged %d, blkq merged %d; both merged %d, neither %d: agreement %.1f%%",
		a.Bios, a.Kernel, a.Replay, a.Both, a.Neither, a.Percent()), nil
}
