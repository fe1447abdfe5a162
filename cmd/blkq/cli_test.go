package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// commandFlags returns the flags blkq's command path (such as "replay" or
// "trace print") takes, by name, as its help lists them.
func commandFlags(t *testing.T, path string) []string {
	t.Helper()
	c, rest, err := newCLI(nil, new(bytes.Buffer), new(bytes.Buffer)).Find(strings.Fields(path))
	if err != nil || len(rest) > 0 {
		t.Fatalf("no command %q: %v", path, err)
	}
	c.InitDefaultHelpFlag()
	var names []string
	c.LocalFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return names
}

// TestUsageErrorFromTheBinaryExitsTwoOnce: the built binary, given a bad
// flag, prints one line naming the flag and pointing at the command's
// help, nothing on stdout, and exits 2.
func TestUsageErrorFromTheBinaryExitsTwoOnce(t *testing.T) {
	bin := buildBlkq(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--bogus"}, "blkq: run: unknown flag: --bogus; see 'blkq help run'\n"},
		{[]string{"replay", "--iodepth=x", "t.trace"}, `blkq: replay: invalid value "x" for flag --iodepth: invalid syntax; see 'blkq help replay'` + "\n"},
		{[]string{"trace", "print", "--bogus", "x"}, "blkq: trace print: unknown flag: --bogus; see 'blkq help trace'\n"},
		{[]string{"run", "--nomerges=3"}, "blkq: --nomerges=3: want 0, 1 or 2; see 'blkq help run'\n"},
		{[]string{"latency", "--writers=-1"}, "blkq: --writers=-1: want 0 or more; see 'blkq help latency'\n"},
		{[]string{"rnu"}, "blkq: unknown command \"rnu\" (did you mean run?); see 'blkq help'\n"},
	} {
		cmd := exec.Command(bin, tc.args...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("blkq %v: %v; want exit status 2", tc.args, err)
		}
		if e.String() != tc.want || o.Len() != 0 {
			t.Errorf("blkq %v: stderr %q, stdout %q; want stderr %q alone", tc.args, e.String(), o.String(), tc.want)
		}
	}
}

// TestHelpRunListsRunsFlags: blkq help run (stdout) and blkq run --help
// (stderr) exit 0 and list every flag run takes, each once.
func TestHelpRunListsRunsFlags(t *testing.T) {
	flags := commandFlags(t, "run")
	if len(flags) < len(runFlags) {
		t.Fatalf("run takes %v", flags)
	}
	status, out, errOut := blkqCLI("help", "run")
	status2, out2, errOut2 := blkqCLI("run", "--help")
	if status != 0 || errOut != "" || status2 != 0 || out2 != "" || errOut2 != out {
		t.Fatalf("help run: exit %d, stderr %q; run --help: exit %d, stdout %q, same text %v", status, errOut, status2, out2, errOut2 == out)
	}
	for _, f := range flags {
		if n := len(regexp.MustCompile(`(?m)^\s+(-\w, )?--`+f+`( |$)`).FindAllString(out, -1)); n != 1 {
			t.Errorf("blkq help run lists --%s %d times, want once:\n%s", f, n, out)
		}
	}
}

// TestEachFlagIsDefinedOnceAndUsed: the commands take flags only from the
// one definition (flags.go), and every flag defined is taken by some
// command.
func TestEachFlagIsDefinedOnceAndUsed(t *testing.T) {
	used := map[string]bool{"help": true}
	for _, names := range [][]string{runFlags, replayFlags, experimentFlags, latencyFlags, tracePrintFlags, benchFlags} {
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Errorf("--%s listed twice for one command", n)
			}
			seen[n], used[n] = true, true
		}
	}
	newCLIFlags().set.VisitAll(func(fl *pflag.Flag) {
		if !used[fl.Name] {
			t.Errorf("--%s is defined but no command takes it", fl.Name)
		}
	})
	// The shared flags are the same Flag in every command that takes it.
	a, _, _ := newCLI(nil, new(bytes.Buffer), new(bytes.Buffer)).Find([]string{"run"})
	b, _, _ := a.Root().Find([]string{"replay"})
	if a.Flags().Lookup("device") != b.Flags().Lookup("device") {
		t.Error("run's --device and replay's are two flags")
	}
}

