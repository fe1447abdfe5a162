package main

// fio's command line, side by side with Debian's fio 3.33: the same
// arguments to fio and to blkq run make the same jobs (names, global and
// job options, bytes moved, on fio's null engine), fio's terse output and
// blkq's have the same fields, and --parse-only accepts and refuses the
// same command lines.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/report"
)

// needFio returns fio's path; it fails under CI=true without fio, skips
// elsewhere.
func needFio(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("fio")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fio is not installed (test.sh installs it): %v", err)
		}
		t.Skip("fio is not installed")
	}
	return p
}

// runFio runs fio with args in dir, stdin as its standard input, and
// returns its stdout and whether it succeeded.
func runFio(t *testing.T, dir, stdin string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command(needFio(t), args...)
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(stdin)
	out, err := cmd.Output()
	return string(out), err == nil
}

// runBoth runs fio with args and blkq run with extra then args, both in
// dir, and returns their standard outputs; it fails the test if either
// fails.
func runBoth(t *testing.T, dir string, extra, args []string) (fioOut, blkqOut string) {
	t.Helper()
	fioOut, ok := runFio(t, dir, "", args...)
	if !ok {
		t.Fatalf("fio %s failed", strings.Join(args, " "))
	}
	var out, errOut strings.Builder
	if err := cmdRun(append(append([]string{}, extra...), args...), &out, &errOut); err != nil {
		t.Fatalf("blkq run %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return fioOut, out.String()
}

// jobsSummary is what a JSON report says of the jobs a command line made.
type jobsSummary struct {
	Global map[string]string `json:"global options"`
	Jobs   []struct {
		Name    string            `json:"jobname"`
		Options map[string]string `json:"job options"`
		Read    struct {
			Bytes int64 `json:"io_bytes"`
		} `json:"read"`
		Write struct {
			Bytes int64 `json:"io_bytes"`
		} `json:"write"`
	} `json:"jobs"`
}

func summary(t *testing.T, who, js string) jobsSummary {
	t.Helper()
	var s jobsSummary
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("%s's JSON: %v\n%.300s", who, err, js)
	}
	return s
}

const twoJobs = "[global]\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\n"

// TestCommandLineJobsAsFio: job options as flags, "-" for standard input,
// --section (and its order on the command line) and --output, compared
// with fio's JSON for the same arguments.
func TestCommandLineJobsAsFio(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "two.fio")
	if err := os.WriteFile(job, []byte(twoJobs), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--name=x", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=16m"},
		{"--bs=8k", "--name=a", "--rw=randread", "--size=1m", "--ioengine=null", "--name=b", "--rw=write", "--ioengine=null", "--size", "2m"},
		{"--ioengine=null", "--size=1m", "--name=global", "--bs=16k", "--name=a", "-rw=write"},
		{"--bs=8k", "--ioengine=null", job},
		{"--ioengine=null", "--size=1m", "--section=b", job},
		{"--ioengine=null", "-"},
		{"--ioengine=null", "--size=1m", "--name=x", "--section=y"},
		{"--ioengine=null", "--size=1m", "--section=y", "--name=x", "--rw=write", "--name=y"},
	} {
		name := strings.Join(args, " ")
		// First: fio prints the normal output's job line of a job that
		// the command line defines before --output-format.
		args := append([]string{"--output-format=json"}, args...)
		fioOut, ok := runFio(t, dir, twoJobs, args...)
		if !ok {
			t.Fatalf("fio %s failed", name)
		}
		var out, errOut strings.Builder
		if err := cmdLine("run", args, strings.NewReader(twoJobs), &out, &errOut); err != nil {
			t.Errorf("blkq run %s: %v\n%s", name, err, errOut.String())
			continue
		}
		f, b := summary(t, "fio", fioOut), summary(t, "blkq", out.String())
		if !mapsEqual(f.Global, b.Global) {
			t.Errorf("%s: global options %v, fio %v", name, b.Global, f.Global)
		}
		if len(f.Jobs) != len(b.Jobs) {
			t.Errorf("%s: %d jobs, fio %d", name, len(b.Jobs), len(f.Jobs))
			continue
		}
		for i := range f.Jobs {
			fj, bj := f.Jobs[i], b.Jobs[i]
			if fj.Name != bj.Name || !mapsEqual(fj.Options, bj.Options) || fj.Read.Bytes != bj.Read.Bytes || fj.Write.Bytes != bj.Write.Bytes {
				t.Errorf("%s: job %d\n blkq %s %v read %d write %d\n fio  %s %v read %d write %d", name, i,
					bj.Name, bj.Options, bj.Read.Bytes, bj.Write.Bytes, fj.Name, fj.Options, fj.Read.Bytes, fj.Write.Bytes)
			}
		}
	}
	// --output: the report goes to the file, nothing to stdout, in both.
	args := []string{"--output-format=json", "--name=x", "--ioengine=null", "--size=1m"}
	fioOut, ok := runFio(t, dir, "", append(args, "--output="+filepath.Join(dir, "fio.json"))...)
	var out strings.Builder
	err := cmdLine("run", append(args, "--output="+filepath.Join(dir, "blkq.json")), nil, &out, new(strings.Builder))
	fj, _ := os.ReadFile(filepath.Join(dir, "fio.json"))
	bj, _ := os.ReadFile(filepath.Join(dir, "blkq.json"))
	if !ok || err != nil || fioOut != "" || out.Len() != 0 || summary(t, "fio", string(fj)).Jobs[0].Name != summary(t, "blkq", string(bj)).Jobs[0].Name {
		t.Errorf("--output: fio ok %v stdout %q; blkq err %v stdout %q", ok, fioOut, err, out.String())
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestParseOnlyAsFio: fio --parse-only and blkq run --parse-only accept
// and refuse the same command lines, printing nothing on success.
func TestParseOnlyAsFio(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--name=x", "--rw=randread", "--bs=4k", "--size=16m"},
		{"--name=x", "--rw=bogus"},
		{"--readonly", "--name=x", "--rw=write"},
		{"--readonly", "--name=x", "--rw=randrw"},
		{"--readonly", "--name=x", "--rw=read", "--size=1m"},
		{"--name=x", "--bogusopt=1"},
		{"--name=x", "--size"},
		// Sized: blkq's --parse-only also plans the run, and a job without
		// a size fails there (fio's would fail when run).
		{"--name=global", "--bs=4k", "--size=1m", "--name=x"},
		{"--size=1m", "--name=a", "--iodepth", "8", "--name=b", "--numjobs=2"},
	} {
		name := strings.Join(args, " ")
		args := append([]string{"--parse-only"}, args...)
		fioOut, fioOK := runFio(t, dir, "", args...)
		var out strings.Builder
		err := cmdRun(args, &out, new(strings.Builder))
		if (err == nil) != fioOK {
			t.Errorf("--parse-only %s: blkq err %v, fio ok %v", name, err, fioOK)
		}
		if fioOK && (out.Len() != 0 || fioOut != "") {
			t.Errorf("--parse-only %s: printed %q (fio %q)", name, out.String(), fioOut)
		}
	}
}

