package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
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

// traceSource opens the trace file at path and returns the source of its
// records for engine.ReplayStream, which reads them as it replays. The
// format is detected from the first 64 KiB, so a large file of garbage
// fails at once without being read.
func traceSource(path, format string, unit time.Duration) (engine.ReplaySource, error) {
	if err := checkRereadable(path); err != nil {
		return nil, err
	}
	head, err := readHead(path, 64<<10)
	if err != nil {
		return nil, err
	}
	if format == "blktrace" || (format == "" && isBlktrace(head)) {
		return blktraceSource(path)
	}
	f := iotrace.Format(format)
	if f == "" {
		if f, err = iotrace.Detect(head); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if _, err := iotrace.NewReader(bytes.NewReader(nil), path, f); err != nil {
		return nil, err
	}
	return func() (engine.ReplayReader, error) {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		var r iotrace.Reader
		if f == iotrace.FormatDiskSim && unit > 0 {
			r = iotrace.NewDiskSimReader(fh, path, unit)
		} else if r, err = iotrace.NewReader(fh, path, f); err != nil {
			fh.Close()
			return nil, err
		}
		return &textRecords{r: r, f: fh}, nil
	}, nil
}

// checkRereadable refuses a trace that cannot be read twice: a replay
// opens its trace several times (detection, sizing the device, checking
// the records, replaying), and a pipe, FIFO or socket gives each open
// only what the previous ones left, so the replay would parse the middle
// of the stream, call it malformed, or wait for ever for a writer. A
// process substitution, <(zcat trace.gz), is such a pipe.
func checkRereadable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		return fmt.Errorf("%s: a pipe, FIFO or socket: replay reads its trace more than once; save it to a file first", path)
	}
	return nil
}

// readHead returns up to n bytes from the start of the file at path.
func readHead(path string, n int) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	head := make([]byte, n)
	got, err := io.ReadFull(fh, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return head[:got], nil
}

// textRecords is the engine.ReplayReader of a text trace.
type textRecords struct {
	r iotrace.Reader
	f *os.File
}

func (t *textRecords) Next() (engine.ReplayRecord, error) {
	x, err := t.r.Next()
	if err != nil {
		return engine.ReplayRecord{}, err
	}
	return engine.ReplayRecord{Time: x.Time, PID: x.PID, Process: x.Process, Op: x.Op, Flags: x.Flags, Sector: x.Sector, Sectors: x.Sectors, Line: x.Line}, nil
}

func (t *textRecords) Close() error { return t.f.Close() }

// replayCompare replays src under each of settings (from --compare) and
// prints one table.
func replayCompare(path string, src engine.ReplaySource, base engine.Options, ro engine.ReplayOptions, settings []compareSetting, stdout, stderr io.Writer) error {
	cols := []string{"setting", "IOPS", "MB/s", "avg lat ms", "p99 lat ms", "max lat ms", "merges", "requests", "avg req KiB", "util %"}
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
		rows = append(rows, []string{set.name, fmt.Sprintf("%.1f", float64(ios)/secs), fmt.Sprintf("%.2f", bytes/secs/1e6),
			fmt.Sprintf("%.2f", lat.Mean()/1e6), fmt.Sprintf("%.2f", float64(lat.Percentile(99))/1e6), fmt.Sprintf("%.2f", float64(lat.Max())/1e6),
			fmt.Sprint(js.Blkq.BackMerges + js.Blkq.FrontMerges), fmt.Sprint(js.Blkq.RequestsIssued), fmt.Sprintf("%.1f", js.Blkq.AvgRequestBytes()/1024), fmt.Sprintf("%.1f", util)})
		fmt.Fprintf(stderr, "blkq: %s replayed %d records in %s wall\n", set.name, nrecs, time.Since(start).Round(time.Millisecond))
		if res.Interrupted {
			// The table shows what ran: this setting's row is partial,
			// the settings after it did not run.
			rows[len(rows)-1][0] += " (interrupted)"
			break
		}
	}
	fmt.Fprintf(stdout, "%s: %d records on %s, timing %s\n\n", path, nrecs, deviceName(base.Device), ro.Timing)
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

