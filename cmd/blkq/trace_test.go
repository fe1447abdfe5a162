package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/trace"
)

func traceCLI(t *testing.T, stdin []byte, args ...string) (string, string, error) {
	t.Helper()
	var o, e bytes.Buffer
	err := cmdTrace(args, bytes.NewReader(stdin), &o, &e)
	return o.String(), e.String(), err
}

// TestRunTraceAndPrint: blkq run --trace writes a trace that blkq trace
// print (and Debian's blkparse, where installed) prints.
func TestRunTraceAndPrint(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "run.blktrace.0")
	if _, _, err := runCLI(t, "--runtime-cap=500ms", "--trace", file, "../../testdata/fio-3.33/fio-rand-read.fio"); err != nil {
		t.Fatal(err)
	}
	recs, err := trace.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	names := trace.Names(recs)
	if len(recs) < 100 || names[1000] != "file1" {
		t.Fatalf("%d records, names %v", len(recs), names)
	}
	var want bytes.Buffer
	trace.Print(&want, recs)
	trace.PrintSummary(&want, recs, "run")
	for _, arg := range []string{file, filepath.Join(dir, "run")} {
		out, _, err := traceCLI(t, nil, "print", arg)
		if err != nil || out != want.String() {
			t.Fatalf("trace print %s: %v\n%.300s", arg, err, out)
		}
	}
	data, _ := os.ReadFile(file)
	out, _, err := traceCLI(t, data, "print", "-")
	if err != nil || !strings.Contains(out, "Events (8,0): ") {
		t.Fatalf("trace print -: %v\n%.300s", err, out)
	}
	out, _, err = traceCLI(t, nil, "print", "--no-summary", file)
	if err != nil || strings.Contains(out, "Throughput") || !strings.HasPrefix(out, "  8,0    0        1     0.000000000  1000  Q   R ") {
		t.Fatalf("--no-summary: %v\n%.300s", err, out)
	}

	bin, err := exec.LookPath("blkparse")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("blkparse not installed (apt-get install blktrace); CI must run this test")
		}
		t.Skip("blkparse not installed")
	}
	cmd := exec.Command(bin, "-i", "run.blktrace.0")
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil || e.Len() > 0 {
		t.Fatalf("blkparse: %v\n%s", err, e.String())
	}
	got := strings.Replace(o.String(), "Input file run.blktrace.0 added\n", "", 1)
	if got != want.String() {
		t.Fatalf("blkparse printed something else than blkq trace print")
	}
}

func TestTraceCLIErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "short.blktrace.0")
	if _, _, err := runCLI(t, "--runtime-cap=100ms", "--trace", file, "../../testdata/fio-3.33/fio-rand-read.fio"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, data[:len(data)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "want a subcommand"},
		{[]string{"frob"}, `unknown subcommand "frob"`},
		{[]string{"print"}, "want one trace file"},
		{[]string{"print", filepath.Join(dir, "none")}, "no such file"},
		{[]string{"print", file}, file + ": blktrace: record "},
	} {
		_, _, err := traceCLI(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("trace %v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, _, err := traceCLI(t, []byte("not a trace at all, not at all, no, not a trace, not one bit"), "print", "-"); err == nil || !strings.Contains(err.Error(), "standard input: blktrace: record 0 at byte 0") {
		t.Errorf("stdin: %v", err)
	}
	if _, _, err := runCLI(t, "--runtime-cap=100ms", "--trace", filepath.Join(dir, "no", "dir", "x")); err == nil || !strings.Contains(err.Error(), "--trace") {
		t.Errorf("--trace into a missing directory: %v", err)
	}
}