// terseKind is what a terse field holds: "P" a percentile (P%=V), "%" a
// percentage, "f" a decimal, "i" an integer, "s" text.
func terseKind(f string) string {
	switch {
	case regexp.MustCompile(`^[0-9.]+%=\d+$`).MatchString(f):
		return "P"
	case regexp.MustCompile(`^[0-9.]+%$`).MatchString(f):
		return "%"
	case regexp.MustCompile(`^-?\d+\.\d+$`).MatchString(f):
		return "f"
	case regexp.MustCompile(`^-?\d+$`).MatchString(f):
		return "i"
	}
	return "s"
}

// TestTerseAsFio: for the same job on fio's null engine, blkq's terse
// line has fio's fields, each of the same kind, with the same
// percentile labels and the same amounts of I/O; blkq adds its device's
// 9 disk fields (fio's null engine has no disk).
func TestTerseAsFio(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--name=x", "--ioengine=null", "--size=1m", "--minimal"},
		{"--name=rw", "--ioengine=null", "--rw=randrw", "--size=2m", "--iodepth=4", "--output-format=terse",
			"--lat_percentiles=1", "--percentile_list=50:99:10", "--description=mixed"},
	} {
		name := strings.Join(args, " ")
		fioOut, blkqOut := runBoth(t, dir, nil, args)
		ff := strings.Split(strings.TrimSuffix(fioOut, "\n"), ";")
		bf := strings.Split(strings.TrimSuffix(blkqOut, "\n"), ";")
		if ff[len(ff)-1] == "mixed" {
			ff = ff[:len(ff)-1]
			if bf[len(bf)-1] != "mixed" {
				t.Errorf("%s: blkq's last field %q, want the description", name, bf[len(bf)-1])
				continue
			}
			bf = bf[:len(bf)-1]
		}
		if len(bf) != len(ff)+9 || strings.Count(blkqOut, "\n") != 1 {
			t.Fatalf("%s: blkq %d fields, fio %d (+9 for blkq's disk)\nblkq %s\nfio  %s", name, len(bf), len(ff), blkqOut, fioOut)
		}
		for i, f := range ff {
			b := bf[i]
			switch {
			case i == 1: // the program's version
			case terseKind(f) != terseKind(b):
				t.Errorf("%s: field %d is %q, fio's %q", name, i+1, b, f)
			case terseKind(f) == "P" && strings.Split(f, "=")[0] != strings.Split(b, "=")[0]:
				t.Errorf("%s: field %d is percentile %q, fio's %q", name, i+1, b, f)
			case i == 0 || i == 2 || i == 3 || i == 4:
				// terse version, name, group, error
				if f != b {
					t.Errorf("%s: field %d is %q, fio's %q", name, i+1, b, f)
				}
			}
		}
		// KiB read plus KiB written: the job's size (the mix is random).
		if atoi(ff[5])+atoi(ff[46]) != atoi(bf[5])+atoi(bf[46]) || atoi(bf[5])+atoi(bf[46]) == 0 {
			t.Errorf("%s: KiB read+written %s+%s, fio %s+%s", name, bf[5], bf[46], ff[5], ff[46])
		}
		disk := bf[len(ff):]
		if terseKind(disk[0]) != "s" || terseKind(disk[8]) != "%" {
			t.Errorf("%s: disk fields %v: want name, 7 counts, util%%", name, disk)
		}
	}
}

