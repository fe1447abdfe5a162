package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestSoak10s is the soak's CI version: the full load (256 cache workers,
// 16 direct, a tunable flip every millisecond) for 6 s of work plus the
// write-back and read-back, about 10 s in all. It fails on any mismatch,
// lost or duplicated completion, or broken invariant.
func TestSoak10s(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak takes 10 s")
	}
	cfg := defaultConfig()
	cfg.Duration = 6 * time.Second
	cfg.Dir = t.TempDir()
	r, err := run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r.print(&out)
	t.Log("\n" + out.String())
	if len(r.Failures) > 0 {
		t.Fatalf("soak failed:\n%s", strings.Join(r.Failures, "\n"))
	}
	// The soak must have done what it claims, or a pass means nothing.
	for what, n := range map[string]int64{"cache reads": r.Reads, "cache writes": r.Writes, "discards": r.Discards,
		"direct submits": r.DSubmits, "take-backs": r.BiosTakenBack, "read-ahead pages": r.Cache.ReadAheadPages,
		"flips": r.Flips, "polls": r.Polls} {
		if n == 0 {
			t.Errorf("no %s in the soak", what)
		}
	}
}

// TestSoakUsageErrors: bad flags exit 2 without running.
func TestSoakUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"--duration", "0"}, {"--workers", "0"}, {"--bogus"}, {"stray"}, {"--flip", "-1ms"}} {
		var out, errb bytes.Buffer
		if code := soakMain(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if strings.Count(errb.String(), "\n") != 1 || !strings.HasSuffix(errb.String(), "; see 'blkq-soak --help'\n") || out.Len() != 0 {
			t.Errorf("%v: stderr %q, stdout %q; want one line pointing at --help, nothing on stdout", args, errb.String(), out.String())
		}
	}
}

// TestSoakHelpExitsZero: --help prints every flag to stdout and runs
// nothing.
func TestSoakHelpExitsZero(t *testing.T) {
	var out, errb bytes.Buffer
	if code := soakMain([]string{"--help"}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("--help: exit %d, stderr %q", code, errb.String())
	}
	for _, f := range []string{"--duration", "--dir", "--workers", "--direct", "--pages", "--cache-pages", "--flip", "--seed", "--progress"} {
		if !strings.Contains(out.String(), f+" ") {
			t.Errorf("--help lacks %s:\n%s", f, out.String())
		}
	}
}
