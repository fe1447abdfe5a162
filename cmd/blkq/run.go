package main

import (
	"bytes"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/trace"
	"github.com/blkq-dev/blkq/workload/fio"
)

//go:embed default.fio
var defaultJob []byte

// runFlags are blkq run's flags.
type runFlags struct {
	device, scheduler, alloc, format, output string
	traceFile                                string
	nrRequests, nomerges                     int
	seed                                     uint64
	sizeCap                                  string
	runtimeCap                               time.Duration
	parseOnly                                bool
	sets                                     multiFlag
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.device, "device", "", "device: sim:hdd, sim:ssd, null or file:PATH (default: null for jobs on fio's null engine, else sim:hdd)")
	fs.StringVar(&f.scheduler, "scheduler", "mq-deadline", "elevator: none, mq-deadline or linus (the 2.4 elevator)")
	fs.IntVar(&f.nrRequests, "nr-requests", 128, "request pool per direction (nr_requests)")
	fs.IntVar(&f.nomerges, "nomerges", 0, "0 all merges, 1 one-hit cache only, 2 none")
	fs.StringVar(&f.alloc, "alloc", "fair", "request allocation policy: fair, legacy, fair-nobatch, fair-wakeall")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of every random choice in a simulated run")
	fs.StringVar(&f.format, "output-format", "normal", "normal or json")
	fs.StringVar(&f.output, "output", "", "write the report to this file instead of stdout")
	fs.StringVar(&f.sizeCap, "size-cap", "", "cap every job's size, filesize and io_size (e.g. 64m)")
	fs.DurationVar(&f.runtimeCap, "runtime-cap", 0, "cap every job's runtime (e.g. 5s)")
	fs.BoolVar(&f.parseOnly, "parse-only", false, "parse and check the input (job files, or the trace), run nothing")
	fs.StringVar(&f.traceFile, "trace", "", "write a blktrace binary trace of the run to `FILE` (for blkparse -i NAME, call it NAME.blktrace.0)")
	fs.Var(&f.sets, "set", "set a queue tunable before the run, NAME=VALUE (repeatable; e.g. iosched/fifo_batch=8)")
}

// parseInterleaved parses flags that may come before or after arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	var f runFlags
	fs := flag.NewFlagSet("blkq run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: blkq run [flags] [JOBFILE...]\n\nRuns fio job files through the request layer; with no file, an embedded demo.\n\nflags:")
		fs.PrintDefaults()
	}
	f.register(fs)
	files, ok, err := parseFlags(fs, args)
	if !ok {
		return err
	}
	opt, err := f.options()
	if err != nil {
		return err
	}
	opt.RuntimeCap, opt.Progress = f.runtimeCap, stderr
	var jobFiles []*fio.JobFile
	if len(files) == 0 {
		jf, err := fio.Parse("default.fio (embedded)", defaultJob, os.Getenv)
		if err != nil {
			return err
		}
		jobFiles = append(jobFiles, jf)
	}
	for _, name := range files {
		jf, err := fio.ParseFile(name)
		if err != nil {
			return err
		}
		if err := fio.Validate(jf); err != nil {
			return err
		}
		jobFiles = append(jobFiles, jf)
	}
	for _, jf := range jobFiles {
		for _, ig := range jf.Ignored {
			fmt.Fprintf(stderr, "blkq: %s:%d: ignoring option %q (not modelled)\n", ig.File, ig.Line, ig.Option)
		}
		if err := engine.CheckEngines(jf); err != nil {
			return err
		}
	}
	if f.parseOnly {
		return nil
	}
	// From here on SIGINT and SIGTERM stop the run and print its report
	// (signal.go); the report goes through in.out, after fio's line.
	// Not before: while the job files are read (a FIFO may block in open
	// for ever) a signal has its default effect, as in fio, rather than
	// a "terminating" line and a wait for a second signal.
	in := notifyInterrupt(stdout)
	defer in.release()
	stdout = in.out
	opt.Stop = in.Stop()
	// Several job files make one run, as with fio: their jobs run
	// together (each file's groups numbered after the previous file's).
	jf := jobFiles[0]
	if len(jobFiles) > 1 {
		jf = fio.Merge(jobFiles...)
	}
	var tw *trace.Writer
	if f.traceFile != "" {
		if tw, err = trace.Create(f.traceFile, trace.WriterOptions{}); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		opt.Tracers = append(opt.Tracers, tw)
		in.onExit(func() { tw.Close() }) // a second signal: end it at a record
	}
	res, err := engine.Run(jf, opt)
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
	for _, l := range res.IOErrors {
		fmt.Fprintln(stderr, l)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "blkq: %s\n", w)
	}
	if res.Verified > 0 {
		fmt.Fprintf(stderr, "blkq: verified %d sectors written by the run: all hold what was written\n", res.Verified)
	}
	if err := f.writeReport(stdout, res.Run); err != nil {
		return err
	}
	if traceErr != nil {
		in.err(0) // decided: a signal now is too late
		return traceErr
	}
	// As fio does, a run in which a job failed exits non-zero.
	failed := 0
	for _, js := range res.Run.Jobs {
		if js.Error != 0 {
			failed++
		}
	}
	if err := in.err(failed); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs failed (see err= in the report)", failed, len(res.Run.Jobs))
	}
	return nil
}

