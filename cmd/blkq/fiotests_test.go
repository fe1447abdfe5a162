package main

// fio's own test suite with blkq standing in for fio. The job files are
// fio's t/jobs (testdata/fio-tests, GPL-2.0, unmodified); each test below
// runs them as fio's harness (t/run-fio-tests.py) runs fio, through
// scripts/blkq-as-fio, which picks the device a fio user would expect
// (the null device for ioengine=null jobs, a real file in the test's
// directory for the others), and then checks what the harness checks for
// that test: exit status, an empty standard error, and the figures, logs
// or files the harness reads. The checks are written here in our own
// words from what the harness asserts.
//
// A test that fio 3.33 fails on this machine (docs/fio-tests.md) is
// listed with the reason and not run. A test that blkq fails for a reason
// outside this suite's reach is in fioKnownFailures, with the issue item
// that owns it: its failure is logged, and the test fails the day it
// passes, so that the table stays true. Every other test must pass.
//
// The jobs run in parallel, each as its own process in its own directory;
// jobs whose size only makes them slow on a real file run under
// --size-cap (the check they face does not depend on the size). The
// time-based ones (t0011–t0014, 10–12 s) set the wall time of the whole.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fioOutcome is what the harness demands of a run's exit status and
// standard error (its SUCCESS_DEFAULT and SUCCESS_NONZERO).
type fioOutcome int

const (
	fioSucceeds fioOutcome = iota // exit status 0, nothing on standard error
	fioFails                      // a non-zero exit status and a message on standard error
)

// fioSuiteTest is one test of fio's harness.
type fioSuiteTest struct {
	id       int
	job, pre string // job files in testdata/fio-tests; pre runs first, in the same directory
	json     bool   // --output-format=json (else normal)
	outcome  fioOutcome
	args     []string // extra arguments, after the job file, as the harness's "parameters"
	cap      string   // --size-cap for a job that is only slow at its size
	setup    func(t *testing.T, dir string)
	check    func(r *fioSuiteRun) // adds failures with r.fail
	// notHere says why the harness does not pass this test with fio 3.33
	// on this machine ("" when it does): such a test is not run.
	notHere string
}

// fioKnownFailures are the tests blkq fails today for a reason owned
// elsewhere: the reason, with the item of issue 11 that covers it. None
// today: t0028 (buffer_pattern) was the last.
var fioKnownFailures = map[int]string{}

// fioSuiteRun is the outcome of one test's run.
type fioSuiteRun struct {
	dir      string
	status   int
	stderr   string
	json     map[string]any
	failures []string
}

func (r *fioSuiteRun) fail(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// job returns job i of the JSON report, and direction dir of it when dir
// is not "".
func (r *fioSuiteRun) job(i int, dir string) map[string]any {
	jobs, _ := r.json["jobs"].([]any)
	if i >= len(jobs) {
		r.fail("the JSON report has %d jobs; want job %d", len(jobs), i)
		return map[string]any{}
	}
	j, _ := jobs[i].(map[string]any)
	if dir == "" {
		return j
	}
	d, _ := j[dir].(map[string]any)
	return d
}

// num returns the number at path (keys) in m, failing when there is none.
func (r *fioSuiteRun) num(m map[string]any, path ...string) float64 {
	var v any = m
	for _, k := range path {
		mm, _ := v.(map[string]any)
		v = mm[k]
	}
	f, ok := v.(float64)
	if !ok {
		r.fail("the JSON report has no number at %s", strings.Join(path, "."))
	}
	return f
}

// readFile returns the file name in the test's directory, failing when
// it cannot be read.
func (r *fioSuiteRun) readFile(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.fail("%v", err)
		return "", false
	}
	return string(b), true
}

// logLines returns the non-blank lines of a log in the test's directory,
// each split into its comma-separated fields as integers.
func (r *fioSuiteRun) logLines(name string) [][]int64 {
	text, ok := r.readFile(name)
	if !ok {
		return nil
	}
	var rows [][]int64
	for n, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var row []int64
		for _, f := range strings.Split(line, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(f), 0, 64)
			if err != nil {
				r.fail("%s:%d: %q is not a number", name, n+1, f)
				return nil
			}
			row = append(row, v)
		}
		if len(row) < 5 {
			r.fail("%s:%d: %d fields; want at least 5", name, n+1, len(row))
			return nil
		}
		rows = append(rows, row)
	}
	return rows
}

