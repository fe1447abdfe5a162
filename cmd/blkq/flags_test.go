package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/experiment"
)

const tpcc = "../../testdata/traces/mqsim-tpcc-small.trace"

// isUsage reports whether err is a usage error (exit status 2).
func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// TestSizeCapErrorsNameTheCap: a --size-cap that is not a size, is
// negative, overflows, is longer than any size or is less than a sector
// is refused before anything runs, by run and replay alike, with an error
// that starts by naming --size-cap.
func TestSizeCapErrorsNameTheCap(t *testing.T) {
	for _, v := range []string{"abc", "-5", "9e99", "10000000000000000000", "1", "511", "64x", strings.Repeat("9", 300)} {
		for _, cmd := range []string{"run", "replay"} {
			var o, e strings.Builder
			var err error
			if cmd == "run" {
				err = cmdRun([]string{"--size-cap=" + v}, &o, &e)
			} else {
				err = cmdReplay([]string{"--size-cap=" + v, tpcc}, &o, &e)
			}
			if err == nil || !isUsage(err) || !strings.HasPrefix(err.Error(), "--size-cap") || len(err.Error()) > 200 {
				t.Errorf("%s --size-cap=%.20s: %v; want a usage error naming --size-cap, under 200 characters", cmd, v, err)
			}
			if o.Len() != 0 {
				t.Errorf("%s --size-cap=%.20s: printed a report", cmd, v)
			}
		}
	}
	// One sector is a cap a job of 512-byte blocks can run under
	// (--parse-only now plans the jobs, and the embedded demo's blocks
	// are larger than a sector, so it uses a job file of its own).
	job := filepath.Join(t.TempDir(), "sector.fio")
	if err := os.WriteFile(job, []byte("[w]\nrw=read\nbs=512\nsize=1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmdRun([]string{"--size-cap=512", "--parse-only", job}, new(strings.Builder), new(strings.Builder)); err != nil {
		t.Errorf("--size-cap=512 (one sector): %v", err)
	}
}

// TestReplayTimeUnitRejectsNegativeAndNonPowerOfTen: --time-unit counts a
// DiskSim trace's times in a power of ten of nanoseconds; anything else is
// a usage error naming the flag. 0 is the default (ns).
func TestReplayTimeUnitRejectsNegativeAndNonPowerOfTen(t *testing.T) {
	for _, v := range []string{"-1ms", "-1ns", "3ms", "1m", "1.5us", "20ns", "1h"} {
		err := cmdReplay([]string{"--parse-only", "--time-unit=" + v, tpcc}, new(strings.Builder), new(strings.Builder))
		if err == nil || !isUsage(err) || !strings.HasPrefix(err.Error(), "--time-unit=") {
			t.Errorf("--time-unit=%s: %v; want a usage error naming --time-unit", v, err)
		}
	}
	for _, v := range []string{"0", "1ns", "10ns", "100ns", "1us", "10us", "1ms", "100ms", "1s"} {
		if err := cmdReplay([]string{"--parse-only", "--time-unit=" + v, tpcc}, new(strings.Builder), new(strings.Builder)); err != nil {
			t.Errorf("--time-unit=%s: %v", v, err)
		}
	}
	for n, want := range map[int64]bool{1: true, 10: true, 1000: true, 1e18: true, 0: false, 2: false, 20: false, 110: false, 999: false, -10: false} {
		if powerOfTen(n) != want {
			t.Errorf("powerOfTen(%d) = %v", n, !want)
		}
	}
}

// TestLatencyRejectsStrayArgumentsAndSubResolutionIntervals: blkq latency
// takes no arguments, and an --interval shorter than its clock can time
// (1 µs at best, cyclictest's unit) is refused; neither starts the load or
// leaves a scratch file.
func TestLatencyRejectsStrayArgumentsAndSubResolutionIntervals(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--duration=1s", "extra"},
		{"--duration=1s", "--interval=100ns"},
		{"--duration=1s", "--interval=999ns"},
		{"--duration=1s", "--interval=0"},
		{"--duration=1s", "--interval=-1ms"},
		{"--duration=1ms", "--interval=1ms"},
	} {
		var o, e strings.Builder
		err := cmdLatency(append([]string{"--dir", dir}, args...), &o, &e)
		if err == nil || !isUsage(err) {
			t.Errorf("latency %v: %v; want a usage error", args, err)
			continue
		}
		if args[1] != "extra" && !strings.HasPrefix(err.Error(), "--interval=") {
			t.Errorf("latency %v: %v; want it to name --interval", args, err)
		}
		if o.Len() != 0 {
			t.Errorf("latency %v: measured: %s", args, o.String())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files in --dir", len(ents))
	}
	if r := experiment.ProbeResolution(); r < 1000 {
		t.Errorf("experiment.ProbeResolution() = %v, want at least 1µs", r)
	}
}

// TestExperimentScaleOutOfRangeNamesTheScale: --scale must be above 0 and
// at most 10; NaN, ±Inf and anything outside are usage errors naming the
// scale, for list and --print-jobs as for a run.
func TestExperimentScaleOutOfRangeNamesTheScale(t *testing.T) {
	for _, v := range []string{"NaN", "Inf", "-Inf", "0", "-0.5", "10.01", "1e308"} {
		for _, rest := range [][]string{{"starvation"}, {"list"}, {"--print-jobs", "starvation"}} {
			var o, e strings.Builder
			err := cmdExperiment(append([]string{"--scale=" + v}, rest...), &o, &e)
			if err == nil || !isUsage(err) || !strings.HasPrefix(err.Error(), "--scale=") {
				t.Errorf("experiment --scale=%s %v: %v; want a usage error naming --scale", v, rest, err)
			}
			if o.Len() != 0 {
				t.Errorf("experiment --scale=%s %v: printed %.80q", v, rest, o.String())
			}
		}
	}
	var o strings.Builder
	if err := cmdExperiment([]string{"--scale=10", "--print-jobs", "starvation"}, &o, new(strings.Builder)); err != nil || !strings.Contains(o.String(), "runtime=600000ms") {
		t.Errorf("--scale=10 --print-jobs: %v\n%.300s", err, o.String())
	}
}

// TestReplayParseOnlyRunsNothing: replay --parse-only reads and checks the
// trace and stops: no report, no --output file, no --trace file; a trace
// that does not parse still fails.
func TestReplayParseOnlyRunsNothing(t *testing.T) {
	dir := t.TempDir()
	out, tr := filepath.Join(dir, "report.json"), filepath.Join(dir, "run.blktrace.0")
	var o, e strings.Builder
	err := cmdReplay([]string{"--parse-only", "--output-format=json", "--output", out, "--trace", tr, tpcc}, &o, &e)
	if err != nil {
		t.Fatal(err)
	}
	if o.Len() != 0 {
		t.Errorf("printed a report: %.200s", o.String())
	}
	if !strings.Contains(e.String(), "6999 records parsed") {
		t.Errorf("stderr %q: want the number of records parsed", e.String())
	}
	for _, f := range []string{out, tr} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("--parse-only wrote %s", f)
		}
	}
	garbage := filepath.Join(dir, "garbage.trace")
	if err := os.WriteFile(garbage, []byte("this is not a trace in any format\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmdReplay([]string{"--parse-only", garbage}, new(strings.Builder), new(strings.Builder)); err == nil {
		t.Error("--parse-only accepted a file that is no trace")
	}
}