// TestTerseVersionsAsFio: for each of fio's terse versions (2 to 5), the
// same null-engine jobs through fio and blkq give lines of the same
// layout: the same number of fields (blkq adds its device's 9 disk
// fields from version 3 on; version 2 has none), each field of the same
// kind, the same header fields and percentile labels, the description
// where fio puts it, and the exact KiB of each direction (a random mix's
// read and write KiB add up to the size, trim's are the size).
func TestTerseVersionsAsFio(t *testing.T) {
	dir := t.TempDir()
	jobs := []string{"--ioengine=null", "--description=mixed",
		"--name=rw", "--rw=randrw", "--size=2m", "--iodepth=4", "--name=trim", "--rw=trim", "--size=1m"}
	for _, ver := range []int{2, 3, 4, 5} {
		args := append([]string{"--minimal", fmt.Sprintf("--terse-version=%d", ver)}, jobs...)
		fioOut, blkqOut := runBoth(t, dir, nil, args)
		lines := func(s string) []string {
			if ver == 2 { // the description is on a line of its own
				s = strings.ReplaceAll(s, "\n;mixed\n", ";mixed\n")
			}
			return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
		}
		fl, bl := lines(fioOut), lines(blkqOut)
		if len(fl) != 2 || len(bl) != 2 {
			t.Fatalf("v%d: blkq %d lines, fio %d, want 2 (v2: 4):\nblkq %s\nfio  %s", ver, len(bl), len(fl), blkqOut, fioOut)
		}
		head, per, disk := 5, 41, 9
		if ver == 2 {
			head, disk = 4, 0
		}
		if ver == 5 {
			per = 47
		}
		kib := func(f []string, d int) int { return atoi(f[head+d*per]) }
		for i := range fl {
			ff, bf := strings.Split(fl[i], ";"), strings.Split(bl[i], ";")
			if ff[len(ff)-1] != "mixed" || bf[len(bf)-1] != "mixed" {
				t.Errorf("v%d job %d: last fields %q, %q (fio), want the description", ver, i, bf[len(bf)-1], ff[len(ff)-1])
				continue
			}
			ff, bf = ff[:len(ff)-1], bf[:len(bf)-1]
			if len(bf) != len(ff)+disk {
				t.Fatalf("v%d: blkq %d fields, fio %d (+%d for blkq's disk)\nblkq %s\nfio  %s", ver, len(bf), len(ff), disk, bl[i], fl[i])
			}
			for k, f := range ff {
				b := bf[k]
				switch {
				case ver > 2 && k == 1: // the program's version
				case terseKind(f) != terseKind(b):
					t.Errorf("v%d job %d: field %d is %q, fio's %q", ver, i, k+1, b, f)
				case terseKind(f) == "P" && strings.Split(f, "=")[0] != strings.Split(b, "=")[0]:
					t.Errorf("v%d job %d: field %d is percentile %q, fio's %q", ver, i, k+1, b, f)
				case k < head && f != b: // version, name, group, error
					t.Errorf("v%d job %d: field %d is %q, fio's %q", ver, i, k+1, b, f)
				}
			}
			want := [3]int{kib(ff, 0) + kib(ff, 1), 0, 0}
			got := [3]int{kib(bf, 0) + kib(bf, 1), 0, 0}
			if ver != 3 {
				want[2], got[2] = kib(ff, 2), kib(bf, 2)
			}
			if got != want || got == [3]int{} && (ver != 3 || i == 0) { // v3 has no trim fields

				t.Errorf("v%d job %d: KiB read+write, trim %v, fio %v", ver, i, got, want)
			}
		}
	}
}