// jsonWallClock matches the wall-clock fields of a JSON report.
var jsonWallClock = regexp.MustCompile(`(?m)^.*"(time|timestamp|timestamp_ms)" : .*$`)

// outcome is what one command line did: its stdout (JSON reports without
// their wall-clock fields), stderr and error.
type outcome struct {
	out, errOut string
	err         error
}

// runOutcome runs "blkq CMD HEAD... ARGS... TAIL..." in process.
func runOutcome(cmd string, head, args, tail []string) outcome {
	var o, e strings.Builder
	err := cmdLine(cmd, append(append(append([]string(nil), head...), args...), tail...), nil, &o, &e)
	return outcome{jsonWallClock.ReplaceAllString(o.String(), ""), e.String(), err}
}

// jsonReport asks for the report in JSON, without the wall-clock fields
// (runOutcome drops them) comparable from run to run.
var jsonReport = []string{"--output-format=json"}

// differs is a flag case's check that the report changed.
func differs(with, base outcome) bool {
	return with.err == nil && base.err == nil && with.out != base.out && with.out != ""
}

// flagCase shows what one flag does: the command line with it (with)
// against the one without (base), judged by ok.
type flagCase struct {
	base, with []string
	tail       []string // after the flags: the input; nil for the command's default
	ok         func(with, base outcome) bool
}

// checkEveryFlag runs cases, one per flag cmd takes, each as "blkq cmd
// HEAD... ARGS... TAIL...": each must make the difference its ok looks
// for. A flag without a case, or a case for a flag cmd does not take,
// fails the test: no flag is accepted and ignored.
func checkEveryFlag(t *testing.T, cmd string, head, tail []string, cases map[string]flagCase) {
	t.Helper()
	flags := commandFlags(t, cmd)
	sort.Strings(flags)
	for _, name := range flags {
		tc, ok := cases[name]
		if !ok {
			t.Errorf("--%s: %s takes it, but this test has no case showing what it does", name, cmd)
			continue
		}
		delete(cases, name)
		in := tail
		if tc.tail != nil {
			in = tc.tail
		}
		base, with := runOutcome(cmd, head, tc.base, in), runOutcome(cmd, head, tc.with, in)
		if !tc.ok(with, base) {
			t.Errorf("%s --%s: %v made no difference it should (err %v, base err %v)\nstderr %.300s", cmd, name, tc.with, with.err, base.err, with.errOut)
		}
	}
	for name := range cases {
		t.Errorf("a case for --%s, which %s does not take", name, cmd)
	}
}

// isTerse: the report is fio's terse output, version 3, one line a job.
func isTerse(w, b outcome) bool {
	return w.err == nil && strings.HasPrefix(w.out, "3;") && !strings.Contains(w.out, "{") && b.out != w.out
}

// isTerseVersion: the report is fio's terse output of version ver.
func isTerseVersion(ver int) func(w, b outcome) bool {
	return func(w, b outcome) bool {
		return w.err == nil && strings.HasPrefix(w.out, fmt.Sprintf("%d;", ver)) && strings.HasPrefix(b.out, "3;")
	}
}

// refusedBeforeRun: a usage error, no report.
func refusedBeforeRun(w, b outcome) bool {
	return b.err == nil && w.err != nil && isUsage(w.err) && w.out == ""
}

// helpCase is the case of -h/--help: the usage on stderr, nothing run.
func helpCase(cmd string) flagCase {
	return flagCase{with: []string{"--help"}, ok: func(w, b outcome) bool {
		return w.err == nil && w.out == "" && strings.HasPrefix(w.errOut, "usage: blkq "+cmd)
	}}
}