// options checks the flags run and replay share, all before anything
// runs, and gives the engine's options for them. A bad value is a usage
// error naming its flag.
func (f *runFlags) options() (engine.Options, error) {
	opt := engine.Options{Device: f.device, Scheduler: f.scheduler, NrRequests: f.nrRequests, NoMerges: f.nomerges,
		Alloc: f.alloc, Seed: f.seed}
	switch d := f.device; {
	case d == "", d == "sim:hdd", d == "sim:ssd", d == "null":
	case strings.HasPrefix(d, "file:") && len(d) > len("file:"):
	default:
		return opt, usagef("--device=%.80q: want sim:hdd, sim:ssd, null or file:PATH", d)
	}
	if f.nrRequests < 1 || f.nrRequests > 2048 {
		return opt, usagef("--nr-requests=%d: want 1..2048 (values below 4 become 4, as in Linux)", f.nrRequests)
	}
	if f.nomerges < 0 || f.nomerges > 2 {
		return opt, usagef("--nomerges=%d: want 0, 1 or 2", f.nomerges)
	}
	if f.format != "normal" && f.format != "json" {
		return opt, usagef("--output-format=%.40s: want normal or json", f.format)
	}
	if f.runtimeCap < 0 {
		return opt, usagef("--runtime-cap=%v: want a positive duration such as 5s", f.runtimeCap)
	}
	if f.sizeCap != "" {
		if len(f.sizeCap) > 64 { // no size is this long; and errors quote it
			return opt, usagef("--size-cap: a value of %d characters; want a size such as 64m", len(f.sizeCap))
		}
		n, err := fio.ParseSize(f.sizeCap)
		switch {
		case err != nil:
			return opt, usagef("--size-cap: %v; want a size such as 64m", err)
		case n < 512:
			// Every block is whole 512-byte sectors: a smaller cap holds none.
			return opt, usagef("--size-cap: %s is less than a 512-byte sector; want a size such as 64m", f.sizeCap)
		}
		opt.SizeCap = n
	}
	for _, s := range f.sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return opt, usagef("--set %.80q: want NAME=VALUE", s)
		}
		opt.Attrs = append(opt.Attrs, [2]string{k, v})
	}
	// --scheduler, --alloc and --set: fail now, not after reading the input.
	if err := checkQueueOptions(opt); err != nil {
		return opt, usagef("%s", strings.TrimPrefix(err.Error(), "blkq: "))
	}
	return opt, nil
}

// writeReport writes r in --output-format to --output or stdout. It is
// called only once a run succeeded, so a failed run never truncates an
// earlier report.
func (f *runFlags) writeReport(stdout io.Writer, r *report.Run) error {
	if r.Version == "" {
		// Where fio prints its version: the one blkq version prints.
		info, _ := debug.ReadBuildInfo()
		r.Version = "blkq-" + moduleVersion(info) + " (fio-3.33 compatible)"
	}
	var out bytes.Buffer
	var err error
	if f.format == "json" {
		err = report.WriteJSON(&out, r)
	} else {
		err = report.WriteNormal(&out, r)
	}
	if err != nil {
		return err
	}
	if f.output != "" {
		return os.WriteFile(f.output, out.Bytes(), 0o644)
	}
	_, err = stdout.Write(out.Bytes())
	return err
}