// TestReplayCompareChecksEveryValueBeforeTheFirstReplay: a bad value
// anywhere in --compare's list is a usage error naming it, before any
// replay has run (and before the trace is read: here it does not exist).
func TestReplayCompareChecksEveryValueBeforeTheFirstReplay(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such.trace")
	for _, tc := range []struct{ spec, want string }{
		{"sched=none,mq-deadline,bogus", "sched=bogus"},
		{"alloc=fair,legacy,nope", "alloc=nope"},
		{"nomerges=0,1,3", "nomerges=\"3\""},
		{"nr_requests=64,9999", "nr_requests=9999"},
		{"iosched/fifo_batch=8,x", "iosched/fifo_batch=x"},
		{"no_such_tunable=1,2", "no_such_tunable=1"},
		{"sched=none,", "value 2 is empty"},
		{"sched", "want NAME=V1,V2"},
		{"=a,b", "want NAME=V1,V2"},
	} {
		var o, e strings.Builder
		err := cmdReplay([]string{"--compare", tc.spec, missing}, &o, &e)
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--compare %s: %v; want a usage error naming %q", tc.spec, err, tc.want)
		}
		if o.Len() != 0 || strings.Contains(e.String(), "replayed") {
			t.Errorf("--compare %s: replayed before failing:\n%s%s", tc.spec, o.String(), e.String())
		}
	}
	var o, e strings.Builder
	if err := cmdReplay([]string{"--compare", "nomerges=0,2", tpcc}, &o, &e); err != nil || strings.Count(e.String(), "replayed 6999 of 6999 records") != 2 {
		t.Errorf("--compare nomerges=0,2: %v\n%s", err, e.String())
	}
}