// TestBandwidthLogAsFio: fio --bandwidth-log and blkq run --bandwidth-log
// on the same null job write the same three files, agg-read_bw.log,
// agg-write_bw.log and agg-trim_bw.log, each line "ms, KiB/s, direction,
// 0, 0" with the file's direction and times rising; the read file's
// rates are non-zero and the others' zero. (fio samples only while it
// computes its status line: --eta=always makes it; the times and rates
// are each program's own.)
func TestBandwidthLogAsFio(t *testing.T) {
	line := regexp.MustCompile(`^(\d+), (\d+), ([012]), 0, 0$`)
	args := []string{"--bandwidth-log", "--output-format=normal", "--name=r", "--ioengine=null", "--rw=read",
		"--filesize=1T", "--time_based", "--runtime=2s"}
	check := func(who, dir string) {
		for d, name := range []string{"agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"} {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Errorf("%s: %v", who, err)
				continue
			}
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if len(lines) < 2 {
				t.Errorf("%s %s: %d lines, want a line per sample of 2 s", who, name, len(lines))
				continue
			}
			last := -1
			for _, l := range lines {
				m := line.FindStringSubmatch(l)
				switch {
				case m == nil:
					t.Errorf("%s %s: line %q, want \"ms, KiB/s, %d, 0, 0\"", who, name, l, d)
				case atoi(m[3]) != d || atoi(m[1]) <= last || (d == 0) != (atoi(m[2]) > 0):
					t.Errorf("%s %s: line %q after time %d: want direction %d, a later time, a rate only for reads", who, name, l, last, d)
				default:
					last = atoi(m[1])
				}
			}
		}
	}
	fioDir, blkqDir := t.TempDir(), t.TempDir()
	if _, ok := runFio(t, fioDir, "", append([]string{"--eta=always"}, args...)...); !ok {
		t.Fatal("fio failed")
	}
	check("fio", fioDir)
	t.Chdir(blkqDir)
	if err := cmdRun(args, new(strings.Builder), new(strings.Builder)); err != nil {
		t.Fatal(err)
	}
	check("blkq", blkqDir)
}

// statusReports splits the output of a --status-interval run into its
// reports: JSON documents one after another, or normal output's job
// blocks; per report, the first job's read io_bytes (JSON) and its
// runtime in ms.
func statusReports(t *testing.T, who, out string, jsonOut bool) (bytes, runtime []int64) {
	t.Helper()
	if jsonOut {
		dec := json.NewDecoder(strings.NewReader(out))
		for dec.More() {
			var doc struct {
				Jobs []struct {
					Read struct {
						IOBytes int64 `json:"io_bytes"`
						Runtime int64 `json:"runtime"`
					} `json:"read"`
				} `json:"jobs"`
			}
			if err := dec.Decode(&doc); err != nil || len(doc.Jobs) != 1 {
				t.Fatalf("%s: report %d: %v (%d jobs)", who, len(bytes), err, len(doc.Jobs))
			}
			bytes, runtime = append(bytes, doc.Jobs[0].Read.IOBytes), append(runtime, doc.Jobs[0].Read.Runtime)
		}
		return bytes, runtime
	}
	if n := strings.Count(out, "Starting 1 process"); n != 1 {
		t.Errorf("%s: %d \"Starting\" lines, want the header once", who, n)
	}
	for _, m := range regexp.MustCompile(`(?m)^  read: .*/(\d+)msec\)$`).FindAllStringSubmatch(out, -1) {
		runtime = append(runtime, int64(atoi(m[1])))
	}
	if n := strings.Count(out, "\nRun status group 0"); n != len(runtime) {
		t.Errorf("%s: %d job blocks, %d group lines", who, len(runtime), n)
	}
	return nil, runtime
}

