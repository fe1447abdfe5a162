package main

// Every flag of every blkq command is defined here, once, on one FlagSet;
// a command takes the flags it uses from it by name (withFlags), so that a
// flag shared by run, replay and experiment has one name, one meaning, one
// default and one help line. The values land in a cliFlags, made afresh
// for each command line.

import (
	"fmt"
	"os"
	"time"

	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliFlags holds the value of every flag of every command.
type cliFlags struct {
	// The queue and the device (run, replay).
	device, scheduler, alloc string
	nrRequests, nomerges     int
	sets                     []string
	// The run (run, replay; seed run and experiment: a replay makes no
	// random choice).
	seed       uint64
	sizeCap    string
	runtimeCap time.Duration
	parseOnly  bool
	sections   []string
	readonly   bool
	eta        string
	maxJobs    int
	warnings   bool
	cpus       int      // run: the CPU model's CPUs (0: none)
	cpuSets    []string // run: its costs, NAME=VALUE
	bwLog      bool
	auxPath    string
	// --status-interval as given, and as a duration once checked.
	statusIntervalText string
	statusInterval     time.Duration
	// Output (run, replay; output-format and trace also experiment).
	format, output, traceFile string
	formats                   report.Format // --output-format, --minimal, checked
	minimal                   bool
	terseVersion              int
	// replay.
	traceFormat, timing, compare string
	speed                        float64
	iodepth                      int
	timeUnit                     time.Duration
	strict, kernelMerges         bool
	// experiment.
	scale     float64
	printJobs bool
	plotDir   string
	// latency.
	duration, interval time.Duration
	writers            int
	dir                string
	cpuHold            bool
	// trace print.
	noSummary bool
	// bench; dir is latency's too. The raw-* flags are the hidden raw
	// worker's, which bench runs as a child of its own.
	benchCases, benchSize, benchJSON, fioPath string
	benchRamp, benchRuntime                   time.Duration
	benchRounds                               int
	rawWorker, rawRandom, rawDirect           bool
	rawFile                                   string
	rawJobs                                   int

	// set is the FlagSet the flags are defined on.
	set *pflag.FlagSet
}

// given reports whether the flag name was given on the command line.
func (f *cliFlags) given(name string) bool {
	fl := f.set.Lookup(name)
	return fl != nil && fl.Changed
}

// The flags each command takes, by name.
var (
	queueFlags      = []string{"device", "scheduler", "nr-requests", "nomerges", "alloc", "set"}
	outputFlags     = []string{"output-format", "output", "trace", "minimal", "terse-version"}
	runFlags        = append(append([]string{"seed", "size-cap", "runtime-cap", "parse-only", "section", "readonly", "eta", "max-jobs", "warnings", "bandwidth-log", "status-interval", "aux-path", "cpus", "cpu"}, queueFlags...), outputFlags...)
	replayFlags     = append(append([]string{"size-cap", "runtime-cap", "parse-only", "format", "timing", "speed", "iodepth", "time-unit", "strict", "kernel-merges", "compare"}, queueFlags...), outputFlags...)
	experimentFlags = []string{"seed", "scale", "output-format", "print-jobs", "trace", "plot"}
	latencyFlags    = []string{"duration", "interval", "writers", "dir", "cpu-hold"}
	tracePrintFlags = []string{"no-summary"}
	benchFlags      = []string{"cases", "size", "ramp", "runtime", "rounds", "dir", "json", "fio",
		"raw-worker", "raw-file", "raw-jobs", "raw-random", "raw-direct"}
)

// newCLIFlags defines every flag, with its default and help, on the
// fields of a new cliFlags.
func newCLIFlags() *cliFlags {
	f := new(cliFlags)
	fs := pflag.NewFlagSet("blkq", pflag.ContinueOnError)
	f.set = fs
	fs.StringVar(&f.device, "device", "", "device: sim:hdd, sim:ssd, null or file:PATH (default: null for jobs on fio's null engine, else sim:hdd); blkq replay also sim:trace, each request served in the time the trace recorded")
	fs.StringVar(&f.scheduler, "scheduler", "mq-deadline", "elevator: none, mq-deadline (Linux 6.x), mq-deadline-noprio (blkq's before it, the experiments') or linus (the 2.4 elevator)")
	fs.IntVar(&f.nrRequests, "nr-requests", 128, "request pool per direction (nr_requests; the default is Linux's)")
	fs.IntVar(&f.nomerges, "nomerges", 0, "0 all merges, 1 one-hit cache only, 2 none")
	fs.StringVar(&f.alloc, "alloc", "fair", "request allocation policy: fair, legacy, fair-nobatch, fair-wakeall, blk-mq (Linux 6.x tags)")
	fs.StringArrayVar(&f.sets, "set", nil, "set a queue tunable before the run, `NAME=VALUE` (repeatable; e.g. iosched/fifo_batch=8)")

	fs.Uint64Var(&f.seed, "seed", 1, "seed of every random choice in a simulated run")
	fs.StringVar(&f.sizeCap, "size-cap", "", "cap every job's size, filesize and io_size (e.g. 64m); replay: the size of a file: device")
	fs.DurationVar(&f.runtimeCap, "runtime-cap", 0, "cap every job's runtime (e.g. 5s)")
	fs.BoolVar(&f.parseOnly, "parse-only", false, "parse and check the input (job files, or the trace), run nothing")
	fs.BoolVar(&f.warnings, "warnings", false, "also print, on stderr, the options ignored because they cannot mean anything on blkq's devices (CPU pinning, ...), notes on what blkq modelled as Linux does, and the data check of a file: device")
	fs.IntVar(&f.maxJobs, "max-jobs", fio.MaxJobs, "refuse job files that define more jobs than this (numjobs clones counted), as fio --max-jobs limits them")

	fs.IntVar(&f.cpus, "cpus", 0, "model `N` CPUs on a simulated device: tasks wait for one, and context switches, submissions and sections cost CPU time (docs/cpus.md; 0: no CPU model, blkq's default)")
	fs.StringArrayVar(&f.cpuSets, "cpu", nil, "with --cpus, set a cost of the CPU model, `NAME=VALUE` (repeatable): context_switch=5us submit=50us timeslice=100ms section=8ms section_every=1 lock_break=100us")
	fs.StringArrayVar(&f.sections, "section", nil, "run only the job section `NAME` (repeatable), as fio --section")
	fs.BoolVar(&f.readonly, "readonly", false, "refuse jobs that write or trim, as fio --readonly")
	fs.BoolVar(&f.bwLog, "bandwidth-log", false, "write fio's aggregate bandwidth logs agg-read_bw.log, agg-write_bw.log and agg-trim_bw.log (KiB/s of all jobs every 500 ms of the run's clock) in the working directory, as fio --bandwidth-log")
	fs.StringVar(&f.statusIntervalText, "status-interval", "", "also print the report of the run so far every `TIME` (fio's units: 1 is a second, 500ms) of the run's clock (virtual on sim: devices), each cumulative, in --output-format, as fio --status-interval")
	fs.StringVar(&f.auxPath, "aux-path", ".", "the `DIR` of verify state files: written by write jobs with verify= (verify_state_save, on by default as in fio), read by verify_state_load, as fio --aux-path")
	fs.StringVar(&f.eta, "eta", "auto", "fio's status line on stdout each second: auto (when stdout is a terminal), always or never, as fio --eta")

	fs.StringVar(&f.format, "output-format", "normal", "normal, terse, json or json+, or a comma list of them (printed in fio's order: terse, json, normal); experiment: normal or json")
	fs.BoolVar(&f.minimal, "minimal", false, "terse output (--output-format=terse), as fio --minimal")
	fs.IntVar(&f.terseVersion, "terse-version", report.TerseVersion, "terse output version: 2, 3 (fio's default), 4 or 5, as fio --terse-version")
	fs.StringVar(&f.output, "output", "", "write the report to this `FILE` instead of stdout")
	fs.StringVar(&f.traceFile, "trace", "", "write a blktrace binary trace of the run to `FILE` (for blkparse -i NAME, call it NAME.blktrace.0); experiment: one trace per configuration, FILE-CONFIG.blktrace.0")

	fs.StringVar(&f.traceFormat, "format", "", "trace format: blktrace, blkparse, ftrace, disksim, msr, spc, fio-iolog (default: detected from the content)")
	fs.StringVar(&f.timing, "timing", "trace", "trace: recorded arrival times (open loop); afap: as fast as possible (closed loop)")
	fs.Float64Var(&f.speed, "speed", 1, "with --timing=trace, replay this many times faster")
	fs.IntVar(&f.iodepth, "iodepth", 32, "with --timing=afap, records in flight")
	fs.DurationVar(&f.timeUnit, "time-unit", 0, "time unit of a DiskSim trace's arrival times (MQSim writes ns, the default; DiskSim's own traces use ms: --time-unit=1ms)")
	fs.BoolVar(&f.strict, "strict", false, "fail on an address beyond the device instead of wrapping it")
	fs.BoolVar(&f.kernelMerges, "kernel-merges", false, "for blkparse/ftrace traces: compare blkq's merges, splits and dispatches (M, F, X, D) with the kernel's own in the trace; unless given, --device is then sim:trace and --alloc blk-mq, the kernel's conditions")
	fs.StringVar(&f.compare, "compare", "", "run under several settings and print one table, e.g. sched=none,mq-deadline,linus or nomerges=0,2")

	fs.Float64Var(&f.scale, "scale", 1, "run length scale (1 = full size; e.g. 0.1 for a quick run)")
	fs.BoolVar(&f.printJobs, "print-jobs", false, "print the experiment's fio job file and exit")
	fs.StringVar(&f.plotDir, "plot", "", "also write PNG pictures of the run (sleeps, latency CDF, throughput) into `DIR`")

	fs.DurationVar(&f.duration, "duration", 10*time.Second, "how long to measure")
	fs.DurationVar(&f.interval, "interval", time.Millisecond, "probe period (1 ms: 1 kHz, as cyclictest -i 1000)")
	fs.IntVar(&f.writers, "writers", 16, "dbench-like writer goroutines (0: no load)")
	fs.StringVar(&f.dir, "dir", os.TempDir(), "where the scratch file goes")
	fs.BoolVar(&f.cpuHold, "cpu-hold", true, "also time lock holds on the holder thread's CPU clock (2 system calls per hold)")

	fs.BoolVar(&f.noSummary, "no-summary", false, "print the records only, without the closing summary (as blkparse -q)")

	fs.StringVar(&f.benchCases, "cases", "all", "bench: the cases to run, a comma list (all: every one; see blkq help bench)")
	fs.StringVar(&f.benchSize, "size", "32m", "bench: the test file's size (blkq's page cache holds 64 MiB)")
	fs.DurationVar(&f.benchRamp, "ramp", time.Second, "bench: each run's warm-up, not measured (fio's ramp_time)")
	fs.DurationVar(&f.benchRuntime, "runtime", 3*time.Second, "bench: each run's measured time (fio's runtime)")
	fs.IntVar(&f.benchRounds, "rounds", 3, "bench: runs of each contender per case, alternating; the figures are their medians")
	fs.StringVar(&f.benchJSON, "json", "", "bench: also write the results as JSON to `FILE`")
	fs.StringVar(&f.fioPath, "fio", "fio", "bench: the fio binary to compare with")
	fs.BoolVar(&f.rawWorker, "raw-worker", false, "bench: run the bare pread loop (bench's own child)")
	fs.StringVar(&f.rawFile, "raw-file", "", "bench: the raw worker's file")
	fs.IntVar(&f.rawJobs, "raw-jobs", 1, "bench: the raw worker's goroutines")
	fs.BoolVar(&f.rawRandom, "raw-random", true, "bench: the raw worker reads at random (else in order)")
	fs.BoolVar(&f.rawDirect, "raw-direct", false, "bench: the raw worker reads with O_DIRECT")
	for _, n := range []string{"raw-worker", "raw-file", "raw-jobs", "raw-random", "raw-direct"} {
		fs.MarkHidden(n)
	}
	return f
}

// withFlags gives c the flags named names and returns c. A name that
// newCLIFlags does not define is a programming error, caught by every test
// that builds the commands.
func (f *cliFlags) withFlags(c *cobra.Command, names []string) *cobra.Command {
	for _, n := range names {
		fl := f.set.Lookup(n)
		if fl == nil {
			panic(fmt.Sprintf("blkq %s: no flag --%s", c.Name(), n))
		}
		c.Flags().AddFlag(fl)
	}
	return c
}