// TestEveryReplayFlagChangesTheReplay: each flag replay takes does what
// its help says on a real trace: the report, the output or the outcome
// differs from the same replay without it.
func TestEveryReplayFlagChangesTheReplay(t *testing.T) {
	dir := t.TempDir()
	img := func(name string) string { return "--device=file:" + filepath.Join(dir, name) }
	checkEveryFlag(t, "replay", jsonReport, []string{tpcc}, map[string]flagCase{
		"device":        {with: []string{"--device=sim:ssd"}, ok: differs},
		"scheduler":     {with: []string{"--scheduler=none"}, ok: differs},
		"nr-requests":   {with: []string{"--nr-requests=4"}, ok: differs},
		"nomerges":      {with: []string{"--nomerges=2"}, ok: differs},
		"alloc":         {base: []string{"--nr-requests=4"}, with: []string{"--nr-requests=4", "--alloc=legacy"}, ok: differs},
		"set":           {with: []string{"--set", "iosched/fifo_batch=1"}, ok: differs},
		"timing":        {with: []string{"--timing=afap"}, ok: differs},
		"speed":         {with: []string{"--speed=2"}, ok: differs},
		"iodepth":       {base: []string{"--timing=afap"}, with: []string{"--timing=afap", "--iodepth=4"}, ok: differs},
		"time-unit":     {with: []string{"--time-unit=1us"}, ok: differs},
		"output-format": {with: []string{"--output-format=normal"}, ok: differs},
		"minimal":       {with: []string{"--minimal"}, ok: isTerse},
		"terse-version": {base: []string{"--minimal"}, with: []string{"--minimal", "--terse-version=2"}, ok: isTerseVersion(2)},
		"runtime-cap": {with: []string{"--runtime-cap=100ms"}, ok: func(w, b outcome) bool {
			return w.err == nil && w.out != b.out && strings.Contains(w.errOut, "stopped at its runtime cap (100ms)") && !strings.Contains(b.errOut, "runtime cap")
		}},
		"size-cap": {base: []string{img("a.img")}, with: []string{img("b.img"), "--size-cap=1m"}, ok: func(w, b outcome) bool {
			fa, ea := os.Stat(filepath.Join(dir, "a.img"))
			fb, eb := os.Stat(filepath.Join(dir, "b.img"))
			return w.err == nil && ea == nil && eb == nil && fb.Size() == 1<<20 && fa.Size() > 1<<20
		}},
		"strict": {base: []string{img("c.img"), "--size-cap=1m"}, with: []string{img("d.img"), "--size-cap=1m", "--strict"}, ok: func(w, b outcome) bool {
			return b.err == nil && strings.Contains(b.errOut, "wrapped into it") && w.err != nil
		}},
		"parse-only": {with: []string{"--parse-only"}, ok: func(w, b outcome) bool {
			return w.err == nil && w.out == "" && strings.Contains(w.errOut, "6999 records parsed") && b.out != ""
		}},
		"format": {with: []string{"--format=msr"}, ok: func(w, b outcome) bool { return b.err == nil && w.err != nil }},
		"kernel-merges": {tail: []string{"../../testdata/samples/ftrace-blk-loop0.txt"}, with: []string{"--kernel-merges"}, ok: func(w, b outcome) bool {
			return w.err == nil && strings.Contains(w.errOut, "merges vs the kernel's own") && !strings.Contains(b.errOut, "merges vs")
		}},
		"compare": {with: []string{"--output-format=normal", "--compare", "nomerges=0,2"}, ok: func(w, b outcome) bool {
			return w.err == nil && strings.Contains(w.out, "nomerges=2 ") && strings.Contains(w.out, "avg req KiB")
		}},
		"output": {with: []string{"--output", filepath.Join(dir, "r.json")}, ok: func(w, b outcome) bool {
			data, err := os.ReadFile(filepath.Join(dir, "r.json"))
			return w.err == nil && w.out == "" && err == nil && jsonWallClock.ReplaceAllString(string(data), "") == b.out
		}},
		"trace": {with: []string{"--trace", filepath.Join(dir, "r.blktrace.0")}, ok: func(w, b outcome) bool {
			fi, err := os.Stat(filepath.Join(dir, "r.blktrace.0"))
			return w.err == nil && err == nil && fi.Size() > 0 && w.out == b.out
		}},
		"help": helpCase("replay"),
	})
}

