package main

// fio's files, side by side with Debian's fio 3.33: a job on an existing
// file without a size works on the whole file, percentages are of its
// size, and a larger size= extends it, on a file: device as in fio.

import (
	"bufio"
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
