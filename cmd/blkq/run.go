package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/sim/cpu"
	"github.com/blkq-dev/blkq/workload/fio"
	"github.com/spf13/cobra"
)

//go:embed default.fio
var defaultJob []byte

// runCommand is "blkq run [flags] [JOBFILE...]". It parses its flags
// itself: fio's job options are flags too (cmdline.go).
func runCommand(f *cliFlags, stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	return f.withFlags(&cobra.Command{
		Use:                "run [flags] [--name=JOB [JOB OPTIONS]]... [JOBFILE|-]...",
		Long:               "Runs fio job files through the request layer; with no file, an embedded demo.\nAs fio does, job options may be given on the command line: --name=JOB starts a job,\nthe options after it are its own (--rw=randread --bs=4k ...), those before the first\n--name are defaults for every job; - reads a job file from standard input.",
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			own, jobOpts, err := splitRunArgs(c, args)
			if err != nil {
				return err
			}
			files, help, err := parseRunFlags(c, own)
			if err != nil {
				return err
			}
			if help {
				writeHelp(stderr, c)
				return nil
			}
			return f.run(files, jobOpts, stdin, stdout, stderr)
		},
	}, runFlags)
}

// run runs the job files and the command line's jobs (the embedded demo
// without any) and prints the report.
func (f *cliFlags) run(files []string, jobOpts []fio.CmdOption, stdin io.Reader, stdout, stderr io.Writer) error {
	opt, err := f.options()
	if err != nil {
		return err
	}
	if opt.Device == "sim:trace" {
		return usagef("--device=sim:trace: only blkq replay has it (it serves each request in the time a blkparse or ftrace trace recorded)")
	}
	opt.RuntimeCap = f.runtimeCap
	if f.statusIntervalText != "" {
		d, err := fio.ParseTime(f.statusIntervalText)
		if err != nil || d < time.Millisecond {
			return usagef("--status-interval=%.40s: want a time of at least 1ms, such as 1 (seconds), 500ms or 1m", f.statusIntervalText)
		}
		f.statusInterval = d
	}
	opt.BandwidthLog = f.bwLog
	opt.VerifyStateDir = f.auxPath
	if f.auxPath == "" {
		return usagef("--aux-path=: want a directory (the default is the working directory, .)")
	}
	status, err := f.statusWriter(stdout)
	if err != nil {
		return err
	}
	jobFiles, err := f.parseJobs(files, jobOpts, stdin)
	if err != nil {
		return err
	}
	for _, jf := range jobFiles {
		for _, ig := range jf.Ignored {
			// Every option blkq ignores changes nothing it issues (the
			// others are modelled or refused): fio's rule, stderr stays
			// empty for what cannot matter, unless --warnings asks.
			if f.warnings || !ig.Inert() {
				fmt.Fprintf(stderr, "blkq: %s: ignoring option %q (no effect on blkq's devices)\n", ignoredPlace(ig), ig.Option)
			}
		}
		if err := engine.CheckEngines(jf); err != nil {
			return err
		}
	}
	if err := f.checkMaxJobs(jobFiles); err != nil {
		return err
	}
	if f.parseOnly {
		// Everything a run checks before it opens the device (block
		// sizes, regions, files per job), so that a job file that passes
		// here does not fail at once when run.
		jf := jobFiles[0]
		if len(jobFiles) > 1 {
			jf = fio.Merge(jobFiles...)
		}
		return engine.Check(jf, opt)
	}
	// From here on SIGINT and SIGTERM stop the run and print its report
	// (signal.go); the report goes through in.out, after fio's line.
	// Not before: while the job files are read (a FIFO may block in open
	// for ever) a signal has its default effect, as in fio, rather than
	// a "terminating" line and a wait for a second signal.
	in := notifyInterrupt(stdout)
	defer in.release()
	stdout = in.out
	if status {
		opt.Progress = stdout
	}
	opt.Stop = in.Stop()
	reps := &reports{f: f, stdout: stdout}
	if f.statusInterval > 0 {
		opt.StatusInterval, opt.OnStatus = f.statusInterval, reps.status
	}
	// Several job files make one run, as with fio: their jobs run
	// together (each file's groups numbered after the previous file's).
	jf := jobFiles[0]
	if len(jobFiles) > 1 {
		jf = fio.Merge(jobFiles...)
	}
	closeTrace, err := f.openTrace(&opt, in)
	if err != nil {
		return err
	}
	res, err := engine.Run(jf, opt)
	// A trace that could not be written (ENOSPC) fails the command, but
	// after the report: the run itself ran and its figures are true.
	traceErr := closeTrace()
	if errors.Is(err, engine.ErrInterrupted) {
		// Stopped while the run was set up: nothing ran, nothing to
		// report but fio's line, which is out; fio's status for it.
		return in.err(0)
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
	if f.warnings {
		for _, n := range res.Notes {
			fmt.Fprintf(stderr, "blkq: %s\n", n)
		}
	}
	if res.Verified > 0 && f.warnings {
		fmt.Fprintf(stderr, "blkq: verified %d sectors written by the run: all hold what was written\n", res.Verified)
	}
	if reps.err != nil {
		return fmt.Errorf("--status-interval: %w", reps.err)
	}
	if err := reps.write(res.Run, true); err != nil {
		return err
	}
	if traceErr != nil {
		in.err(0) // decided: a signal now is too late
		return traceErr
	}
	// As fio does, a run in which a job failed exits non-zero.
	failed := 0
	for _, js := range res.Run.Jobs {
		if js.Error != 0 && !js.ErrorContinued {
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
func (f *cliFlags) options() (engine.Options, error) {
	opt := engine.Options{Device: f.device, Scheduler: f.scheduler, NrRequests: f.nrRequests, NoMerges: f.nomerges,
		Alloc: f.alloc, Seed: f.seed}
	switch d := f.device; {
	case d == "", d == "sim:hdd", d == "sim:ssd", d == "sim:trace", d == "null":
	case strings.HasPrefix(d, "file:") && len(d) > len("file:"):
	default:
		return opt, usagef("--device=%.80q: want sim:hdd, sim:ssd, null or file:PATH (a replay also sim:trace)", d)
	}
	if f.nrRequests < 1 || f.nrRequests > 2048 {
		return opt, usagef("--nr-requests=%d: want 1..2048 (values below 4 become 4, as in Linux)", f.nrRequests)
	}
	if f.nomerges < 0 || f.nomerges > 2 {
		return opt, usagef("--nomerges=%d: want 0, 1 or 2", f.nomerges)
	}
	if err := f.checkReportFormats(); err != nil {
		return opt, err
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
	if f.cpus != 0 {
		if f.cpus < 0 || f.cpus > cpu.MaxCPUs {
			return opt, usagef("--cpus=%d: want 1 to %d (0, the default, models no CPUs)", f.cpus, cpu.MaxCPUs)
		}
		if d := f.device; d == "null" || strings.HasPrefix(d, "file:") {
			return opt, usagef("--cpus=%d: the CPU model runs on simulated devices (sim:hdd, sim:ssd) only; on %s the CPUs are the machine's own", f.cpus, d)
		}
		opt.CPU = engine.DefaultCPUOptions(f.cpus)
	}
	for _, s := range f.cpuSets {
		k, v, ok := strings.Cut(s, "=")
		switch {
		case f.cpus == 0:
			return opt, usagef("--cpu %.80q: needs --cpus N", s)
		case !ok || k == "":
			return opt, usagef("--cpu %.80q: want NAME=VALUE", s)
		}
		if err := opt.CPU.Set(k, v); err != nil {
			return opt, usagef("--cpu %.80s", err)
		}
	}
	// --scheduler, --alloc and --set: fail now, not after reading the input.
	if err := engine.CheckQueueOptions(opt); err != nil {
		return opt, usagef("%s", strings.TrimPrefix(err.Error(), "blkq: "))
	}
	return opt, nil
}