// TestEveryRunFlagChangesTheRun: the same for run, on the embedded demo
// (capped to a second of virtual time) and a corpus job.
func TestEveryRunFlagChangesTheRun(t *testing.T) {
	dir := t.TempDir()
	capped := []string{"--runtime-cap=1s"}
	with := func(args ...string) []string { return append(append([]string(nil), capped...), args...) }
	corpus, err := filepath.Abs("../../testdata/fio-3.33")
	if err != nil {
		t.Fatal(err)
	}
	job := []string{filepath.Join(corpus, "fio-rand-RW.fio")}
	t.Chdir(dir) // --bandwidth-log and verify state files go into the working directory
	if err := os.Mkdir(filepath.Join(dir, "aux"), 0o755); err != nil {
		t.Fatal(err)
	}
	pinned := filepath.Join(dir, "pinned.fio") // an option that cannot matter: silent without --warnings
	if err := os.WriteFile(pinned, []byte("[a]\nioengine=null\nsize=64k\ncpus_allowed=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkEveryFlag(t, "run", jsonReport, []string{}, map[string]flagCase{
		"device":        {base: capped, with: with("--device=sim:ssd"), ok: differs},
		"scheduler":     {base: capped, with: with("--scheduler=none"), ok: differs},
		"nr-requests":   {base: capped, with: with("--nr-requests=4"), ok: differs},
		"nomerges":      {base: capped, with: with("--nomerges=2"), ok: differs},
		"alloc":         {base: with("--nr-requests=4"), with: with("--nr-requests=4", "--alloc=legacy"), ok: differs},
		"set":           {base: capped, with: with("--set", "iosched/fifo_batch=1"), ok: differs},
		"seed":          {base: capped, with: with("--seed=7"), ok: differs},
		"runtime-cap":   {base: capped, with: []string{"--runtime-cap=2s"}, ok: differs},
		"size-cap":      {tail: job, base: capped, with: with("--size-cap=1m"), ok: differs},
		"output-format": {base: capped, with: with("--output-format=normal"), ok: differs},
		"warnings": {tail: []string{pinned}, with: []string{"--warnings"}, ok: func(w, b outcome) bool {
			return b.err == nil && b.errOut == "" && w.err == nil && strings.Contains(w.errOut, `ignoring option "cpus_allowed"`)
		}},
		"max-jobs": {base: with("--max-jobs=5"), with: with("--max-jobs=4"), ok: func(w, b outcome) bool {
			return b.err == nil && w.err != nil && strings.Contains(w.err.Error(), "define 5 jobs")
		}},
		"minimal": {base: capped, with: with("--minimal"), ok: isTerse},
		"status-interval": {base: capped, with: with("--status-interval=500ms"), ok: func(w, b outcome) bool {
			// The demo for 1 s of virtual time and its drain: reports at
			// 0.5, 1 and 1.5 s, then the final one, unchanged.
			return w.err == nil && strings.Count(w.out, `"fio version"`) == 4 && strings.HasSuffix(w.out, b.out)
		}},
		"aux-path": {tail: []string{"--name=v", "--ioengine=null", "--rw=write", "--size=64k", "--verify=crc32c"},
			with: []string{"--aux-path=" + filepath.Join(dir, "aux")}, ok: func(w, b outcome) bool {
				// The write job's verify state file there (and, from the run
				// without the flag, in the working directory).
				_, inAux := os.Stat(filepath.Join(dir, "aux", "local-v-0-verify.state"))
				_, inCwd := os.Stat(filepath.Join(dir, "local-v-0-verify.state"))
				return w.err == nil && b.err == nil && inAux == nil && inCwd == nil
			}},
		"bandwidth-log": {base: capped, with: with("--bandwidth-log"), ok: func(w, b outcome) bool {
			// The demo on sim:hdd, 1 s of virtual time and its drain: a
			// line per 500 ms in each of fio's three files, 3 in all
			// (the report unchanged).
			for _, name := range []string{"agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"} {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil || strings.Count(string(data), "\n") != 3 {
					return false
				}
			}
			return w.err == nil && w.out == b.out
		}},
		"eta": {base: []string{"--output-format=normal", "--name=x", "--ioengine=null", "--time_based", "--runtime=1500ms", "--size=1m"},
			with: []string{"--output-format=normal", "--eta=always", "--name=x", "--ioengine=null", "--time_based", "--runtime=1500ms", "--size=1m"},
			ok: func(w, b outcome) bool {
				return w.err == nil && strings.HasPrefix(w.out, "Jobs: 1 (f=1)") && strings.Contains(w.out, "\r") && !strings.Contains(b.out, "Jobs: ")
			}},
		"terse-version": {base: with("--minimal"), with: with("--minimal", "--terse-version=4"), ok: isTerseVersion(4)},
		"readonly": {tail: job, base: capped, with: with("--readonly"), ok: func(w, b outcome) bool {
			return b.err == nil && w.err != nil && strings.Contains(w.err.Error(), "--readonly") && w.out == ""
		}},
		"section": {tail: []string{filepath.Join(corpus, "ssd-test.fio")}, base: with("--device=sim:ssd", "--size-cap=1m"),
			with: with("--device=sim:ssd", "--size-cap=1m", "--section=rand-read"), ok: func(w, b outcome) bool {
				return w.err == nil && strings.Count(w.out, `"jobname"`) == 1 && strings.Contains(w.out, `"jobname" : "rand-read"`) &&
					strings.Count(b.out, `"jobname"`) == 4
			}},
		"parse-only": {base: capped, with: with("--parse-only"), ok: func(w, b outcome) bool {
			return w.err == nil && w.out == "" && b.out != ""
		}},
		"output": {base: capped, with: with("--output", filepath.Join(dir, "r.json")), ok: func(w, b outcome) bool {
			data, err := os.ReadFile(filepath.Join(dir, "r.json"))
			return w.err == nil && w.out == "" && err == nil && jsonWallClock.ReplaceAllString(string(data), "") == b.out
		}},
		"trace": {base: capped, with: with("--trace", filepath.Join(dir, "r.blktrace.0")), ok: func(w, b outcome) bool {
			fi, err := os.Stat(filepath.Join(dir, "r.blktrace.0"))
			return w.err == nil && err == nil && fi.Size() > 0 && w.out == b.out
		}},
		"cpus": {base: capped, with: with("--cpus=1"), ok: func(w, b outcome) bool {
			return differs(w, b) && strings.Contains(w.out, `"cpu_modelled_cpus" : 1`) && !strings.Contains(b.out, "cpu_modelled")
		}},
		"cpu":  {base: with("--cpus=1"), with: with("--cpus=1", "--cpu", "submit=1ms"), ok: differs},
		"help": helpCase("run"),
	})
}

