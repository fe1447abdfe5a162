package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/experiment"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/trace"
	"github.com/blkq-dev/blkq/workload/fio"
	wtrace "github.com/blkq-dev/blkq/workload/trace"
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
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(rest) != 1 {
		fs.Usage()
		return fmt.Errorf("want one trace file")
	}
	path := rest[0]
	switch {
	case !(*speed > 0) || *speed > 1e9:
		return fmt.Errorf("--speed=%v: want a number above 0 (2 = twice as fast), at most 1e9", *speed)
	case *iodepth < 1:
		return fmt.Errorf("--iodepth=%d: want at least 1", *iodepth)
	case f.nrRequests < 1 || f.nrRequests > 2048:
		return fmt.Errorf("--nr-requests=%d: want 1..2048 (values below 4 become 4, as in Linux)", f.nrRequests)
	case *compare != "" && (f.format != "normal" || f.output != "" || f.traceFile != ""):
		return fmt.Errorf("--compare prints one text table: it does not combine with --output-format, --output or --trace")
	}
	// From here on SIGINT and SIGTERM stop the replay and print its
	// report (signal.go); the report goes through in.out, after fio's line.
	in := notifyInterrupt(stdout)
	defer in.release()
	stdout = in.out
	recs, warn, err := loadTrace(path, *format, *timeUnit)
	if warn != nil {
		fmt.Fprintf(stderr, "blkq: %v (replaying the %d records before it)\n", warn, len(recs))
	}
	if err != nil {
		return err
	}
	ro := engine.ReplayOptions{Timing: *timing, Speed: *speed, IODepth: *iodepth, Strict: *strict}
	base := engine.Options{Device: f.device, Scheduler: f.scheduler, NrRequests: f.nrRequests, NoMerges: f.nomerges, Alloc: f.alloc, Seed: f.seed, Stop: in.Stop()}
	if f.sizeCap != "" {
		if base.SizeCap, err = fio.ParseSize(f.sizeCap); err != nil || base.SizeCap <= 0 {
			return fmt.Errorf("--size-cap=%s: want a size such as 64m", f.sizeCap)
		}
	}
	for _, s := range f.sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("--set %q: want NAME=VALUE", s)
		}
		base.Attrs = append(base.Attrs, [2]string{k, v})
	}
	if *compare != "" {
		if err := replayCompare(path, recs, base, ro, *compare, stdout, stderr); err != nil {
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
	res, err := engine.Replay(path, recs, base, ro)
	if tw != nil {
		if cerr := tw.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("--trace %s: %w", f.traceFile, cerr)
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

// loadTrace reads every record of a trace file. A malformed or truncated
// record ends the reading: the records before it are returned with warn.
func loadTrace(path, format string, unit time.Duration) (recs []engine.ReplayRecord, warn, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if format == "blktrace" || (format == "" && isBlktrace(data)) {
		return blktraceRecords(path)
	}
	f := wtrace.Format(format)
	if f == "" {
		if f, err = wtrace.Detect(data); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var r wtrace.Reader
	if f == wtrace.FormatDiskSim && unit > 0 {
		r = wtrace.NewDiskSimReader(bytes.NewReader(data), path, unit)
	} else if r, err = wtrace.NewReader(bytes.NewReader(data), path, f); err != nil {
		return nil, nil, err
	}
	all, rerr := wtrace.ReadAll(r)
	for _, x := range all {
		recs = append(recs, engine.ReplayRecord{Time: x.Time, PID: x.PID, Process: x.Process, Op: x.Op, Flags: x.Flags, Sector: x.Sector, Sectors: x.Sectors, Line: x.Line})
	}
	if rerr != nil && len(recs) == 0 {
		return nil, nil, rerr
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: no I/O records", path)
	}
	return recs, rerr, nil
}

// replayCompare replays recs under each setting of spec ("sched=a,b" or
// "nomerges=0,2", "alloc=...", "nr_requests=...") and prints one table.
func replayCompare(path string, recs []engine.ReplayRecord, base engine.Options, ro engine.ReplayOptions, spec string, stdout, stderr io.Writer) error {
	key, vals, ok := strings.Cut(spec, "=")
	if !ok || vals == "" {
		return fmt.Errorf("--compare=%s: want NAME=V1,V2,... (sched, nomerges, alloc, nr_requests, or any tunable)", spec)
	}
	cols := []string{"setting", "IOPS", "MB/s", "avg lat ms", "p99 lat ms", "max lat ms", "merges", "requests", "avg req KiB", "util %"}
	var rows [][]string
	for _, v := range strings.Split(vals, ",") {
		if v == "" {
			return fmt.Errorf("--compare %s: an empty value", spec)
		}
		opt := base
		switch key {
		case "sched", "scheduler":
			opt.Scheduler = v
		case "alloc":
			opt.Alloc = v
		case "nomerges":
			if v != "0" && v != "1" && v != "2" {
				return fmt.Errorf("--compare nomerges=%s: want 0, 1 or 2", v)
			}
			opt.NoMerges = int(v[0] - '0')
		default:
			opt.Attrs = append(append([][2]string(nil), base.Attrs...), [2]string{key, v})
		}
		start := time.Now()
		res, err := engine.Replay(path, recs, opt, ro)
		if err != nil {
			return fmt.Errorf("%s=%s: %w", key, v, err)
		}
		js := res.Run.Jobs[0]
		lat := report.NewLatency()
		lat.Merge(js.Read.Lat)
		lat.Merge(js.Write.Lat)
		lat.Merge(js.Trim.Lat)
		secs := max(float64(res.Elapsed)/1e9, 1e-9)
		ios := js.Read.IOs + js.Write.IOs + js.Trim.IOs
		bytes := float64(js.Read.Bytes + js.Write.Bytes + js.Trim.Bytes)
		util := 0.0
		if len(res.Run.Disks) > 0 {
			util = res.Run.Disks[0].Util
		}
		rows = append(rows, []string{fmt.Sprintf("%s=%s", key, v), fmt.Sprintf("%.1f", float64(ios)/secs), fmt.Sprintf("%.2f", bytes/secs/1e6),
			fmt.Sprintf("%.2f", lat.Mean()/1e6), fmt.Sprintf("%.2f", float64(lat.Percentile(99))/1e6), fmt.Sprintf("%.2f", float64(lat.Max())/1e6),
			fmt.Sprint(js.Blkq.BackMerges + js.Blkq.FrontMerges), fmt.Sprint(js.Blkq.RequestsIssued), fmt.Sprintf("%.1f", js.Blkq.AvgRequestBytes()/1024), fmt.Sprintf("%.1f", util)})
		fmt.Fprintf(stderr, "blkq: %s=%s replayed %d records in %s wall\n", key, v, len(recs), time.Since(start).Round(time.Millisecond))
		if res.Interrupted {
			// The table shows what ran: this setting's row is partial,
			// the settings after it did not run.
			rows[len(rows)-1][0] += " (interrupted)"
			break
		}
	}
	fmt.Fprintf(stdout, "%s: %d records on %s, timing %s\n\n", path, len(recs), deviceName(base.Device), ro.Timing)
	fmt.Fprint(stdout, (&experiment.Table{Columns: cols, Rows: rows}).Format())
	return nil
}

func deviceName(d string) string {
	if d == "" {
		return "sim:hdd"
	}
	return d
}

// isBlktrace reports whether data starts with a blktrace record (the magic
// 0x65617400|version in either byte order).
func isBlktrace(data []byte) bool {
	return len(data) >= 4 && (string(data[1:4]) == "tae" || string(data[0:3]) == "eat")
}

// blktraceRecords turns the Q events of a blktrace binary file into
// records: time, sector, size, direction, sync/meta/read-ahead/FUA flags,
// pid and process name. A truncated final record is reported as warn.
func blktraceRecords(path string) (recs []engine.ReplayRecord, warn, err error) {
	all, rerr := trace.ReadFile(path)
	names := trace.Names(all)
	var t0 uint64
	for i := range all {
		r := &all[i]
		if r.IsNotify() || r.What() != trace.TAQueue {
			continue
		}
		if len(recs) == 0 {
			t0 = r.Time
		}
		c := r.Categories()
		op := blkq.OpRead
		var fl blkq.Flags
		switch {
		case c&trace.TCDiscard != 0:
			op = blkq.OpDiscard
		case c&trace.TCFlush != 0 && r.Bytes == 0:
			op = blkq.OpFlush
		case c&trace.TCWrite != 0:
			op = blkq.OpWrite
			if c&trace.TCFlush != 0 {
				fl |= blkq.FlagPreflush
			}
		}
		for _, m := range []struct {
			c uint16
			f blkq.Flags
		}{{trace.TCSync, blkq.FlagSync}, {trace.TCMeta, blkq.FlagMeta}, {trace.TCAhead, blkq.FlagReadAhead}, {trace.TCFUA, blkq.FlagFUA}} {
			if c&m.c != 0 {
				fl |= m.f
			}
		}
		if r.Sectors() == 0 && op != blkq.OpFlush {
			return recs, nil, fmt.Errorf("%s: record %d: a %v of %d bytes (less than a sector)", path, i+1, op, r.Bytes)
		}
		if r.Sector+uint64(r.Sectors()) < r.Sector || r.Time < t0 && t0-r.Time > 1<<62 {
			return recs, nil, fmt.Errorf("%s: record %d: sector %d or time %d ns out of range", path, i+1, r.Sector, r.Time)
		}
		recs = append(recs, engine.ReplayRecord{Time: time.Duration(r.Time - t0), PID: int(r.PID), Process: names[r.PID],
			Op: op, Flags: fl, Sector: r.Sector, Sectors: r.Sectors(), Line: i + 1})
	}
	if len(recs) == 0 {
		if rerr != nil {
			return nil, nil, rerr
		}
		return nil, nil, fmt.Errorf("%s: no Q events in the trace", path)
	}
	return recs, rerr, nil
}

// compareKernelMerges reads the kernel's own merge decisions from a
// blkparse or ftrace trace and compares them, bio by bio, with blkq's.
func compareKernelMerges(path, format string, ours []byte) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	f := wtrace.Format(format)
	if f == "" {
		if f, err = wtrace.Detect(data); err != nil {
			return "", err
		}
	}
	if f != wtrace.FormatBlkparse && f != wtrace.FormatFtrace {
		return "", fmt.Errorf("--kernel-merges: %s is a %s trace; only blkparse and ftrace traces carry the kernel's merges", path, f)
	}
	theirs, err := wtrace.ReadKernelMerges(bytes.NewReader(data), path, f)
	if err != nil && len(theirs) == 0 {
		return "", err
	}
	n := min(len(theirs), len(ours))
	var kernel, blkq, both, neither int
	for i := range n {
		k, b := theirs[i].Merged(), ours[i] != 0
		switch {
		case k && b:
			both++
		case !k && !b:
			neither++
		}
		if k {
			kernel++
		}
		if b {
			blkq++
		}
	}
	return fmt.Sprintf("blkq: merges vs the kernel's own: %d bios; the kernel merged %d, blkq merged %d; both merged %d, neither %d: agreement %.1f%%",
		n, kernel, blkq, both, neither, 100*float64(both+neither)/float64(max(n, 1))), nil
}