// TestStatusIntervalAsFio: fio --status-interval=1 and blkq run
// --status-interval=1 on the same 2 s null job print the report once a
// second and at the end, in the chosen format, each cumulative: in JSON
// one document per report, the bytes and runtime rising, the last the
// whole run's; in normal output the job lines once, then a job block and
// its group per report. (Both run on the wall clock: how many reports
// fall inside 2 s is each run's; 2 or 3.)
func TestStatusIntervalAsFio(t *testing.T) {
	dir := t.TempDir()
	job := []string{"--status-interval=1", "--name=n", "--ioengine=null", "--rw=read", "--size=1g", "--time_based", "--runtime=2s"}
	for _, format := range []string{"json", "normal"} {
		args := append([]string{"--output-format=" + format}, job...)
		fioOut, blkqOut := runBoth(t, dir, nil, args)
		for who, o := range map[string]string{"fio": fioOut, "blkq": blkqOut} {
			bytes, runtime := statusReports(t, who, o, format == "json")
			if len(runtime) < 2 || len(runtime) > 3 {
				t.Errorf("%s %s: %d reports, want 2 or 3 (one a second, and the final)", who, format, len(runtime))
				continue
			}
			for i := 1; i < len(runtime); i++ {
				// The final report may fall in the same ms as the last
				// interim one (a loaded machine runs the timer late).
				last := i == len(runtime)-1
				if runtime[i] < runtime[i-1] || runtime[i] == runtime[i-1] && !last || bytes != nil && bytes[i] < bytes[i-1] {
					t.Errorf("%s %s: report %d: runtime %d ms, bytes %v after %d ms: want cumulative", who, format, i, runtime[i], bytes, runtime[i-1])
				}
			}
			if last := runtime[len(runtime)-1]; last < 2000 || last > 2100 {
				t.Errorf("%s %s: the last report's runtime %d ms, want the whole run's 2 s", who, format, last)
			}
		}
	}
}

// jsonPlusTool returns python3 and fio's tools/fio_jsonplus_clat2csv
// (vendored in report's testdata); it fails the test in CI without them.
func jsonPlusTool(t *testing.T) (py, tool string) {
	t.Helper()
	needFio(t)
	py, err := exec.LookPath("python3")
	if err == nil {
		err = exec.Command(py, "-c", "import six").Run()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 with six is missing (test.sh installs python3-six): %v", err)
		}
		t.Skip("python3 with six is missing")
	}
	tool, err = filepath.Abs("../../report/testdata/fio-tools/fio_jsonplus_clat2csv")
	if err != nil {
		t.Fatal(err)
	}
	return py, tool
}

// jsonPlusCSVs runs fio_jsonplus_clat2csv (and its --validate) on who's
// json+ js in dir and returns the CSVs' header and, per job, its rows,
// checking that each job has one row per distinct bin value of its json+
// (the tool's layout: a row per latency value any of the job's
// histograms holds).
func jsonPlusCSVs(t *testing.T, py, tool, dir, who, js string) (header string, rows []int) {
	t.Helper()
	src := filepath.Join(dir, who+".json")
	if err := os.WriteFile(src, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--validate"}} {
		cmd := exec.Command(py, append([]string{tool, src, filepath.Join(dir, who+".csv")}, extra...)...)
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("fio_jsonplus_clat2csv %v on %s's json+: %v\n%s", extra, who, err, o)
		}
	}
	var doc struct {
		Jobs []map[string]json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	for i, job := range doc.Jobs {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%s_job%d.csv", who, i)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		header = lines[0]
		values := map[string]bool{}
		for _, d := range []string{"read", "write", "trim"} {
			var dir map[string]struct {
				Bins map[string]uint64 `json:"bins"`
			}
			json.Unmarshal(job[d], &dir)
			for _, lat := range dir {
				for v := range lat.Bins {
					values[v] = true
				}
			}
		}
		if len(lines)-1 != len(values) || len(values) == 0 {
			t.Errorf("%s job %d: %d rows, %d distinct bin values in its json+", who, i, len(lines)-1, len(values))
		}
		rows = append(rows, len(lines)-1)
	}
	return header, rows
}