// TestRunRefusesBadCPUFlags: --cpus on a device with real CPUs, --cpu
// without --cpus or with a bad setting are usage errors naming the flag.
func TestRunRefusesBadCPUFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--cpus=-1"}, "--cpus=-1: want 1 to 1024"},
		{[]string{"--cpus=1", "--device=null"}, "simulated devices"},
		{[]string{"--cpu", "submit=1us"}, "needs --cpus N"},
		{[]string{"--cpus=1", "--cpu", "submit"}, "want NAME=VALUE"},
		{[]string{"--cpus=1", "--cpu", "submit=fast"}, "--cpu submit=fast: want a duration"},
		{[]string{"--cpus=1", "--cpu", "turbo=1"}, `unknown CPU setting "turbo"`},
	} {
		o := runOutcome("run", tc.args, nil, []string{"--runtime-cap=1s"})
		if o.err == nil || !isUsage(o.err) || !strings.Contains(o.err.Error(), tc.want) || o.out != "" {
			t.Errorf("run %v: %v; want a usage error %q and no report", tc.args, o.err, tc.want)
		}
	}
}

// TestEveryExperimentAndTracePrintFlagDoesSomething: the same for
// experiment (batching, at a hundredth of its length) and trace print.
func TestEveryExperimentAndTracePrintFlagDoesSomething(t *testing.T) {
	dir := t.TempDir()
	short := []string{"--scale=0.01"}
	with := func(args ...string) []string { return append(append([]string(nil), short...), args...) }
	files := func(pattern string) int { m, _ := filepath.Glob(filepath.Join(dir, pattern)); return len(m) }
	checkEveryFlag(t, "experiment", nil, []string{"batching"}, map[string]flagCase{
		"seed":          {base: short, with: with("--seed=7"), ok: differs},
		"scale":         {base: short, with: []string{"--scale=0.02"}, ok: differs},
		"output-format": {base: short, with: with("--output-format=json"), ok: differs},
		"print-jobs": {base: short, with: with("--print-jobs"), ok: func(w, b outcome) bool {
			return w.err == nil && strings.HasPrefix(w.out, "; blkq experiment batching runs this job file under:") && w.out != b.out
		}},
		"trace": {base: short, with: with("--trace", filepath.Join(dir, "b")), ok: func(w, b outcome) bool {
			return w.err == nil && files("b-*.blktrace.0") >= 2 && w.out == b.out
		}},
		"plot": {base: short, with: with("--plot", filepath.Join(dir, "plots")), ok: func(w, b outcome) bool {
			return w.err == nil && files("plots/*.png") > 0 && w.out == b.out
		}},
		"help": helpCase("experiment"),
	})
	tr := filepath.Join(dir, "run.blktrace.0")
	if err := cmdRun([]string{"--runtime-cap=100ms", "--trace", tr}, new(strings.Builder), new(strings.Builder)); err != nil {
		t.Fatal(err)
	}
	checkEveryFlag(t, "trace print", nil, []string{tr}, map[string]flagCase{
		"no-summary": {with: []string{"--no-summary"}, ok: func(w, b outcome) bool {
			return w.err == nil && strings.Contains(b.out, "Throughput (R/W)") && !strings.Contains(w.out, "Throughput (R/W)") && strings.HasPrefix(b.out, w.out)
		}},
		"help": helpCase("trace print"),
	})
}