// fioSuite is fio's t/jobs tests, in the harness's order, with the checks
// its test classes make.
var fioSuite = []fioSuiteTest{
	{id: 1, job: "t0001-52c58027.fio"},
	{id: 2, job: "t0002-13af05ae-post.fio", pre: "t0002-13af05ae-pre.fio", cap: "16m"},
	{id: 3, job: "t0003-0ae2c6e1-post.fio", pre: "t0003-0ae2c6e1-pre.fio", outcome: fioFails},
	{id: 4, job: "t0004-8a99fdf6.fio"},
	{id: 5, job: "t0005-f7078f7b.fio", json: true, check: func(r *fioSuiteRun) {
		// Every block written is read back by the verify phase.
		r.wantKiB(0, "read", 102400)
		r.wantKiB(0, "write", 102400)
	}},
	{id: 6, job: "t0006-82af2a7c.fio", json: true, cap: "64m", check: func(r *fioSuiteRun) {
		// randrw 50/50 with verify: reads are the job's own and the
		// verify reads of every block written, twice the writes.
		read, write := r.num(r.job(0, "read"), "io_kbytes"), r.num(r.job(0, "write"), "io_kbytes")
		if ratio := read / write; !(ratio >= 1.99 && ratio <= 2.01) {
			r.fail("read/write KiB %v/%v = %.4f; want 1.99..2.01", read, write, ratio)
		}
	}},
	{id: 7, job: "t0007-37cf9e3c.fio", json: true, check: func(r *fioSuiteRun) {
		// 1 MiB reads with 512 KiB holes over 128 MiB: the pass ends at
		// the first read that would run past the end, after 85 reads.
		r.wantKiB(0, "read", 87040)
	}},
	{id: 8, job: "t0008-ae2fafc8.fio", json: true, check: func(r *fioSuiteRun) {
		// Half the I/Os write (a coin per I/O); the verify phase reads
		// every block written, so reads cover the 32 MiB exactly.
		if w := r.num(r.job(0, "write"), "io_kbytes"); !(w/16384 >= 0.97 && w/16384 <= 1.03) {
			r.fail("write KiB %v; want 16384 within 3 %%", w)
		}
		r.wantKiB(0, "read", 32768)
	}},
	{id: 9, job: "t0009-f8b0bd10.fio", json: true,
		notHere: "the harness runs it only with 4 CPUs or more (cpus_allowed=0-3); this machine has 2"},
	{id: 10, job: "t0010-b7aae4ba.fio",
		notHere: "fio 3.33 makes no progress in 600 s here (io_submit_mode=offload, null engine): the harness times out"},
	{id: 11, job: "t0011-5d2788d5.fio", json: true, check: func(r *fioSuiteRun) {
		// Two jobs in one flow with weights 1 and 8; the first is held
		// at 1000 IOPS, so the second runs at about 8000.
		iops1, iops2 := r.num(r.job(0, "read"), "iops"), r.num(r.job(1, "read"), "iops")
		if iops1 < 950 || iops1 > 1050 {
			r.fail("job 1 IOPS %.1f; want 950..1050 (rate_iops=1000)", iops1)
		}
		if ratio := iops2 / iops1; !(ratio >= 6 && ratio <= 10) {
			r.fail("IOPS ratio job 2/job 1 = %.3f; want 6..10 (flow=8 against flow=1)", ratio)
		}
	}},
	{id: 12, job: "t0012.fio", json: true, check: func(r *fioSuiteRun) {
		// Flow weights 1, 5, 10: over the first 9 one-second samples job
		// 3 does 7..13 times job 1's I/Os and 1..3 times job 2's.
		s := r.iopsSums("t0012.fio", 9, 9, 9)
		if s == nil {
			return
		}
		if r1, r2 := s[2]/s[1], s[2]/s[0]; r1 < 1 || r1 > 3 || r2 < 7 || r2 > 13 {
			r.fail("IOPS sums %v: job3/job2 %.3f (want 1..3), job3/job1 %.3f (want 7..13)", s, r1, r2)
		}
	}},
	{id: 13, job: "t0013.fio", json: true,
		notHere: "fio 3.33 does not end here (io_submit_mode=offload): still running after 2 min of a 10 s job"},
	{id: 14, job: "t0014.fio", json: true, check: func(r *fioSuiteRun) {
		// Flow weights 1, 2, 3, the third job for 5 s of 12: over the
		// first 4 samples job 1 does half job 2's I/Os and a third of
		// job 3's; over the first 9, still half job 2's.
		s4 := r.iopsSums("t0014.fio", 4, 4, 4)
		s9 := r.iopsSums("t0014.fio", 9, 9, 0)
		if s4 == nil || s9 == nil {
			return
		}
		if r1, r2 := s4[0]/s4[1], s4[0]/s4[2]; r1 < 0.43 || r1 > 0.57 || r2 < 0.21 || r2 > 0.45 {
			r.fail("first 4 samples %v: job1/job2 %.3f (want 0.43..0.57), job1/job3 %.3f (want 0.21..0.45)", s4, r1, r2)
		}
		if r1 := s9[0] / s9[1]; r1 < 0.43 || r1 > 0.57 {
			r.fail("first 9 samples %v: job1/job2 %.3f; want 0.43..0.57", s9, r1)
		}
	}},
	{id: 15, job: "t0015-4e7e7898.fio", json: true, check: (*fioSuiteRun).latenciesAddUp},
	{id: 16, job: "t0016-d54ae22.fio", json: true, check: (*fioSuiteRun).latenciesAddUp},
	{id: 17, job: "t0017.fio", json: true, check: (*fioSuiteRun).latenciesAddUp},
	{id: 18, job: "t0018.fio"},
	{id: 19, job: "t0019.fio", check: func(r *fioSuiteRun) {
		// A sequential read of 1 MiB in 4 KiB blocks, logged with offsets.
		rows := r.logLines("test_bw.log")
		prev := int64(-4096)
		for _, row := range rows {
			if row[4]-prev != 4096 {
				r.fail("offsets %d, %d not sequential", prev, row[4])
				return
			}
			prev = row[4]
		}
		if prev != 255*4096 {
			r.fail("last offset %d; want %d", prev, 255*4096)
		}
	}},
	{id: 20, job: "t0020.fio", check: (*fioSuiteRun).randomPassCoversOnce},
	{id: 21, job: "t0021.fio", check: (*fioSuiteRun).randomPassCoversOnce},
	{id: 22, job: "t0022.fio", check: func(r *fioSuiteRun) {
		// norandommap: offsets are drawn afresh, so some repeat and few
		// follow one another.
		rows := r.logLines("test_bw.log")
		seen, consecutive := map[int64]bool{}, 0
		for i, row := range rows {
			seen[row[4]] = true
			if i > 0 && row[4]-rows[i-1][4] == 4096 {
				consecutive++
			}
		}
		if consecutive > 10 {
			r.fail("%d consecutive offsets; want at most 10", consecutive)
		}
		if len(rows) > 0 && len(seen) == (1<<20)/4096 {
			r.fail("every block read exactly once: no offset repeats under norandommap=1")
		}
	}},
	{id: 23, job: "t0023.fio", check: func(r *fioSuiteRun) {
		for _, name := range []string{"basic", "bs", "bsrange", "bssplit", "basic_no_rm", "bs_no_rm", "bsrange_no_rm", "bssplit_no_rm"} {
			r.trimThenWrite(name + "_bw.log")
		}
		r.trimwriteCovers()
	}},
	{id: 24, job: "t0024.fio", check: func(r *fioSuiteRun) {
		for _, name := range []string{"basic", "bs", "bsrange", "bssplit"} {
			r.trimThenWrite(name + "_bw.log")
		}
		r.trimwriteCovers()
	}},
	{id: 25, job: "t0025.fio", json: true, check: func(r *fioSuiteRun) {
		// experimental_verify reads back the 128 KiB written.
		r.wantKiB(0, "read", 128)
	}},
	{id: 26, job: "t0026.fio"},
	{id: 27, job: "t0027.fio", setup: func(t *testing.T, dir string) {
		// 16 KiB of random bytes, written as buffer_pattern and verified
		// as verify_pattern; the file must hold them afterwards.
		pattern := make([]byte, 16<<10)
		for i := range pattern {
			pattern[i] = byte(uint32(i)*2654435761>>13) ^ byte(i>>7)
		}
		if err := os.WriteFile(filepath.Join(dir, "t0027.pattern"), pattern, 0o644); err != nil {
			t.Fatal(err)
		}
	}, check: func(r *fioSuiteRun) {
		want, ok1 := r.readFile("t0027.pattern")
		got, ok2 := r.readFile("t0027file")
		if ok1 && ok2 && got != want {
			r.fail("t0027file (%d bytes) does not hold the %d bytes of t0027.pattern", len(got), len(want))
		}
	}, notHere: "fio 3.33 writes a different file: it reads only the first 512 bytes of a pattern file (MAX_PATTERN_SIZE) and repeats them, so the file differs from t0027.pattern from byte 513 on; blkq writes the same file as fio 3.33, byte for byte (engine/bufdata_test.go)"},
	{id: 28, job: "t0028-c6cade16.fio"},
	{id: 29, job: "t0029.fio", json: true, check: func(r *fioSuiteRun) {
		// The read job's two loops read 4 KiB each, and its verify reads
		// once: 8 KiB in all.
		r.wantKiB(1, "read", 8)
	}, notHere: "fio 3.33 reads 4 KiB in the read job, not 8"},
	{id: 30, job: "t0030.fio", args: []string{"--bandwidth-log"}},
	{id: 31, job: "t0031.fio", pre: "t0031-pre.fio"},
	{id: 33, job: "t0033.fio", check: func(r *fioSuiteRun) {
		r.firstLineMatches(map[string]string{
			"log_bw.1.log":   `\d+, \d+, \d+, \d+, 0x[\da-f]+\n`,
			"log_clat.2.log": `\d+, \d+, \d+, \d+, 0, \d+\n`,
			"log_iops.3.log": `\d+, \d+, \d+, \d+, \d+, 0x[\da-f]+\n`,
			"log_iops.4.log": `\d+, \d+, \d+, \d+, 0, 0, \d+\n`,
		})
	}, notHere: "fio 3.33 has no log_window_value (fio: unknown option)"},
	{id: 34, job: "t0034.fio", check: func(r *fioSuiteRun) {
		r.firstLineMatches(map[string]string{
			"log_clat.1.log": `\d+, \d+, \d+, \d+, \d+, \d+, \d+\n`,
			"log_slat.1.log": `\d+, \d+, \d+, \d+, \d+, \d+, \d+\n`,
			"log_lat.1.log":  `\d+, \d+, \d+, \d+, \d+, \d+, 0\n`,
			"log_clat.2.log": `\d+, \d+, \d+, \d+, 0, 0, \d+, 0\n`,
			"log_bw.3.log":   `\d+, \d+, \d+, \d+, \d+, \d+, 0\n`,
			"log_iops.3.log": `\d+, \d+, \d+, \d+, \d+, \d+, 0\n`,
		})
	}, notHere: "fio 3.33 has no log_issue_time (fio: unknown option)"},
	{id: 35, job: "t0035.fio", notHere: "fio 3.33 has no dircreate, dirstat or dirdelete engine"},
	{id: 36, job: "t0036-post.fio", pre: "t0036-pre.fio"},
	{id: 37, job: "t0037-post.fio", pre: "t0037-pre.fio"},
	{id: 38, job: "t0038-397f1338.fio", setup: func(t *testing.T, dir string) {
		// The harness copies the iolog next to the job's outputs.
		b, err := os.ReadFile(filepath.Join(fioSuiteDir, "t0038.iolog"))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "t0038.iolog"), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}, notHere: "fio 3.33 cannot replay the iolog's trims (stderr: bad ddir: 2)"},
}