// TestReplayRefusesFlagsItWouldIgnore: --size-cap sizes only a file:
// device; given where it does nothing, it is a usage error rather than
// silently ignored. A negative --runtime-cap is refused as run refuses it
// (a replay's runtime cap stops it: TestEveryReplayFlagChangesTheReplay).
func TestReplayRefusesFlagsItWouldIgnore(t *testing.T) {
	for _, args := range [][]string{
		{"--runtime-cap=-1s", tpcc},
		{"--size-cap=64m", tpcc},
		{"--device=sim:ssd", "--size-cap=64m", tpcc},
		{"--device=null", "--size-cap=64m", tpcc},
	} {
		var o strings.Builder
		err := cmdReplay(args, &o, new(strings.Builder))
		if err == nil || !isUsage(err) || o.Len() != 0 {
			t.Errorf("replay %v: %v; want a usage error and no report", args, err)
		}
	}
	img := filepath.Join(t.TempDir(), "disk.img")
	if err := cmdReplay([]string{"--device=file:" + img, "--size-cap=64m", "--parse-only", tpcc}, new(strings.Builder), new(strings.Builder)); err != nil {
		t.Errorf("--size-cap on a file: device: %v", err)
	}
	if _, err := os.Stat(img); err == nil {
		t.Errorf("--parse-only created the device file %s", img)
	}
}

// TestLatencyWritersHaveALimit: --writers beyond 100,000 is a usage error
// naming the value, before a writer starts or a scratch file is made
// (100 million writers grew to every byte of memory, ignoring --duration).
func TestLatencyWritersHaveALimit(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"100001", "100000000", "9223372036854775807"} {
		var o, e strings.Builder
		err := cmdLatency([]string{"--dir", dir, "--duration=1s", "--writers", n}, &o, &e)
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), "--writers="+n) || !strings.Contains(err.Error(), "100000") {
			t.Errorf("--writers %s: %v; want a usage error naming the value and the limit", n, err)
		}
		if o.Len() != 0 {
			t.Errorf("--writers %s: measured: %s", n, o.String())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files in --dir", len(ents))
	}
}

// TestRunParseOnlyRefusesWhatRunRefuses: a job file that the run refuses
// before it starts (a block size that is not whole sectors, a size spread
// over more files than it has sectors, an offset past the file) fails
// --parse-only with the same error, not only once it is run.
func TestRunParseOnlyRefusesWhatRunRefuses(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"bs3":     "[w]\nrw=write\nsize=1m\nbs=3\n",
		"nrfiles": "[w]\nrw=write\nsize=1m\nnrfiles=1000000\n",
		"offset":  "[w]\nrw=read\nfilesize=1m\noffset=2m\n",
	} {
		path := filepath.Join(dir, name+".fio")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		runErr := cmdRun([]string{"--device=null", path}, new(strings.Builder), new(strings.Builder))
		if runErr == nil {
			t.Fatalf("%s: the run accepted it; the test needs a job the run refuses", name)
		}
		err := cmdRun([]string{"--device=null", "--parse-only", path}, new(strings.Builder), new(strings.Builder))
		if err == nil || err.Error() != runErr.Error() {
			t.Errorf("%s: --parse-only gave %v; the run gives %v", name, err, runErr)
		}
	}
}

// TestReplayUnknownFormatIsAUsageError: an unknown --format is a usage
// error (exit 2) naming the flag and every format, blktrace included; it
// was a plain error (exit 1) whose list left blktrace out.
func TestReplayUnknownFormatIsAUsageError(t *testing.T) {
	err := cmdReplay([]string{"--format=xyz", tpcc}, new(strings.Builder), new(strings.Builder))
	if err == nil || !isUsage(err) || !strings.HasPrefix(err.Error(), "--format=xyz") || !strings.Contains(err.Error(), "blktrace") || !strings.Contains(err.Error(), "disksim") {
		t.Fatalf("--format=xyz: %v; want a usage error naming --format and listing blktrace and disksim", err)
	}
	if err := cmdReplay([]string{"--parse-only", "--format=disksim", tpcc}, new(strings.Builder), new(strings.Builder)); err != nil {
		t.Errorf("--format=disksim: %v", err)
	}
}

// TestStatusIntervalNeedsATime: --status-interval takes fio's times (a
// bare number is seconds) of at least 1 ms, as fio refuses a smaller one
// ("status interval too small"); a bad one is a usage error naming it,
// before anything runs.
func TestStatusIntervalNeedsATime(t *testing.T) {
	for _, v := range []string{"0", "500us", "abc", "-1", ""} {
		var o strings.Builder
		err := cmdRun([]string{"--status-interval=" + v, "--name=x", "--ioengine=null", "--size=1m"}, &o, new(strings.Builder))
		if v == "" {
			if err != nil {
				t.Errorf("--status-interval=: %v; want none (no status reports)", err)
			}
			continue
		}
		if err == nil || !isUsage(err) || !strings.Contains(err.Error(), "--status-interval="+v) || o.Len() != 0 {
			t.Errorf("--status-interval=%s: %v; want a usage error naming it and no report", v, err)
		}
	}
}