// TestReplayRefusesFlagsItsTimingIgnores: --iodepth belongs to afap
// timing and --speed to trace timing; given to the other, and a time
// unit given for a trace that is not DiskSim, they are usage errors.
func TestReplayRefusesFlagsItsTimingIgnores(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--iodepth=8", tpcc}, "--iodepth: records in flight are --timing=afap's"},
		{[]string{"--timing=afap", "--speed=2", tpcc}, "--speed: scales the recorded times of --timing=trace"},
		{[]string{"--time-unit=1ms", "../../testdata/samples/ftrace-blk-loop0.txt"}, "only DiskSim traces take a time unit"},
		{[]string{"--compare", "nomerges=0,2", "--kernel-merges", tpcc}, "does not combine with"},
		{[]string{"--device=sim:trace", tpcc}, "a disksim trace; sim:trace takes its times from the D and C events"},
	} {
		var o strings.Builder
		err := cmdReplay(tc.args, &o, new(strings.Builder))
		if !isUsage(err) || !strings.Contains(err.Error(), tc.want) || o.Len() != 0 {
			t.Errorf("replay %v: %v; want a usage error %q and no report", tc.args, err, tc.want)
		}
	}
}

// TestSimTraceIsReplaysOnly: sim:trace serves requests in a trace's own
// times, so blkq run refuses it, and a replay of a trace with no D and C
// (DiskSim) too, each with a usage error.
func TestSimTraceIsReplaysOnly(t *testing.T) {
	err := cmdRun([]string{"--device=sim:trace"}, new(strings.Builder), new(strings.Builder))
	if !isUsage(err) || !strings.Contains(err.Error(), "only blkq replay has it") {
		t.Errorf("run --device=sim:trace: %v; want a usage error", err)
	}
	err = cmdReplay([]string{"--device=sim:trace", "../../testdata/samples/ftrace-blk-loop0.txt"}, new(strings.Builder), new(strings.Builder))
	if err != nil {
		t.Errorf("replay --device=sim:trace of an ftrace trace: %v", err)
	}
}

// TestLatencyFlagsReachTheBenchmark: latency runs in real time, so its
// flags are checked by what the output says of them rather than against
// a second run: --writers and --interval are in the header, --duration
// bounds the samples, --cpu-hold=false drops the CPU columns. (--dir:
// TestLatencyStopsWithManyWriters finds the scratch file there.)
func TestLatencyFlagsReachTheBenchmark(t *testing.T) {
	if got := commandFlags(t, "latency"); len(got) != len(latencyFlags)+1 {
		t.Fatalf("latency takes %v; this test knows %v and help", got, latencyFlags)
	}
	var o strings.Builder
	if err := cmdLatency([]string{"--dir", t.TempDir(), "--duration=200ms", "--interval=2ms", "--writers=0", "--cpu-hold=false"}, &o, new(strings.Builder)); err != nil {
		t.Fatal(err)
	}
	var samples int
	if _, err := fmt.Sscanf(o.String(), "blkq latency: %d samples at 2ms, 0 writers, 0.0 MB written", &samples); err != nil || samples < 1 || samples > 100 {
		t.Fatalf("header: %v, %d samples (want 1 to 100 at 2 ms in 200 ms):\n%s", err, samples, o.String())
	}
	if !strings.Contains(o.String(), "T: 0 I:2000 ") {
		t.Errorf("no I:2000 for --interval=2ms:\n%s", o.String())
	}
	for _, line := range strings.Split(o.String(), "\n") {
		if strings.HasPrefix(line, "control ") && len(strings.Fields(line)) != 5 {
			t.Errorf("--cpu-hold=false: %q still has CPU columns", line)
		}
	}
}
