package engine

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
)

// allocatedBy returns the bytes f allocates on the heap.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestNrFilesSmallerThanSectorRejectedBeforeNaming: size=64m over
// nrfiles=2000000000 leaves no file a sector; the error comes before a
// single file is named (the plan used to build two billion names first,
// growing by 70 MB/s), so the check allocates next to nothing.
func TestNrFilesSmallerThanSectorRejectedBeforeNaming(t *testing.T) {
	for _, n := range []string{"2000000000", "10000000", "131073"} {
		jf := parse(t, "[j]\nrw=randread\nsize=64m\nnrfiles="+n+"\nbs=512\n")
		var err error
		got := allocatedBy(func() { err = Check(jf, Options{}) })
		if err == nil || !strings.Contains(err.Error(), "over "+n+" files leaves less than a 512-byte sector per file") {
			t.Fatalf("nrfiles=%s: %v, want the per-file size error", n, err)
		}
		if got > 1<<20 {
			t.Errorf("nrfiles=%s: the check allocated %d bytes: it named the files first", n, got)
		}
	}
	// 131072 files of 512 bytes is exactly enough: planned, not refused.
	if err := Check(parse(t, "[j]\nrw=randread\nsize=64m\nnrfiles=131072\nbs=512\n"), Options{}); err != nil {
		t.Fatalf("nrfiles=131072 (512 bytes each): %v", err)
	}
}

// TestRunFilesLimit: a run may have maxRunFiles files, numjobs clones and
// every job counted; one more is an error naming the job and the limit,
// made before the files are named.
func TestRunFilesLimit(t *testing.T) {
	for _, tc := range []struct {
		job  string
		want string
	}{
		{"[j]\nrw=read\nsize=1t\nnrfiles=524289\n", `job "j": nrfiles=524289: more than blkq's limit of 524288 files in a run`},
		{"[j]\nrw=read\nsize=1t\nnrfiles=2000000000\nnumjobs=2\n", `job "j": nrfiles=2000000000: more than blkq's limit`},
		{"[a]\nrw=read\nsize=1m\nnumjobs=2\n[b]\nrw=read\nsize=1t\nnrfiles=524287\n", `job "b": nrfiles=524287, with the jobs before it 524289 files: more than blkq's limit`},
		{"[a]\nrw=read\nsize=1m\nfilename=x:y\n[b]\nrw=read\nsize=1t\nnrfiles=524287\n", `job "b": nrfiles=524287, with the jobs before it 524289 files`},
	} {
		jf := parse(t, tc.job)
		var err error
		got := allocatedBy(func() { err = Check(jf, Options{}) })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%q: %v, want %q", tc.job, err, tc.want)
		}
		if got > 1<<20 {
			t.Errorf("%q: the check allocated %d bytes: it named the files first", tc.job, got)
		}
	}
	// At the limit, the run is planned.
	if err := Check(parse(t, "[a]\nrw=read\nsize=1m\n[b]\nrw=read\nsize=1t\nnrfiles=524287\n"), Options{}); err != nil {
		t.Fatalf("524288 files in all, the limit: %v", err)
	}
}

// TestStopWhilePlanningManyFiles: a stop during the plan of a job of
// 500,000 files ends the plan at its next look (every 1024 files), with
// ErrInterrupted and nothing created: here the stop is closed before Run,
// and the plan gets no further than its first 1024 files.
func TestStopWhilePlanningManyFiles(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	path := filepath.Join(t.TempDir(), "dev")
	jf := parse(t, "[j]\nrw=randread\nsize=500g\nnrfiles=500000\nbs=4k\n")
	var err error
	got := allocatedBy(func() { _, err = Run(jf, Options{Device: "file:" + path, Stop: stop}) })
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run: %v, want ErrInterrupted", err)
	}
	if got > 16<<20 {
		t.Errorf("the interrupted plan allocated %d bytes: it went on after the stop", got)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the device file %s: %v: created by a run stopped while it was planned", path, err)
	}
}

// TestStopWhileScanningTrace: a stop while a replay reads its trace
// through first (200,000 records) ends it with ErrInterrupted, replaying
// nothing.
func TestStopWhileScanningTrace(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	var issued int
	res, err := Replay("synthetic", synthetic(200000), Options{Stop: stop,
		Tracers: []blkq.Tracer{blkq.TracerFunc(func(*blkq.Event) { issued++ })}}, ReplayOptions{})
	if !errors.Is(err, ErrInterrupted) || res != nil || issued != 0 {
		t.Fatalf("Replay: %v (result %v, %d events), want ErrInterrupted and nothing replayed", err, res != nil, issued)
	}
}
