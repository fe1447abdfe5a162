package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHelperRunHoldsDevice is not a test: TestSecondRunOnOneFileIsInUse
// runs the test binary with it as a second blkq process, which runs a
// minute-long job on the file it is given until it is killed.
func TestHelperRunHoldsDevice(t *testing.T) {
	path := os.Getenv("BLKQ_TEST_HOLD_DEVICE")
	if path == "" {
		t.Skip("helper process only")
	}
	job := filepath.Join(t.TempDir(), "hold.fio")
	os.WriteFile(job, []byte("[hold]\nrw=randwrite\nbs=4k\nsize=1m\ntime_based\nruntime=60s\n"), 0o644)
	cmdRun([]string{"--device", "file:" + path, job}, io.Discard, io.Discard)
}

// flockHeld reports whether /proc/locks lists an exclusive flock on path.
func flockHeld(path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return false
	}
	id := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	for _, l := range strings.Split(string(b), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 1234 00:2a:5678 0 EOF"
		f := strings.Fields(l)
		if len(f) >= 6 && f[1] == "FLOCK" && f[3] == "WRITE" && f[5] == id {
			return true
		}
	}
	return false
}

// TestSecondRunOnOneFileIsInUse: while one blkq process runs on a file:
// device, a second run on the same file fails at once with an "in use"
// error naming the path, and leaves the file alone; once the first is
// gone the file is free.
func TestSecondRunOnOneFileIsInUse(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "dev")
	child := exec.Command(os.Args[0], "-test.run=^TestHelperRunHoldsDevice$")
	child.Env = append(os.Environ(), "BLKQ_TEST_HOLD_DEVICE="+dev)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		child.Process.Kill()
		child.Wait()
	}()
	// Wait until the other process holds the lock (its run has begun),
	// watching /proc/locks: probing with a lock of our own could make
	// the other process's non-blocking lock fail.
	for deadline := time.Now().Add(60 * time.Second); !flockHeld(dev); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first blkq process never locked the device")
		}
	}
	job := filepath.Join(dir, "w.fio")
	os.WriteFile(job, []byte("[w]\nrw=write\nbs=4k\nsize=1m\n"), 0o644)
	_, _, err := runCLI(t, "--device", "file:"+dev, job)
	if err == nil || !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), dev) {
		t.Fatalf("second run on a device in use: %v", err)
	}
	child.Process.Kill()
	child.Wait()
	if _, _, err := runCLI(t, "--device", "file:"+dev, job); err != nil {
		t.Fatalf("after the first process ended: %v", err)
	}
}

// TestENOSPCRunPrintsReportAndIOError: a run that fills its file system
// prints fio's io_u error line on stderr, the full report with err=28 on
// stdout, and exits non-zero, as fio does.
func TestENOSPCRunPrintsReportAndIOError(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("this test mounts a tmpfs and needs root; CI runs as root")
		}
		t.Skip("needs root to mount a tmpfs")
	}
	mnt := filepath.Join(t.TempDir(), "mnt")
	os.Mkdir(mnt, 0o755)
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(mnt, 0)
	dev := filepath.Join(mnt, "dev")
	job := filepath.Join(t.TempDir(), "w.fio")
	os.WriteFile(job, []byte("[w]\nrw=write\nbs=64k\nsize=4m\ndirect=1\n"), 0o644)
	out, errOut, err := runCLI(t, "--device", "file:"+dev, job)
	if err == nil || !strings.Contains(err.Error(), "1 of 1 jobs failed") {
		t.Fatalf("exit: %v", err)
	}
	if want := "fio: io_u error on file " + dev + ": No space left on device: write offset="; !strings.Contains(errOut, want) {
		t.Fatalf("stderr lacks %q:\n%s", want, errOut)
	}
	if !strings.Contains(out, "w: (groupid=0, jobs=1): err=28 (") || !strings.Contains(out, "Disk stats (read/write):") {
		t.Fatalf("report:\n%s", out)
	}
}