// blktraceSource is the source of the Q events of a blktrace binary file
// as records: time, sector, size, direction, sync/meta/read-ahead/FUA
// flags, pid and process name. The process names come from a first pass
// over the file's notes (a pid's first note wins, as in blkparse).
func blktraceSource(path string) (engine.ReplaySource, error) {
	names := map[uint32]string{}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rd := trace.NewReader(fh)
	for {
		r, err := rd.Next()
		if err != nil {
			break // the replay's reading reports it
		}
		if r.Action&^trace.TACgroup == trace.ActionProcess {
			if _, ok := names[r.PID]; !ok {
				names[r.PID] = r.Name()
			}
		}
	}
	fh.Close()
	return func() (engine.ReplayReader, error) {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &blktraceRecords{path: path, rd: trace.NewReader(fh), f: fh, names: names}, nil
	}, nil
}

// blktraceRecords is the engine.ReplayReader of a blktrace binary file.
// Each record's Line is its index in the file, counted from 1.
type blktraceRecords struct {
	path  string
	rd    *trace.Reader
	f     *os.File
	names map[uint32]string
	i     int    // records read, notes included
	n     int    // Q events returned
	t0    uint64 // the first Q event's time
}

func (b *blktraceRecords) Next() (engine.ReplayRecord, error) {
	for {
		r, err := b.rd.Next()
		if err == io.EOF {
			if b.n == 0 {
				return engine.ReplayRecord{}, fmt.Errorf("%s: no Q events in the trace", b.path)
			}
			return engine.ReplayRecord{}, io.EOF
		}
		if err != nil {
			return engine.ReplayRecord{}, fmt.Errorf("%s: %w", b.path, err)
		}
		b.i++
		if r.IsNotify() || r.What() != trace.TAQueue {
			continue
		}
		if b.n == 0 {
			b.t0 = r.Time
		}
		b.n++
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
			return engine.ReplayRecord{}, fmt.Errorf("%s: record %d: a %v of %d bytes (less than a sector)", b.path, b.i, op, r.Bytes)
		}
		if r.Sector+uint64(r.Sectors()) < r.Sector {
			return engine.ReplayRecord{}, fmt.Errorf("%s: record %d: sector %d + %d sectors overflows", b.path, b.i, r.Sector, r.Sectors())
		}
		// Times are unsigned ns; the replay's are signed, relative to the
		// first Q event, and may go back (per-CPU streams interleave).
		var rel time.Duration
		if r.Time >= b.t0 {
			if r.Time-b.t0 > math.MaxInt64 {
				return engine.ReplayRecord{}, fmt.Errorf("%s: record %d: time %d ns is more than 2^63-1 ns after the first Q event's (%d ns)", b.path, b.i, r.Time, b.t0)
			}
			rel = time.Duration(r.Time - b.t0)
		} else {
			if b.t0-r.Time > math.MaxInt64 {
				return engine.ReplayRecord{}, fmt.Errorf("%s: record %d: time %d ns is more than 2^63-1 ns before the first Q event's (%d ns)", b.path, b.i, r.Time, b.t0)
			}
			rel = -time.Duration(b.t0 - r.Time)
		}
		return engine.ReplayRecord{Time: rel, PID: int(r.PID), Process: b.names[r.PID],
			Op: op, Flags: fl, Sector: r.Sector, Sectors: r.Sectors(), Line: b.i}, nil
	}
}

func (b *blktraceRecords) Close() error { return b.f.Close() }

// compareKernelMerges reads the kernel's own merge decisions from a
// blkparse or ftrace trace and compares them, bio by bio, with blkq's.
func compareKernelMerges(path, format string, ours []byte) (string, error) {
	head, err := readHead(path, 64<<10)
	if err != nil {
		return "", err
	}
	f := iotrace.Format(format)
	if f == "" {
		if f, err = iotrace.Detect(head); err != nil {
			return "", err
		}
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