// fioSuiteDir holds fio's job files.
const fioSuiteDir = "../../testdata/fio-tests"

// wantKiB checks the io_kbytes of direction dir of job i.
func (r *fioSuiteRun) wantKiB(i int, dir string, want float64) {
	if got := r.num(r.job(i, dir), "io_kbytes"); got != want {
		r.fail("job %d %s io_kbytes %v; want %v", i+1, dir, got, want)
	}
}

// latenciesAddUp: mean submission plus mean completion latency is the
// mean total latency, within 1 ns (t0015–t0017).
func (r *fioSuiteRun) latenciesAddUp() {
	rd := r.job(0, "read")
	slat, clat, lat := r.num(rd, "slat_ns", "mean"), r.num(rd, "clat_ns", "mean"), r.num(rd, "lat_ns", "mean")
	if math.Abs(slat+clat-lat) > 1 {
		r.fail("mean slat %.3f + clat %.3f = %.3f; lat %.3f", slat, clat, slat+clat, lat)
	}
}

// iopsSums adds the IOPS of the first n[k] samples of job k+1's IOPS log
// prefix_iops.(k+1).log.
func (r *fioSuiteRun) iopsSums(prefix string, n ...int) []float64 {
	sums := make([]float64, len(n))
	for k, want := range n {
		if want == 0 {
			continue
		}
		rows := r.logLines(fmt.Sprintf("%s_iops.%d.log", prefix, k+1))
		if len(rows) < want {
			r.fail("%s_iops.%d.log has %d samples; want at least %d", prefix, k+1, len(rows), want)
			return nil
		}
		for _, row := range rows[:want] {
			sums[k] += float64(row[1])
		}
	}
	return sums
}