// TestJSONPlusOfARunThroughFiosTool: blkq run's json+ for a two-job run,
// through fio's tools/fio_jsonplus_clat2csv beside fio's json+ for the
// same command line: one CSV per job in both, the same columns, each
// with one row per distinct bin value of its json+ (the rows of the two
// programs differ in number only as far as their latencies do: the CSV of
// the same histograms is byte-identical, see report's
// TestJSONPlusThroughFiosTool), and --validate accepts both.
func TestJSONPlusOfARunThroughFiosTool(t *testing.T) {
	py, tool := jsonPlusTool(t)
	dir := t.TempDir()
	args := []string{"--output-format=json+", "--ioengine=null", "--iodepth=2", "--lat_percentiles=1",
		"--name=a", "--rw=randread", "--size=4m", "--name=b", "--rw=randrw", "--size=2m"}
	fioOut, blkqOut := runBoth(t, dir, nil, args)
	fh, fr := jsonPlusCSVs(t, py, tool, dir, "fio", fioOut)
	bh, br := jsonPlusCSVs(t, py, tool, dir, "blkq", blkqOut)
	if fh != bh || len(fr) != len(br) || len(br) != 2 {
		t.Errorf("blkq: %d CSVs, header %q; fio: %d, %q", len(br), bh, len(fr), fh)
	}
	t.Logf("rows per job: blkq %v, fio %v", br, fr)
}

