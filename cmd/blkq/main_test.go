package main

import (
	"bytes"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// blkqCLI runs the command line in process and returns its exit status and
// output.
func blkqCLI(args ...string) (status int, stdout, stderr string) {
	var o, e bytes.Buffer
	status = blkqMain(args, strings.NewReader(""), &o, &e)
	return status, o.String(), e.String()
}

// TestUsageErrorsExitTwoAndPrintOnce: a bad flag in any subcommand prints
// the flag package's message once (with the usage) and exits 2; a missing,
// stray or unknown argument prints its error once, also exit 2. Nothing
// goes to stdout.
func TestUsageErrorsExitTwoAndPrintOnce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the error, which must appear exactly once
	}{
		{[]string{"run", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"replay", "--bogus", "x.trace"}, "unknown flag: --bogus"},
		{[]string{"experiment", "--bogus", "list"}, "unknown flag: --bogus"},
		{[]string{"latency", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"trace", "print", "--bogus", "x"}, "unknown flag: --bogus"},
		{[]string{"version", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"run", "--nr-requests=abc"}, `invalid value "abc" for flag --nr-requests`},
		{[]string{"run", "--device", "bogus", "--parse-only"}, `--device="bogus": want sim:hdd, sim:ssd, null or file:PATH`},
		{[]string{"run", "--device", "file:"}, `--device="file:": want`},
		{[]string{"replay", "--device", "sim:floppy", "x.trace"}, `--device="sim:floppy": want`},
		{[]string{"run", "--nr-requests=0"}, "--nr-requests=0: want 1..2048"},
		{[]string{"replay"}, "replay: want one trace file, got 0 arguments"},
		{[]string{"replay", "a", "b"}, "replay: want one trace file, got 2 arguments"},
		{[]string{"experiment"}, "want one experiment name"},
		{[]string{"experiment", "no-such"}, `unknown experiment "no-such"`},
		{[]string{"latency", "stray"}, `latency: no arguments wanted, got "stray"`},
		{[]string{"trace"}, "trace: want a subcommand"},
		{[]string{"trace", "frob"}, `unknown subcommand "frob"`},
		{[]string{"trace", "print"}, "trace print: want one trace file"},
		{[]string{"version", "extra"}, `version: no arguments wanted, got "extra"`},
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"help", "frob"}, `want one command name, got "frob"`},
	} {
		status, out, errOut := blkqCLI(tc.args...)
		if status != 2 {
			t.Errorf("blkq %v: exit %d, want 2\n%s", tc.args, status, errOut)
		}
		if n := strings.Count(errOut, tc.want); n != 1 {
			t.Errorf("blkq %v: %q printed %d times, want once:\n%s", tc.args, tc.want, n, errOut)
		}
		if out != "" {
			t.Errorf("blkq %v: wrote to stdout: %q", tc.args, out)
		}
	}
	if status, _, errOut := blkqCLI(); status != 2 || !strings.Contains(errOut, "usage: blkq <command>") {
		t.Errorf("blkq alone: exit %d, stderr %q; want 2 and the usage", status, errOut)
	}
}

// TestHelpExitsZero: blkq help CMD prints CMD's usage to stdout, blkq CMD
// -h / --help prints it (to stderr, as the flag package does), and both
// exit 0 and run nothing.
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"run", "replay", "experiment", "latency", "trace", "version"} {
		status, out, errOut := blkqCLI("help", cmd)
		if status != 0 || !strings.HasPrefix(out, "usage: blkq "+cmd) || errOut != "" {
			t.Errorf("blkq help %s: exit %d, stdout %.60q, stderr %.60q; want 0 and the usage on stdout", cmd, status, out, errOut)
		}
		for _, h := range []string{"-h", "--help"} {
			args := []string{cmd, h}
			if cmd == "trace" {
				args = []string{"trace", "print", h}
			}
			status, out, errOut := blkqCLI(args...)
			if status != 0 || strings.Count(errOut, "usage: blkq "+cmd) != 1 || out != "" {
				t.Errorf("blkq %v: exit %d, stdout %.60q, stderr %.60q; want 0 and the usage once", args, status, out, errOut)
			}
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		if status, out, _ := blkqCLI(args...); status != 0 || !strings.HasPrefix(out, "usage: blkq <command>") {
			t.Errorf("blkq %v: exit %d, stdout %.60q", args, status, out)
		}
	}
}

// TestVersionPrintsModuleAndGoVersion: blkq version and blkq --version
// print one line naming blkq's version and the Go that built it.
func TestVersionPrintsModuleAndGoVersion(t *testing.T) {
	want := regexp.MustCompile(`^blkq version (devel|v\d+\.\d+\.\d+\S*) \(` + regexp.QuoteMeta(runtime.Version()) + `\)\n$`)
	for _, arg := range []string{"version", "--version", "-version"} {
		status, out, errOut := blkqCLI(arg)
		if status != 0 || !want.MatchString(out) || errOut != "" {
			t.Errorf("blkq %s: exit %d, stdout %q, stderr %q", arg, status, out, errOut)
		}
	}
}

// TestModuleVersionFromBuildInfo: a tagged module version is printed as
// it is; a build from a work tree ("(devel)") or without build
// information is "devel".
func TestModuleVersionFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "devel"},
		{&debug.BuildInfo{}, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/blkq-dev/blkq", Version: "(devel)"}}, "devel"},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/blkq-dev/blkq", Version: "v0.3.1"}}, "v0.3.1"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201120000-abcdef012345"}}, "v0.0.0-20261201120000-abcdef012345"},
	} {
		if got := moduleVersion(tc.info); got != tc.want {
			t.Errorf("moduleVersion(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}

// TestReportNamesTheVersionBlkqVersionPrints: the report's version line
// (fio's "fio-3.33" place, JSON "fio version") names the same build as
// blkq version.
func TestReportNamesTheVersionBlkqVersionPrints(t *testing.T) {
	_, ver, _ := blkqCLI("version")
	v := strings.Fields(ver)[2] // "blkq version V (goX)"
	status, out, errOut := blkqCLI("run", "--runtime-cap", "100ms", "--output-format", "json")
	if status != 0 {
		t.Fatalf("run: status %d: %s", status, errOut)
	}
	if want := `"fio version" : "blkq-` + v + ` (fio-3.33 compatible)"`; !strings.Contains(out, want) {
		t.Fatalf("JSON report does not contain %s", want)
	}
}