// randomPassCoversOnce (t0020, t0021): a random read of 1 MiB in 4 KiB
// blocks reads each of the 256 blocks once, in an order that a runs test
// does not tell from random (p >= 0.05).
func (r *fioSuiteRun) randomPassCoversOnce() {
	rows := r.logLines("test_bw.log")
	var blocks []float64
	seen := map[int64]bool{}
	for _, row := range rows {
		blocks = append(blocks, float64(row[4])/4096)
		seen[row[4]/4096] = true
	}
	if len(blocks) != 256 {
		r.fail("%d offsets; want 256", len(blocks))
	}
	var missing []int64
	for b := int64(0); b < 256; b++ {
		if !seen[b] {
			missing = append(missing, b*4096)
		}
	}
	if len(missing) > 0 {
		r.fail("%d offsets never read, the first %v", len(missing), missing[:min(len(missing), 4)])
	}
	if len(blocks) > 1 {
		if p := runsTestP(blocks); p < 0.05 {
			r.fail("runs test p = %.4f; want >= 0.05", p)
		}
	}
}

// runsTestP is the two-sided p-value of the Wald–Wolfowitz runs test of
// xs against its mean (values at or above it are one kind, below it the
// other), with the normal approximation, as the harness's runs test
// applies it to 256 values (no continuity correction at 50 or more).
func runsTestP(xs []float64) float64 {
	mean := 0.0
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	var above, runs float64
	for i, x := range xs {
		if x >= mean {
			above++
		}
		if i == 0 || (x >= mean) != (xs[i-1] >= mean) {
			runs++
		}
	}
	n := float64(len(xs))
	pn := above * (n - above)
	if pn == 0 {
		return 0 // one kind only: no randomness to speak of
	}
	wantRuns := 2*pn/n + 1
	variance := 2 * pn * (2*pn - n) / (n * n * (n - 1))
	z := runs - wantRuns
	if n < 50 {
		switch {
		case z > 0.5:
			z -= 0.5
		case z < 0.5:
			z += 0.5
		default:
			z = 0
		}
	}
	z /= math.Sqrt(variance)
	return math.Erfc(math.Abs(z) / math.Sqrt2)
}