// TestJSONPlusOfARealFileRun: fio and blkq run the same 4 KiB random-read
// job (psync, direct=1) on a real file; their json+ cannot have the same
// number of histogram bins, hence of fio_jsonplus_clat2csv rows: a bin
// is there for each latency value some read fell into, and the two runs'
// latencies spread differently (two runs here: fio 45-541 us in 100
// bins and 43-2124 us in 106, blkq 61-2152 us in 104 and 56-857 us in
// 112; a value is a row once for clat and lat together). What must agree is the layout, which this
// test checks on both programs' output alike (fio's passing shows the
// checks are fio's own rules): each clat and lat histogram counts every
// read once, its keys are values of fio's bins (PlatValue of their
// PlatIndex), its first and last bins hold min and max, every
// percentile is a bin's value, and fio's tool reads both with the same
// columns and a row per distinct bin value. Exact rows, equal to fio's,
// are checked where the latencies are the same (report's
// TestJSONPlusThroughFiosTool).
func TestJSONPlusOfARealFileRun(t *testing.T) {
	py, tool := jsonPlusTool(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "data")
	args := []string{"--output-format=json+", "--name=r", "--filename=" + file, "--rw=randread", "--bs=4k",
		"--size=4m", "--direct=1", "--ioengine=psync", "--lat_percentiles=1"}
	fioOut, blkqOut := runBoth(t, dir, []string{"--device=file:" + file}, args)
	type lat struct {
		Min, Max    uint64
		N           uint64            `json:"N"`
		Percentiles map[string]uint64 `json:"percentile"`
		Bins        map[string]uint64 `json:"bins"`
	}
	for who, js := range map[string]string{"fio": fioOut, "blkq": blkqOut} {
		var doc struct {
			Jobs []struct {
				Read struct {
					TotalIOs uint64 `json:"total_ios"`
					Clat     lat    `json:"clat_ns"`
					Lat      lat    `json:"lat_ns"`
				} `json:"read"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Jobs) != 1 {
			t.Fatalf("%s: %v (%d jobs)", who, err, len(doc.Jobs))
		}
		rd := doc.Jobs[0].Read
		for name, l := range map[string]lat{"clat_ns": rd.Clat, "lat_ns": rd.Lat} {
			var n uint64
			lo, hi := report.PlatBins, -1
			for k, c := range l.Bins {
				v, err := strconv.ParseUint(k, 10, 64)
				idx := report.PlatIndex(v)
				if err != nil || report.PlatValue(idx) != v || c == 0 {
					t.Errorf("%s %s: bin %q (%d reads) is not a value of fio's bins", who, name, k, c)
				}
				n += c
				lo, hi = min(lo, idx), max(hi, idx)
			}
			if n != 1024 || l.N != n || rd.TotalIOs != n {
				t.Errorf("%s %s: bins count %d reads, N %d, total_ios %d; want 1024 each", who, name, n, l.N, rd.TotalIOs)
			}
			if report.PlatIndex(l.Min) != lo || report.PlatIndex(l.Max) != hi {
				t.Errorf("%s %s: min %d, max %d are not in the first and last bins (%d, %d)", who, name, l.Min, l.Max, report.PlatValue(lo), report.PlatValue(hi))
			}
			for p, v := range l.Percentiles {
				if l.Bins[strconv.FormatUint(v, 10)] == 0 {
					t.Errorf("%s %s: percentile %s = %d, no bin's value", who, name, p, v)
				}
			}
			t.Logf("%s %s: %d bins, %d-%d ns", who, name, len(l.Bins), l.Min, l.Max)
		}
	}
	fh, fr := jsonPlusCSVs(t, py, tool, dir, "fio", fioOut)
	bh, br := jsonPlusCSVs(t, py, tool, dir, "blkq", blkqOut)
	if fh != bh || len(fr) != 1 || len(br) != 1 {
		t.Errorf("blkq: %d CSVs, header %q; fio: %d, %q", len(br), bh, len(fr), fh)
	}
	t.Logf("fio_jsonplus_clat2csv rows: blkq %v, fio %v", br, fr)
}

// TestRunRefusesWhatFioRefuses: a job fio 3.33 refuses when it runs it
// (its option checks: rate with rate_iops, a minimum above its rate,
// zonemode=strided without zonesize and zonesize without it, bssplit
// shares over 100 with two entries to share the rest, zipf's θ of 1,
// normal's σ of 100, a size below the block size such as 50.5%, which
// fio reads as 50 bytes) blkq refuses, and one fio runs (bs=4k-,
// bs=4k-8k, shares over 100, zipf:0, zipf without θ, iodepth=4x) blkq
// runs: the exit status of fio and of blkq run agree on fio's null
// engine. bs=1.5k is the exception: fio runs one-byte I/Os, which blkq
// cannot issue, and says so.
func TestRunRefusesWhatFioRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"--rate_iops=100", "--rate=1m"}, false},
		{[]string{"--rate=1m", "--rate_min=2m"}, false},
		{[]string{"--rate_iops=10", "--rate_iops_min=20"}, false},
		{[]string{"--zonemode=strided"}, false},
		{[]string{"--zonesize=256k"}, false},
		{[]string{"--bssplit=4k/50:8k/60:16k:32k"}, false},
		{[]string{"--random_distribution=zipf:1"}, false},
		{[]string{"--random_distribution=normal:100"}, false},
		{[]string{"--size=50.5%"}, false},
		{[]string{"--rate=1m", "--rate_min=1m", "--runtime=1", "--rate_cycle=5000"}, true},
		{[]string{"--bs=4k-"}, true},
		{[]string{"--bs=4k-8k"}, true},
		{[]string{"--bssplit=4k/50:8k/60"}, true},
		{[]string{"--random_distribution=zipf:0"}, true},
		{[]string{"--random_distribution=zipf"}, true},
		{[]string{"--iodepth=4x"}, true},
		{[]string{"--zonemode=strided", "--zonesize=256k", "--zoneskip=256k"}, true},
	} {
		args := append([]string{"--name=x", "--ioengine=null", "--rw=randread", "--size=1m", "--output-format=terse"}, tc.args...)
		name := strings.Join(tc.args, " ")
		_, fioOK := runFio(t, dir, "", args...)
		var out, errOut strings.Builder
		err := cmdRun(args, &out, &errOut)
		if fioOK != tc.ok || (err == nil) != tc.ok {
			t.Errorf("%s: fio ran %v, blkq ran %v (%v); want both %v", name, fioOK, err == nil, err, tc.ok)
		}
	}
	args := []string{"--name=x", "--ioengine=null", "--rw=read", "--size=4k", "--bs=1.5k", "--output-format=terse"}
	if _, ok := runFio(t, dir, "", args...); !ok {
		t.Errorf("fio refused bs=1.5k, which it reads as 1 byte")
	}
	err := cmdRun(args, new(strings.Builder), new(strings.Builder))
	if err == nil || !strings.Contains(err.Error(), "fio reads it as 1 byte") {
		t.Errorf("bs=1.5k: %v; want an error saying fio reads it as 1 byte", err)
	}
}
