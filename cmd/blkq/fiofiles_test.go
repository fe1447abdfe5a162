package main

// fio's files, side by side with Debian's fio 3.33: a job on an existing
// file without a size works on the whole file, percentages are of its
// size, and a larger size= extends it, on a file: device as in fio; a
// job that writes and verifies a file reports each direction's runtime
// over its phase, as fio does.

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// iologIOs returns "OFFSET+LENGTH" for each read, write and trim of an
// iolog v3 file, in order.
func iologIOs(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ios []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 5 && (fs[2] == "read" || fs[2] == "write" || fs[2] == "trim") {
			ios = append(ios, fs[3]+"+"+fs[4])
		}
	}
	return ios
}

// TestExistingFileSizeAsFio: on an existing 8 MiB file, a job without a
// size reads the whole file, size=50% half of it, size=10% offset=33%
// bs=12k 68 blocks from offset 2777088 (33% of the file, rounded up to
// 12 KiB), and size=12m extends the file to 12 MiB; blkq on a file:
// device issues the same I/O as fio and leaves the file the size fio
// leaves it. On a simulated device, and with fio's null engine, the
// file's size is not taken: the job needs a size, as fio's null engine
// does.
func TestExistingFileSizeAsFio(t *testing.T) {
	const size = 8 << 20
	for _, extra := range [][]string{
		nil,
		{"--size=50%"},
		{"--size=10%", "--offset=33%", "--bs=12k"},
		{"--size=12m"},
		{"--rw=randread", "--size=25%"},
	} {
		name := strings.Join(extra, " ")
		if name == "" {
			name = "whole" // fio cuts a value at '#', which t.TempDir() of "#00" would hold
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var ios [2][]string
			var sizes [2]int64
			for i, who := range []string{"fio", "blkq"} {
				file := filepath.Join(dir, who+".data")
				if err := os.WriteFile(file, make([]byte, size), 0o644); err != nil {
					t.Fatal(err)
				}
				log := filepath.Join(dir, who+".iolog")
				args := append([]string{"--name=p", "--filename=" + file, "--rw=read", "--bs=1m", "--write_iolog=" + log, "--output-format=terse"}, extra...)
				if who == "fio" {
					if _, ok := runFio(t, dir, "", args...); !ok {
						t.Fatalf("fio %s failed", strings.Join(args, " "))
					}
				} else {
					var out, errOut strings.Builder
					if err := cmdRun(append([]string{"--device=file:" + file}, args...), &out, &errOut); err != nil {
						t.Fatalf("blkq run %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
					}
				}
				ios[i] = iologIOs(t, log)
				fi, err := os.Stat(file)
				if err != nil {
					t.Fatal(err)
				}
				sizes[i] = fi.Size()
			}
			if len(ios[0]) == 0 {
				t.Fatal("fio issued nothing")
			}
			if strings.Contains(strings.Join(extra, " "), "randread") {
				// Random offsets differ between the two; the blocks
				// read must not.
				slices.Sort(ios[0])
				slices.Sort(ios[1])
			}
			if !slices.Equal(ios[0], ios[1]) {
				t.Errorf("blkq issued %d I/Os %v ... , fio %d %v ...", len(ios[1]), ios[1][:min(3, len(ios[1]))], len(ios[0]), ios[0][:min(3, len(ios[0]))])
			}
			if sizes[0] != sizes[1] {
				t.Errorf("file size after the run: blkq %d, fio %d", sizes[1], sizes[0])
			}
			t.Logf("%d I/Os from %s, file %d bytes", len(ios[0]), ios[0][0], sizes[0])
		})
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "data")
	if err := os.WriteFile(file, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--name=p", "--filename=" + file}, "only on a file: device"},
		{[]string{"--device=file:" + file, "--name=p", "--filename=" + file, "--ioengine=null"}, "fio's null engine needs a size too"},
	} {
		var out, errOut strings.Builder
		err := cmdRun(tc.args, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "has no size") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("blkq run %s: %v; want a \"has no size\" error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
	// fio's null engine refuses it as well.
	if _, ok := runFio(t, dir, "", "--name=p", "--filename="+file, "--ioengine=null", "--output-format=terse"); ok {
		t.Errorf("fio ran a null-engine job without a size")
	}
}

// TestVerifyRuntimesAsFio: a write job that verifies counts its writes'
// time for writes and its verify's for reads, in fio's JSON and in
// blkq's, for the same job on a file (psync, direct=1): the two add up
// to job_runtime (within fio's rounding, a ms per phase), with loops=2
// too (two write phases, two verifies); with verify_backlog=64 most reads
// are in the write phase, which a randwrite job does not count for
// reads, so reads get the short verify at the end; a randrw job counts
// its I/O phase for both, and its reads also the verify.
func TestVerifyRuntimesAsFio(t *testing.T) {
	type dir struct {
		Runtime int64 `json:"runtime"`
		IOs     int64 `json:"total_ios"`
	}
	type doc struct {
		Jobs []struct {
			Read       dir   `json:"read"`
			Write      dir   `json:"write"`
			JobRuntime int64 `json:"job_runtime"`
		} `json:"jobs"`
	}
	for _, tc := range []struct {
		name  string
		extra []string
		check func(r, w, job int64) bool
	}{
		{"verify", nil, func(r, w, job int64) bool { return abs(r+w-job) <= 2 && r < job && w < job }},
		{"loops", []string{"--loops=2"}, func(r, w, job int64) bool { return abs(r+w-job) <= 4 && r < job && w < job }},
		{"backlog", []string{"--verify_backlog=64"}, func(r, w, job int64) bool { return 4*r < w && w <= job }},
		{"randrw", []string{"--rw=randrw"}, func(r, w, job int64) bool { return abs(r-job) <= 2 && w < r }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, who := range []string{"fio", "blkq"} {
				file := filepath.Join(dir, who+".data")
				args := append([]string{"--name=v", "--filename=" + file, "--rw=randwrite", "--bs=4k", "--size=4m",
					"--verify=crc32c", "--direct=1", "--verify_state_save=0", "--output-format=json"}, tc.extra...)
				var out string
				if who == "fio" {
					o, ok := runFio(t, dir, "", args...)
					if !ok {
						t.Fatalf("fio %s failed", strings.Join(args, " "))
					}
					out = o
				} else {
					var o, errOut strings.Builder
					if err := cmdRun(append([]string{"--device=file:" + file}, args...), &o, &errOut); err != nil {
						t.Fatalf("blkq run %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
					}
					out = o.String()
				}
				var d doc
				if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Jobs) != 1 {
					t.Fatalf("%s's JSON: %v", who, err)
				}
				j := d.Jobs[0]
				if j.Read.IOs == 0 || j.Write.IOs == 0 {
					t.Fatalf("%s: %d reads, %d writes", who, j.Read.IOs, j.Write.IOs)
				}
				ok := tc.check(j.Read.Runtime, j.Write.Runtime, j.JobRuntime)
				t.Logf("%s: read runtime %d ms, write %d ms, job_runtime %d ms", who, j.Read.Runtime, j.Write.Runtime, j.JobRuntime)
				if !ok {
					t.Errorf("%s: read runtime %d ms, write %d ms, job_runtime %d ms break the phases' rule", who, j.Read.Runtime, j.Write.Runtime, j.JobRuntime)
				}
			}
		})
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