// trimThenWrite (t0023, t0024): in a per-I/O bandwidth log with offsets,
// every write follows a trim of the same size at the same offset, and
// every trim follows a write (or starts the log).
func (r *fioSuiteRun) trimThenWrite(name string) {
	const dirWrite, dirTrim = 1, 2
	prevDir, prevBS, prevOff := int64(dirWrite), int64(0), int64(0)
	for _, row := range r.logLines(name) {
		dir, bs, off := row[2], row[3], row[4]
		switch {
		case prevDir == dirWrite && dir != dirTrim:
			r.fail("%s: %v: an I/O after a write that is not a trim", name, row)
			return
		case prevDir != dirWrite && dir != dirWrite:
			r.fail("%s: %v: a trim not followed by a write", name, row)
			return
		case prevDir != dirWrite && (bs != prevBS || off != prevOff):
			r.fail("%s: %v: the write is not the trim's %d bytes at %d", name, row, prevBS, prevOff)
			return
		}
		prevDir, prevBS, prevOff = dir, bs, off
	}
}

// trimwriteCovers (t0023, t0024): the jobs with a random map touch every
// sector of the 1 MiB file, at offsets and sizes in whole units of their
// smallest block size.
func (r *fioSuiteRun) trimwriteCovers() {
	for _, c := range []struct {
		name string
		unit int64
	}{{"basic_bw.log", 4096}, {"bs_bw.log", 8192}, {"bsrange_bw.log", 512}, {"bssplit_bw.log", 512}} {
		touched := map[int64]bool{}
		for _, row := range r.logLines(c.name) {
			bs, off := row[3], row[4]
			if off%c.unit != 0 || bs%c.unit != 0 {
				r.fail("%s: %d bytes at %d: not in units of %d", c.name, bs, off, c.unit)
				break
			}
			for u := off / c.unit; u < (off+bs)/c.unit; u++ {
				touched[u] = true
			}
		}
		if want := int64(1<<20) / c.unit; int64(len(touched)) != want {
			r.fail("%s: %d units of %d bytes touched; want %d", c.name, len(touched), c.unit, want)
		}
	}
}

