package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = cmdRun(args, &o, &e)
	return o.String(), e.String(), err
}

func TestDefaultJobPrintsReport(t *testing.T) {
	out, _, err := runCLI(t, "--runtime-cap=2s")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seq-reader: (groupid=0", "rand-writer: (groupid=1", "Run status group 0", "Disk stats (read/write):", "blkq     : merges back=", "Jain's fairness index"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestJSONOutput(t *testing.T) {
	out, _, err := runCLI(t, "--runtime-cap=1s", "--output-format=json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Version string `json:"fio version"`
		Jobs    []struct {
			Name string `json:"jobname"`
			Read struct {
				IOBytes int64 `json:"io_bytes"`
			} `json:"read"`
			Blkq map[string]any `json:"blkq"`
		} `json:"jobs"`
		DiskUtil []map[string]any `json:"disk_util"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if len(v.Jobs) != 5 || v.Jobs[0].Read.IOBytes == 0 || v.Jobs[0].Blkq == nil || len(v.DiskUtil) != 1 {
		t.Fatalf("unexpected JSON: %+v", v)
	}
}

func TestParseOnlyAndErrors(t *testing.T) {
	corpus := "../../testdata/fio-3.33/"
	if _, _, err := runCLI(t, "--parse-only", corpus+"tiobench-example.fio"); err != nil {
		t.Fatalf("--parse-only on a corpus file: %v", err)
	}
	// An option that changes nothing on blkq's devices is ignored
	// silently, and reported once by name with --warnings; one blkq
	// cannot run is an error naming its line.
	job := filepath.Join(t.TempDir(), "j.fio")
	if err := os.WriteFile(job, []byte("[global]\nsize=1m\n[a]\ncpus_allowed=0\n[b]\ncpus_allowed=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, err := runCLI(t, "--parse-only", job); err != nil || errOut != "" {
		t.Fatalf("an inert option: err=%v stderr=%q, want silence", err, errOut)
	}
	_, errOut, err := runCLI(t, "--parse-only", "--warnings", job)
	if err != nil || strings.Count(errOut, `ignoring option "cpus_allowed"`) != 1 {
		t.Fatalf("--warnings: inert option not reported once by name: err=%v stderr=%q", err, errOut)
	}
	refused := filepath.Join(t.TempDir(), "r.fio")
	os.WriteFile(refused, []byte("[a]\nsize=1m\nlockfile=exclusive\n"), 0o644)
	if _, _, err := runCLI(t, "--parse-only", refused); err == nil || !strings.Contains(err.Error(), "r.fio:3") || !strings.Contains(err.Error(), "lockfile") {
		t.Fatalf("a refused option: want an error naming r.fio:3 and lockfile, got %v", err)
	}
	_, _, err = runCLI(t, "--parse-only", corpus+"nbd.fio")
	if err == nil || !strings.Contains(err.Error(), "ioengine=nbd") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("nbd.fio: want one line naming ioengine=nbd, got %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.fio")
	os.WriteFile(bad, []byte("[a]\nrw=read\nbogus_option=1\n"), 0o644)
	_, _, err = runCLI(t, bad)
	if err == nil || !strings.Contains(err.Error(), "bad.fio:3") || !strings.Contains(err.Error(), "bogus_option") {
		t.Fatalf("unknown option: want an error naming bad.fio:3 and the option, got %v", err)
	}
	if _, _, err := runCLI(t, "--output-format=xml"); err == nil {
		t.Fatal("--output-format=xml accepted")
	}
	if _, _, err := runCLI(t, "--device=tape:0", "--runtime-cap=1s"); err == nil {
		t.Fatal("unknown device accepted")
	}
}

// TestSeveralJobFilesOneRun: like fio, several job files make one run and
// one JSON document.
func TestSeveralJobFilesOneRun(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.fio"), filepath.Join(dir, "b.fio")
	os.WriteFile(a, []byte("[a]\nrw=read\nsize=1m\n"), 0o644)
	os.WriteFile(b, []byte("[b]\nrw=write\nsize=1m\n"), 0o644)
	out, _, err := runCLI(t, "--output-format=json", a, b)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Jobs []struct {
			Name  string `json:"jobname"`
			Group int    `json:"groupid"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("two job files did not give one JSON document: %v", err)
	}
	if len(v.Jobs) != 2 || v.Jobs[0].Name != "a" || v.Jobs[1].Name != "b" || v.Jobs[1].Group != 1 {
		t.Fatalf("jobs %+v, want a (group 0) and b (group 1)", v.Jobs)
	}
}

// TestFailedJobExitsNonZero: a job whose I/O fails makes the run fail
// after the report is written, as with fio; --output is left untouched by
// a run that cannot start.
func TestFailedJobExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bs.fio")
	os.WriteFile(bad, []byte("[j]\nrw=read\nbs=1000\nsize=1m\n"), 0o644)
	outFile := filepath.Join(dir, "report.txt")
	os.WriteFile(outFile, []byte("earlier report"), 0o644)
	_, _, err := runCLI(t, "--output", outFile, bad)
	if err == nil || !strings.Contains(err.Error(), "bs=1000") || !strings.Contains(err.Error(), "bs.fio:1") {
		t.Fatalf("bs=1000: want an error naming bs.fio:1 and bs=1000, got %v", err)
	}
	if b, _ := os.ReadFile(outFile); string(b) != "earlier report" {
		t.Fatalf("--output was overwritten by a failed run: %q", b)
	}
}

// TestTraceWriteErrorStillPrintsReport: a --trace that cannot be written
// (ENOSPC: /dev/full) fails run and replay with the trace's error, after
// the report of the run, which ran and whose figures are true.
func TestTraceWriteErrorStillPrintsReport(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI has Linux's /dev/full:", err)
		}
		t.Skip("no /dev/full:", err)
	}
	out, _, err := runCLI(t, "--runtime-cap=1s", "--trace", "/dev/full")
	if err == nil || !strings.Contains(err.Error(), "--trace /dev/full") || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("run: err = %v, want the trace's ENOSPC", err)
	}
	if !strings.Contains(out, "Run status group 0") || !strings.Contains(out, "Disk stats (read/write):") {
		t.Errorf("run: no report printed:\n%s", out)
	}
	var o, e bytes.Buffer
	err = cmdReplay([]string{"--trace", "/dev/full", "../../testdata/traces/mqsim-tpcc-small.trace"}, &o, &e)
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("replay: err = %v, want the trace's ENOSPC", err)
	}
	if !strings.Contains(o.String(), "issued rwts: total=4381,2618,0,0") {
		t.Errorf("replay: no report of the whole trace printed:\n%s", o.String())
	}
}
