package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/experiment"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/sim/traced"
	"github.com/blkq-dev/blkq/workload/iotrace"
	"github.com/spf13/cobra"
)

// replayCommand is "blkq replay [flags] TRACE": a recorded block trace
// through the request layer onto a device, reported as blkq run reports.
func replayCommand(f *cliFlags, stdout, stderr io.Writer) *cobra.Command {
	return f.withFlags(&cobra.Command{
		Use:  "replay [flags] TRACE",
		Long: "Replays a block trace through the request layer.",
		Args: exactArgs(1, "one trace file"),
		RunE: func(_ *cobra.Command, args []string) error { return f.replay(args[0], stdout, stderr) },
	}, replayFlags)
}

// replay replays the trace at path, or compares its replays under
// --compare's settings, and prints the report or the table.
func (f *cliFlags) replay(path string, stdout, stderr io.Writer) error {
	base, err := f.options()
	if err != nil {
		return err
	}
	base.RuntimeCap = f.runtimeCap
	switch {
	case base.SizeCap > 0 && !strings.HasPrefix(base.Device, "file:"):
		return usagef("--size-cap: in a replay it sizes a file: device; %s keeps its size", deviceName(base.Device))
	case !(f.speed >= 1e-6) || f.speed > 1e9:
		// Below a millionth, a second of trace lasts over eleven days.
		return usagef("--speed=%v: want a number from 1e-6 to 1e9 (2 = twice as fast, 0.5 = half as fast)", f.speed)
	case f.iodepth < 1:
		return usagef("--iodepth=%d: want at least 1", f.iodepth)
	case f.traceFormat != "" && iotrace.Format(f.traceFormat) != iotrace.FormatBlktrace && !slices.Contains(iotrace.Formats, iotrace.Format(f.traceFormat)):
		return usagef("--format=%.40s: want %s or %v (or none: detected from the content)", f.traceFormat, iotrace.FormatBlktrace, iotrace.Formats)
	case f.timing != "trace" && f.timing != "afap":
		return usagef("--timing=%.40s: want trace or afap", f.timing)
	case f.given("iodepth") && f.timing != "afap":
		return usagef("--iodepth: records in flight are --timing=afap's; --timing=%.40s submits each record at its time", f.timing)
	case f.given("speed") && f.timing != "trace":
		return usagef("--speed: scales the recorded times of --timing=trace; --timing=%.40s has none", f.timing)
	case f.timeUnit < 0 || f.timeUnit > 0 && !powerOfTen(int64(f.timeUnit)):
		return usagef("--time-unit=%v: want a power of ten of nanoseconds, such as 1ns, 100ns, 1us, 1ms or 1s", f.timeUnit)
	case f.compare != "" && (f.format != "normal" || f.output != "" || f.traceFile != "" || f.kernelMerges):
		return usagef("--compare prints one text table: it does not combine with --output-format, --output, --trace or --kernel-merges")
	}
	var settings []compareSetting
	if f.compare != "" {
		// Every value is checked before the first replay starts.
		if settings, err = compareSettings(f.compare, base); err != nil {
			return err
		}
	}
	// From here on SIGINT and SIGTERM stop the replay and print its
	// report (signal.go); the report goes through in.out, after fio's line.
	in := notifyInterrupt(stdout)
	defer in.release()
	stdout = in.out
	base.Stop = in.Stop()
	if f.timeUnit > 0 {
		if tf, err := iotrace.FileFormat(path, iotrace.Format(f.traceFormat)); err == nil && tf != iotrace.FormatDiskSim {
			return usagef("--time-unit: %s is a %s trace; only DiskSim traces take a time unit", path, tf)
		}
	}
	src, err := traceSource(path, f.traceFormat, f.timeUnit)
	if err != nil {
		return err
	}
	if f.kernelMerges {
		// A comparison with the kernel's own decisions is fair only
		// under the kernel's conditions: its device's speed and its
		// allocation, unless the flags say otherwise (kernelDefaults).
		f.kernelDefaults(&base, path, stderr)
	}
	if base.Device == "sim:trace" && base.ServiceTimes == nil {
		if base.ServiceTimes, err = recordedTimes(path, f.traceFormat); err != nil {
			return err
		}
	}
	ro := engine.ReplayOptions{Timing: f.timing, Speed: f.speed, IODepth: f.iodepth, Strict: f.strict}
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
	if f.compare != "" {
		if err := replayCompare(path, src, base, ro, settings, stdout, stderr); err != nil {
			return err
		}
		return in.err(0)
	}
	closeTrace, err := f.openTrace(&base, in)
	if err != nil {
		return err
	}
	var ours []iotrace.EventKey
	if f.kernelMerges {
		// What blkq did, event for event, beside the kernel's.
		base.Tracers = append(base.Tracers, blkq.TracerFunc(func(e *blkq.Event) {
			if strings.IndexByte(iotrace.ComparedActions, byte(e.Action)) >= 0 {
				ours = append(ours, iotrace.EventKey{Action: byte(e.Action), Op: e.Op, Sector: e.Sector, Sectors: e.Sectors})
			}
		}))
	}
	res, err := engine.ReplayStream(path, src, base, ro)
	// A trace that could not be written (ENOSPC) fails the command, but
	// after the report: the run itself ran and its figures are true.
	traceErr := closeTrace()
	if errors.Is(err, engine.ErrInterrupted) {
		return in.err(0) // stopped while the trace was read through: nothing replayed
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "blkq: %s\n", w)
	}
	if f.kernelMerges {
		lines, err := compareKernelMerges(path, f.traceFormat, res, ours)
		if err != nil {
			return err
		}
		fmt.Fprint(stderr, lines)
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
	return engine.ReplayRecord{Time: x.Time, PID: x.PID, Process: x.Process, Op: x.Op, Flags: x.Flags, Sector: x.Sector, Sectors: x.Sectors, Line: x.Line,
		PlugFirst: x.Plug&iotrace.PlugFirst != 0, PlugLast: x.Plug&iotrace.PlugLast != 0, PlugSlept: x.Plug&iotrace.PlugSlept != 0, Splits: x.Splits}, nil
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
		if errors.Is(err, engine.ErrInterrupted) {
			break // the table shows the settings that ran
		}
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
		fmt.Fprintf(stderr, "blkq: %s replayed %d of %d records in %s wall\n", set.name, res.Replayed, nrecs, time.Since(start).Round(time.Millisecond))
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

// compareKernelMerges reads the kernel's own merge decisions and
// dispatches from a blkparse or ftrace trace and compares them with the
// replay's (ours: its M, F, X and D events): merges bio by bio (and by
// kind, back or front); the M, F, X and D events, event for event
// (iotrace.CompareEvents); then the requests dispatched, their mean size
// and their sizes' histogram. It returns three lines.
func compareKernelMerges(path, format string, res *engine.Result, ours []iotrace.EventKey) (string, error) {
	evs, err := iotrace.ReadEventsFile(path, iotrace.Format(format))
	theirs := iotrace.KernelMerges(evs)
	if err != nil && len(theirs) == 0 {
		return "", fmt.Errorf("--kernel-merges: %w", err)
	}
	a := iotrace.CompareMerges(theirs, res.Merged)
	kernel := iotrace.KernelEventKeys(evs)
	per, all := iotrace.CompareEvents(kernel, ours)
	var b strings.Builder
	fmt.Fprintf(&b, "blkq: merges vs the kernel's own: %d bios; the kernel merged %d, blkq merged %d; both merged %d, neither %d: agreement %.1f%%; "+
		"back merges: kernel %d, blkq %d, both %d; front merges: kernel %d, blkq %d, both %d\n",
		a.Bios, a.Kernel, a.Replay, a.Both, a.Neither, a.Percent(),
		a.KernelBack, a.ReplayBack, a.BothBack, a.KernelFront, a.ReplayFront, a.BothFront)
	b.WriteString("blkq: events vs the kernel's own (kernel/blkq/both, agreement):")
	for _, e := range per {
		fmt.Fprintf(&b, " %c %d/%d/%d %.1f%%,", e.Action, e.Kernel, e.Replay, e.Both, e.Percent())
	}
	fmt.Fprintf(&b, " all %d/%d/%d %.1f%%\n", all.Kernel, all.Replay, all.Both, all.Percent())
	kd, bd := dispatched(kernel), dispatched(ours)
	same := "the same"
	if !iotrace.DispatchSizes(kernel).Equal(iotrace.DispatchSizes(ours)) {
		same = "they differ"
	}
	fmt.Fprintf(&b, "blkq: requests vs the kernel's own: the kernel dispatched %d (mean %.1f KiB), blkq %d (mean %.1f KiB); sizes: kernel %s; blkq %s: %s\n",
		kd.Requests, kd.MeanKiB(), bd.Requests, bd.MeanKiB(), iotrace.DispatchSizes(kernel), iotrace.DispatchSizes(ours), same)
	return b.String(), nil
}

// kernelDefaults sets what --kernel-merges compares under when the
// command line does not say: the device sim:trace, each request served
// in the time the kernel's device took for it (a bio merges with a
// request only while that request waits, so on sim:hdd, whose requests
// take milliseconds where the trace's loop device took microseconds,
// blkq merged bios the kernel could not), and --alloc blk-mq, Linux 6.x's
// one pool of scheduler tags (the traces are of blk-mq kernels; blkq's
// own default, fair, is 2.4's per-direction pools). A trace with no
// request both dispatched and completed has no times to take: the
// replay then stays on blkq's default device, and says so on stderr.
func (f *cliFlags) kernelDefaults(base *engine.Options, path string, stderr io.Writer) {
	if !f.given("alloc") {
		base.Alloc = "blk-mq"
	}
	if f.given("device") {
		return
	}
	if tf, err := iotrace.FileFormat(path, iotrace.Format(f.traceFormat)); err != nil || !kernelFormat(tf) {
		return // no kernel's events to compare with: the comparison says so
	}
	t, err := recordedTimes(path, f.traceFormat)
	if err != nil {
		fmt.Fprintf(stderr, "blkq: --kernel-merges: %s records no request both dispatched (D) and completed (C) to serve requests in: replaying on %s, not sim:trace\n", path, deviceName(base.Device))
		return
	}
	base.Device, base.ServiceTimes = "sim:trace", t
}

// dispatched sums the D events among keys.
func dispatched(keys []iotrace.EventKey) iotrace.Dispatched {
	var d iotrace.Dispatched
	for _, k := range keys {
		if k.Action == 'D' {
			d.Requests++
			d.Sectors += uint64(k.Sectors)
		}
	}
	return d
}

// kernelFormat reports whether traces of format f are the kernel's own
// event by event (D and C, M, F, X), as blktrace writes them.
func kernelFormat(f iotrace.Format) bool {
	return f == iotrace.FormatBlktrace || f == iotrace.FormatBlkparse || f == iotrace.FormatFtrace
}

// recordedTimes reads the service times of the trace at path for
// sim:trace: the kernel's requests, from each D to its C.
func recordedTimes(path, format string) (*traced.Times, error) {
	if f, err := iotrace.FileFormat(path, iotrace.Format(format)); err == nil && !kernelFormat(f) {
		return nil, usagef("--device=sim:trace: %s is a %s trace; sim:trace takes its times from the D and C events of a blktrace, blkparse or ftrace trace", path, f)
	}
	evs, err := iotrace.ReadEventsFile(path, iotrace.Format(format))
	if err != nil && len(evs) == 0 {
		return nil, usagef("--device=sim:trace: %v", err)
	}
	t := traced.NewTimes()
	for _, s := range iotrace.KernelServiceTimes(evs) {
		t.Add(s.Op, s.Sector, s.Sectors, s.D2C)
	}
	if t.Len() == 0 {
		return nil, usagef("--device=sim:trace: %s has no request both issued (D) and completed (C) to take service times from", path)
	}
	return t, nil
}