// firstLineMatches (t0033, t0034): each log's first line matches its
// pattern from the start.
func (r *fioSuiteRun) firstLineMatches(patterns map[string]string) {
	for name, p := range patterns {
		text, ok := r.readFile(name)
		if !ok {
			continue
		}
		line, _, _ := strings.Cut(text, "\n")
		if !regexp.MustCompile(`^` + p).MatchString(line + "\n") {
			r.fail("%s: first line %q does not match %s", name, line, p)
		}
	}
}

// runFioSuiteJob runs one job file in dir as the harness runs fio, and
// records its exit status, standard error and JSON report.
func runFioSuiteJob(t *testing.T, bin, dir string, tc fioSuiteTest, job string, want fioOutcome, r *fioSuiteRun) {
	format := "normal"
	if tc.json {
		format = "json"
	}
	output := job + ".output"
	args := []string{"--max-jobs=16", "--output-format=" + format, "--output=" + output}
	if tc.cap != "" {
		args = append(args, "--size-cap="+tc.cap)
	}
	abs, err := filepath.Abs(filepath.Join(fioSuiteDir, job))
	if err != nil {
		t.Fatal(err)
	}
	args = append(append(args, abs), tc.args...)
	script, err := filepath.Abs("../../scripts/blkq-as-fio")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(script, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "BLKQ="+bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	r.status, r.stderr = 0, stderr.String()
	if ee, ok := err.(*exec.ExitError); ok {
		r.status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	switch want {
	case fioSucceeds:
		if r.status != 0 {
			r.fail("%s: exit status %d", job, r.status)
		}
		if r.stderr != "" {
			r.fail("%s: standard error not empty: %q", job, r.stderr)
		}
	case fioFails:
		if r.status == 0 {
			r.fail("%s: exit status 0; want a failure", job)
		}
		if r.stderr == "" {
			r.fail("%s: nothing on standard error; want the failure's message", job)
		}
	}
	if !tc.json || len(r.failures) > 0 || job != tc.job {
		return
	}
	// As the harness: the JSON is from the line "{" to the last line "}".
	text, ok := r.readFile(output)
	if !ok {
		return
	}
	lines := strings.Split(text, "\n")
	first, last := -1, -1
	for i, l := range lines {
		if l == "{" && first < 0 {
			first = i
		}
		if l == "}" {
			last = i
		}
	}
	if first < 0 || last < first || json.Unmarshal([]byte(strings.Join(lines[first:last+1], "\n")), &r.json) != nil {
		r.fail("%s: unable to decode the JSON report", output)
	}
}

// TestFioSuite runs fio's t/jobs tests with blkq standing in for fio.
func TestFioSuite(t *testing.T) {
	bin := buildBlkq(t)
	for _, tc := range fioSuite {
		t.Run(fmt.Sprintf("t%04d", tc.id), func(t *testing.T) {
			if tc.notHere != "" {
				t.Logf("%s: not run: fio 3.33's harness does not pass it here either: %s", tc.job, tc.notHere)
				return
			}
			t.Parallel()
			dir := t.TempDir()
			if tc.setup != nil {
				tc.setup(t, dir)
			}
			r := &fioSuiteRun{dir: dir}
			if tc.pre != "" {
				runFioSuiteJob(t, bin, dir, tc, tc.pre, fioSucceeds, r)
				if len(r.failures) > 0 {
					r.failures = append([]string{"precondition step failed"}, r.failures...)
				}
			}
			if len(r.failures) == 0 {
				runFioSuiteJob(t, bin, dir, tc, tc.job, tc.outcome, r)
			}
			if len(r.failures) == 0 && tc.check != nil {
				tc.check(r)
			}
			known, isKnown := fioKnownFailures[tc.id]
			switch {
			case isKnown && len(r.failures) == 0:
				t.Errorf("%s passes, but fioKnownFailures says it fails (%s): take it off the table", tc.job, known)
			case isKnown:
				t.Logf("%s: known failure (%s):\n\t%s", tc.job, known, strings.Join(r.failures, "\n\t"))
			case len(r.failures) > 0:
				t.Errorf("%s:\n\t%s", tc.job, strings.Join(r.failures, "\n\t"))
			}
		})
	}
}

// TestRunsTestP checks the runs test on sequences whose answer is plain:
// strict alternation and two long runs are far from random; a sequence
// with the expected number of runs is not.
func TestRunsTestP(t *testing.T) {
	alternating, halves := make([]float64, 256), make([]float64, 256)
	for i := range alternating {
		alternating[i] = float64(i % 2)
		halves[i] = float64(i / 128)
	}
	if p := runsTestP(alternating); p > 1e-6 {
		t.Errorf("alternating: p = %g; want ~0", p)
	}
	if p := runsTestP(halves); p > 1e-6 {
		t.Errorf("two runs: p = %g; want ~0", p)
	}
	// 128 highs and 128 lows in 129 runs: the expected count (2*128*128/256 + 1).
	mid := make([]float64, 0, 256)
	for k := 0; k < 64; k++ {
		mid = append(mid, 1, 1, 0, 0)
	}
	mid = append([]float64{0}, mid[:255]...)
	if p := runsTestP(mid); p < 0.5 {
		t.Errorf("expected run count: p = %g; want near 1", p)
	}
	// Against statsmodels' runstest_1samp (Debian's 0.13.5), which the
	// harness calls, on two sequences of 256 values.
	stride, quad := make([]float64, 256), make([]float64, 256)
	for i := range stride {
		stride[i] = float64(i * 97 % 256)
		quad[i] = float64((7*i*i + 3*i) % 256)
	}
	for _, c := range []struct {
		name string
		xs   []float64
		want float64
	}{{"i*97 mod 256", stride, 3.9209640086700686e-16}, {"7i²+3i mod 256", quad, 0.452366884350511}} {
		if p := runsTestP(c.xs); math.Abs(p-c.want) > 1e-9*c.want {
			t.Errorf("%s: p = %g; statsmodels gives %g", c.name, p, c.want)
		}
	}
}
