package main

import (
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
	// Wait until the other process holds the lock (its run has begun).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if f, err := os.Open(dev); err == nil {
			err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
			f.Close()
			if err == unix.EWOULDBLOCK {
				break
			}
		}
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
