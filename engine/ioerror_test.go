package engine

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/blkq-dev/blkq/report"
)

// checkENOSPC runs src on a file in a 1 MiB tmpfs, where the jobs' 4 MiB
// cannot fit, and checks that the job reports ENOSPC as fio does (err=28,
// never EIO; "error": 28 in JSON), that the report is made, and that the
// read-back check ran over what was written without a mismatch for what
// the device refused.
func checkENOSPC(t *testing.T, src string) *Result {
	t.Helper()
	dev := filepath.Join(mountTmpfs(t, "1m"), "dev")
	res, err := Run(parse(t, src), Options{Device: "file:" + dev})
	if err != nil {
		t.Fatalf("the run failed instead of reporting the job's error: %v", err)
	}
	if len(res.Run.Jobs) != 1 {
		t.Fatalf("%d jobs in the report", len(res.Run.Jobs))
	}
	js := res.Run.Jobs[0]
	if js.Error != 28 || !strings.Contains(js.ErrorText, "No space left on device") {
		t.Fatalf("job error %d (%s), want 28 (No space left on device)", js.Error, js.ErrorText)
	}
	if res.Verified == 0 {
		t.Fatal("nothing was read back: the check did not run over what the device took")
	}
	var normal, js0 bytes.Buffer
	if err := report.WriteNormal(&normal, res.Run); err != nil {
		t.Fatal(err)
	}
	if want := "w: (groupid=0, jobs=1): err=28 (func="; !strings.Contains(normal.String(), want) {
		t.Fatalf("normal report lacks %q:\n%s", want, normal.String())
	}
	if err := report.WriteJSON(&js0, res.Run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js0.String(), `"error" : 28,`) {
		t.Fatalf("JSON report lacks \"error\" : 28")
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "verify") {
			t.Fatalf("warning about the read-back check: %s", w)
		}
	}
	return res
}

const enospcJob = `[w]
rw=write
bs=64k
size=4m
ioengine=%s
iodepth=%d
direct=%d
%s
`

// TestENOSPCDirectWriteReportsErr28: O_DIRECT writes that run out of
// space report errno 28 and fio's io_u error line naming the file, the
// offset and the length.
func TestENOSPCDirectWriteReportsErr28(t *testing.T) {
	for _, c := range []struct {
		engine string
		depth  int
	}{{"psync", 1}, {"libaio", 8}} {
		t.Run(c.engine, func(t *testing.T) {
			res := checkENOSPC(t, fmt.Sprintf(enospcJob, c.engine, c.depth, 1, ""))
			if len(res.IOErrors) == 0 {
				t.Fatal("no io_u error line")
			}
			l := res.IOErrors[0]
			if !strings.HasPrefix(l, "fio: io_u error on file ") || !strings.Contains(l, "/dev: No space left on device: write offset=") || !strings.HasSuffix(l, ", buflen=65536") {
				t.Fatalf("io_u error line %q", l)
			}
		})
	}
}

// TestENOSPCBufferedWriteBackReportsErr28: buffered writes whose
// write-back runs out of space report errno 28 to the job: through its
// fsync (fsync=N, end_fsync) or, with none, from the write-back at the
// end of the run; the pages the device refused are not read back.
func TestENOSPCBufferedWriteBackReportsErr28(t *testing.T) {
	for _, c := range []struct{ name, extra string }{
		{"no-fsync", ""},
		{"fsync", "fsync=4"},
		{"end_fsync", "end_fsync=1"},
		{"fdatasync-libaio", "fdatasync=2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := checkENOSPC(t, fmt.Sprintf(enospcJob, "psync", 1, 0, c.extra))
			if c.extra != "" && (len(res.IOErrors) == 0 || !strings.Contains(res.IOErrors[0], "No space left on device: ")) {
				t.Fatalf("io_u error lines %q", res.IOErrors)
			}
		})
	}
}

// TestReadOnlyMountReadJobsRun: on a read-only file system, jobs that only
// read (buffered and direct, sequential and random) open the file
// read-only and run without error; nothing is read back, as nothing was
// written. A job that writes gets the file system's error.
func TestReadOnlyMountReadJobsRun(t *testing.T) {
	dir := mountTmpfs(t, "8m")
	dev := filepath.Join(dir, "dev")
	run(t, "[w]\nrw=write\nbs=64k\nsize=4m\n", Options{Device: "file:" + dev})
	remountReadOnly(t, dir)
	for _, job := range []string{
		"[r]\nrw=read\nbs=64k\nsize=2m\ndirect=1\n",
		"[r]\nrw=randread\nbs=4k\nsize=2m\nio_size=512k\n",
		"[r]\nrw=read\nbs=16k\nsize=2m\nioengine=libaio\niodepth=8\ndirect=1\n[r2]\nrw=randread\nbs=4k\nsize=1m\n",
	} {
		res := run(t, job, Options{Device: "file:" + dev})
		if res.Verified != 0 {
			t.Fatalf("%d sectors read back after a run that wrote nothing", res.Verified)
		}
		if res.Run.Jobs[0].Read.Bytes == 0 {
			t.Fatalf("job %q read nothing", job)
		}
	}
	_, err := Run(parse(t, "[w]\nrw=write\nbs=64k\nsize=2m\n"), Options{Device: "file:" + dev})
	if !errors.Is(err, syscall.EROFS) {
		t.Fatalf("a writer on a read-only file system: %v", err)
	}
	_, err = Run(parse(t, "[r]\nrw=read\nbs=64k\nsize=5m\n"), Options{Device: "file:" + dev})
	if !errors.Is(err, syscall.EROFS) || !strings.Contains(err.Error(), "only read") {
		t.Fatalf("readers needing more than the file holds on a read-only file system: %v", err)
	}
}
