package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/trace"
)

// These tests run the blkq binary as a subprocess and signal it, as a user
// pressing Ctrl-C does. The bounds on wall time are generous (the machine
// is shared): they catch a hang, not a slow exit.

// buildBlkq builds the command into a temporary directory.
func buildBlkq(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "blkq")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// child is a blkq subprocess.
type child struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	err            error
}

func startBlkq(t *testing.T, bin string, args ...string) *child {
	t.Helper()
	// A child inherits an ignored SIGINT (go test run as a background job
	// of a script), and blkq leaves an ignored signal ignored: catch it
	// here, so that the child starts with the default and takes its own.
	if signal.Ignored(syscall.SIGINT) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGINT)
	}
	c := &child{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			c.cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// wait waits up to limit for the child to exit and returns its status.
func (c *child) wait(t *testing.T, limit time.Duration, what string) syscall.WaitStatus {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(limit):
		c.cmd.Process.Signal(syscall.SIGQUIT) // a goroutine dump, for the log
		<-c.done
		t.Fatalf("%s: still running after %v\nstdout:\n%s\nstderr (tail):\n%s", what, limit, c.stdout.String(), tail(c.stderr.String(), 4000))
	}
	var ee *exec.ExitError
	if c.err != nil && !errors.As(c.err, &ee) {
		t.Fatalf("%s: %v", what, c.err)
	}
	return c.cmd.ProcessState.Sys().(syscall.WaitStatus)
}

func (c *child) signal(s syscall.Signal) { c.cmd.Process.Signal(s) }

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// waitForFile waits until a file matching the pattern path exists (the
// child is past its start: it created the file it works on, after its
// signal handler was in place) or the child exits.
func waitForFile(t *testing.T, c *child, path string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m, _ := filepath.Glob(path); len(m) > 0 {
			return
		}
		select {
		case <-c.done:
			t.Fatalf("exited before creating %s: %v\n%s", path, c.err, c.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not created after a minute", path)
		}
		time.Sleep(time.Millisecond)
	}
}

// fioReport is what the consistency check needs of a JSON report.
type fioReport struct {
	Jobs []struct {
		Name  string `json:"jobname"`
		Error int    `json:"error"`
		Write struct {
			IOBytes int64 `json:"io_bytes"`
		} `json:"write"`
	} `json:"jobs"`
}

// checkSequentialData checks that the first n bytes of the file hold what
// a sequential writer of the run wrote (each 512-byte sector begins with
// its own number: engine's data pattern) and that the sector after them
// was never written (the file was new: zeros). So the file holds exactly
// what the report says was written.
func checkSequentialData(t *testing.T, path string, n int64, what string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for off := int64(0); off < n; off += int64(len(buf)) {
		k := min(int64(len(buf)), n-off)
		if _, err := f.ReadAt(buf[:k], off); err != nil {
			t.Fatalf("%s: reading %s at %d: %v", what, path, off, err)
		}
		for i := int64(0); i < k; i += 512 {
			want := uint64(off+i) / 512
			if got := binary.LittleEndian.Uint64(buf[i:]); got != want {
				t.Fatalf("%s: the report says %d bytes were written, but sector %d (byte %d) begins with %#x, not its number", what, n, want, off+i, got)
			}
		}
	}
	next := make([]byte, 512)
	if _, err := f.ReadAt(next, n); err == nil && !bytes.Equal(next, make([]byte, 512)) {
		t.Fatalf("%s: the report says %d bytes were written, but the sector after them holds data", what, n)
	}
}

// TestSignalAtRandomPointsOfBufferedFileRun: SIGINT at 20 points of a
// buffered (direct=0) write on a file: from its first moment to its final
// write-back and read-back check. Each time blkq prints fio's line and
// the report, exits 128, its read-back check passes, and the file holds
// exactly the blocks the report says were written. The points come from
// a fixed seed, spread over the length of an uninterrupted run.
func TestSignalAtRandomPointsOfBufferedFileRun(t *testing.T) {
	bin := buildBlkq(t)
	dir := t.TempDir()
	job := filepath.Join(dir, "w.fio")
	if err := os.WriteFile(job, []byte("[w]\nrw=write\nbs=4k\nsize=24m\nioengine=psync\ndirect=0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runOnce := func(i int, delay time.Duration) (interrupted bool, took time.Duration) {
		what := fmt.Sprintf("point %d (%v)", i, delay)
		data := filepath.Join(dir, fmt.Sprintf("data%d", i))
		out := filepath.Join(dir, fmt.Sprintf("report%d.json", i))
		start := time.Now()
		c := startBlkq(t, bin, "run", "--warnings", "--device", "file:"+data, "--output-format", "json", "--output", out, job)
		if delay >= 0 {
			waitForFile(t, c, data)
			time.Sleep(delay)
			c.signal(syscall.SIGINT)
		}
		ws := c.wait(t, 60*time.Second, what)
		took = time.Since(start)
		line := strings.HasPrefix(c.stdout.String(), "\nfio: terminating on signal 2\n")
		switch {
		case ws.Exited() && ws.ExitStatus() == 128 && line:
			interrupted = true
		case ws.Exited() && ws.ExitStatus() == 0 && !line:
			// The run was over before the signal came.
		case ws.Signaled() && ws.Signal() == syscall.SIGINT && !line:
			// The signal came as blkq was exiting, its report out and
			// its handler gone: the default action.
		default:
			t.Fatalf("%s: exit status %v, stdout %q, stderr:\n%s", what, ws, c.stdout.String(), c.stderr.String())
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: no report: %v\nstderr:\n%s", what, err, c.stderr.String())
		}
		var rep fioReport
		if err := json.Unmarshal(raw, &rep); err != nil || len(rep.Jobs) != 1 || rep.Jobs[0].Name != "w" {
			t.Fatalf("%s: report %v: %.300s", what, err, raw)
		}
		if rep.Jobs[0].Error != 0 {
			t.Fatalf("%s: the job failed: %.300s", what, raw)
		}
		n := rep.Jobs[0].Write.IOBytes
		if n > 0 && !strings.Contains(c.stderr.String(), fmt.Sprintf("blkq: verified %d sectors written by the run: all hold what was written", n/512)) {
			t.Fatalf("%s: %d bytes written, no read-back check of them: stderr:\n%s", what, n, c.stderr.String())
		}
		checkSequentialData(t, data, n, what)
		os.Remove(data)
		t.Logf("%s: interrupted %v after %d MiB written, %v", what, interrupted, n>>20, took.Round(time.Millisecond))
		return interrupted, took
	}
	// The length of an uninterrupted run, from the file's creation.
	_, full := runOnce(0, -1)
	rng := rand.New(rand.NewPCG(9, 20))
	interrupted := 0
	for i := range 20 {
		var d time.Duration
		switch {
		case i == 0: // at once
		case i < 14: // anywhere in the run
			d = time.Duration(rng.Int64N(int64(full) * 9 / 10))
		default: // near its end: the final write-back and read-back
			d = full*6/10 + time.Duration(rng.Int64N(int64(full)*4/10))
		}
		if ok, _ := runOnce(i+1, d); ok {
			interrupted++
		}
	}
	if interrupted == 0 {
		t.Fatal("no run was interrupted")
	}
	t.Logf("%d of 20 runs interrupted (an uninterrupted run took %v)", interrupted, full.Round(time.Millisecond))
}

// TestSecondSignalExitsAtOnceWithTraceWhole: a second SIGINT ends blkq run
// at once, killed by the signal as without a handler, and the --trace
// file ends at a record boundary: it reads back without a truncation
// error, and blkparse reads it without a complaint.
func TestSecondSignalExitsAtOnceWithTraceWhole(t *testing.T) {
	bin := buildBlkq(t)
	dir := t.TempDir()
	job := filepath.Join(dir, "w.fio")
	// Long enough that only the signals end it.
	if err := os.WriteFile(job, []byte("[w]\nrw=randwrite\nbs=4k\nsize=64m\nioengine=libaio\niodepth=16\ndirect=0\ntime_based\nruntime=1h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "run.blktrace.0")
	data := filepath.Join(dir, "data")
	c := startBlkq(t, bin, "run", "--device", "file:"+data, "--trace", tr, job)
	waitForFile(t, c, data)
	time.Sleep(300 * time.Millisecond) // some trace written
	c.signal(syscall.SIGINT)
	// The second signal must come while the first one's drain, write-back
	// and report still run. They can take as little as a few ms (12 MiB of
	// dirty pages onto tmpfs), so a fixed gap is a race: signal again every
	// millisecond until the process is gone. The first later signal that
	// the kernel does not merge with a pending one is "the second".
	go func() {
		for {
			select {
			case <-c.done:
				return
			case <-time.After(time.Millisecond):
				c.cmd.Process.Signal(syscall.SIGINT)
			}
		}
	}()
	ws := c.wait(t, 10*time.Second, "two SIGINTs")
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("exit status %v, want killed by SIGINT\nstdout:\n%s\nstderr:\n%s", ws, c.stdout.String(), c.stderr.String())
	}
	if !strings.HasPrefix(c.stdout.String(), "\nfio: terminating on signal 2\n") {
		t.Fatalf("stdout %q: want fio's line first", c.stdout.String())
	}
	recs, err := trace.ReadFile(tr)
	if err != nil || len(recs) == 0 {
		t.Fatalf("the trace after a second signal: %d records, %v", len(recs), err)
	}
	if bp, err := exec.LookPath("blkparse"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("blkparse not installed (apt-get install blktrace); CI must run this test")
		}
		t.Logf("blkparse not installed: not run")
	} else {
		cmd := exec.Command(bp, "-i", "run.blktrace.0", "-o", "/dev/null")
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Fatalf("blkparse: %v: %s", err, stderr.String())
		}
	}
	t.Logf("%d trace records", len(recs))
}

// TestSignalDuringReplayAndExperimentPrintsReport: SIGINT during a replay
// and during an experiment prints fio's line, then what ran, and exits
// 128.
func TestSignalDuringReplayAndExperimentPrintsReport(t *testing.T) {
	bin := buildBlkq(t)
	dir := t.TempDir()
	// A trace of 10 minutes of random reads, on the real clock (null
	// device), so that a signal comes in the middle.
	var b strings.Builder
	for i := range 200000 {
		fmt.Fprintf(&b, "%d 0 %d 8 1\n", i*3, (i*7919)%1000000*8) // DiskSim: time (ms), devno, sector, sectors, 1 = read
	}
	tr := filepath.Join(dir, "t.disksim")
	if err := os.WriteFile(tr, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"replay", []string{"replay", "--device", "null", "--format", "disksim", "--time-unit", "1ms", "--trace", filepath.Join(dir, "replay.blktrace.0"), tr}, "t.disksim: (groupid=0"},
		{"experiment", []string{"experiment", "--trace", filepath.Join(dir, "experiment"), "tiobench"}, "=== "},
	} {
		c := startBlkq(t, bin, tc.args...)
		waitForFile(t, c, filepath.Join(dir, tc.name+"*.blktrace.0")) // its --trace file
		time.Sleep(500 * time.Millisecond)                            // the replay or experiment under way
		c.signal(syscall.SIGTERM)
		ws := c.wait(t, 60*time.Second, tc.name)
		out := c.stdout.String()
		if !ws.Exited() || ws.ExitStatus() != 128 || !strings.HasPrefix(out, "\nfio: terminating on signal 15\n") || !strings.Contains(out, tc.want) {
			t.Fatalf("%s: exit status %v, stdout:\n%s\nstderr:\n%s", tc.name, ws, tail(out, 3000), c.stderr.String())
		}
	}
}

// TestLatencyStopsWithManyWriters: blkq latency with 100,000 writers ends
// at --duration, on SIGINT, and at once on a second SIGINT, and removes
// its scratch file every time.
func TestLatencyStopsWithManyWriters(t *testing.T) {
	bin := buildBlkq(t)
	for _, tc := range []struct {
		name    string
		signals int
		args    []string
	}{
		{"duration", 0, []string{"--duration", "1s"}},
		{"SIGINT", 1, []string{"--duration", "1h"}},
		{"two SIGINTs", 2, []string{"--duration", "1h"}},
	} {
		dir := t.TempDir()
		args := append([]string{"latency", "--writers", "100000", "--cpu-hold=false", "--dir", dir}, tc.args...)
		c := startBlkq(t, bin, args...)
		scratch := filepath.Join(dir, fmt.Sprintf("blkq-latency-%d", c.cmd.Process.Pid))
		waitForFile(t, c, scratch)
		if tc.signals > 0 {
			time.Sleep(time.Second) // the writers at work
			c.signal(syscall.SIGINT)
			if tc.signals == 2 {
				// The second must come while the first is being
				// acted on, however fast the writers stop on this
				// machine: signal every 2 ms until the process ends.
			repeat:
				for {
					select {
					case <-c.done:
						break repeat
					case <-time.After(2 * time.Millisecond):
						c.signal(syscall.SIGINT)
					}
				}
			}
		}
		// Starting 100,000 writers on a loaded machine takes seconds;
		// their end must take no more than that.
		ws := c.wait(t, 30*time.Second, tc.name)
		switch tc.signals {
		case 2:
			if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
				t.Fatalf("%s: exit status %v, want killed by SIGINT\nstdout:\n%s\nstderr:\n%s", tc.name, ws, tail(c.stdout.String(), 2000), c.stderr.String())
			}
		default:
			if !ws.Exited() || ws.ExitStatus() != 0 || !strings.Contains(c.stdout.String(), "100000 writers") {
				t.Fatalf("%s: exit status %v\nstdout:\n%s\nstderr:\n%s", tc.name, ws, c.stdout.String(), c.stderr.String())
			}
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Fatalf("%s: the scratch file is left behind: %v", tc.name, left)
		}
	}
}

// TestInterrupterFirstSignal: the first SIGTERM prints fio's line (with
// its empty line before it) and closes Stop, and the command's error then
// carries fio's exit status: 128 plus the failed jobs.
func TestInterrupterFirstSignal(t *testing.T) {
	var out bytes.Buffer
	in := notifyInterrupt(&out)
	defer in.release()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case <-in.Stop():
	case <-time.After(10 * time.Second):
		t.Fatal("Stop not closed 10 s after SIGTERM")
	}
	var ie *interruptedError
	if err := in.err(2); !errors.As(err, &ie) || ie.exitCode() != 130 {
		t.Fatalf("err(2) = %v, want exit status 130", err)
	}
	in.release()
	if got := out.String(); got != "\nfio: terminating on signal 15\n" {
		t.Fatalf("printed %q", got)
	}
}

// TestSignalWhileReadingJobFileEndsTheProcess: SIGINT while run still
// reads its job files (here it blocks opening a FIFO nobody writes to)
// ends blkq, as it ends fio, instead of printing "terminating" and waiting
// for a second signal.
func TestSignalWhileReadingJobFileEndsTheProcess(t *testing.T) {
	bin := buildBlkq(t)
	fifo := filepath.Join(t.TempDir(), "job.fio")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c := startBlkq(t, bin, "run", fifo)
	// Signal once the child sleeps in the FIFO's open(2) (a thread's
	// wchan is the kernel's wait for the other end).
	waitForFIFOOpen(t, c)
	c.signal(syscall.SIGINT)
	ws := c.wait(t, 30*time.Second, "run of a FIFO job file after SIGINT")
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("status %v, want killed by SIGINT\nstdout:\n%s", ws, c.stdout.String())
	}
	if strings.Contains(c.stdout.String(), "terminating") {
		t.Errorf("stdout %q: a signal before the run printed fio's line", c.stdout.String())
	}
}

// waitForFIFOOpen waits until a thread of the child sleeps in the kernel's
// open of a FIFO (wchan wait_for_partner).
func waitForFIFOOpen(t *testing.T, c *child) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", c.cmd.Process.Pid))
		for _, w := range tasks {
			if b, _ := os.ReadFile(w); string(b) == "wait_for_partner" {
				return
			}
		}
		select {
		case <-c.done:
			t.Fatalf("exited before opening the FIFO: %v\n%s", c.err, c.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("not blocked opening the FIFO after a minute")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSignalDuringSetUpOfManyFilesExitsPromptly: SIGTERM while blkq sets
// up a job of 500,000 files (naming and laying them out, then dropping
// each from the page cache as the job opens them: about 9 s on this
// machine uninterrupted) prints fio's line and exits 128 within a few
// seconds, the job never run. The set-up used to go on to its end first.
func TestSignalDuringSetUpOfManyFilesExitsPromptly(t *testing.T) {
	bin := buildBlkq(t)
	for _, delay := range []time.Duration{200 * time.Millisecond, 1500 * time.Millisecond} {
		c := startBlkq(t, bin, "run", "--name=x", "--device=null", "--rw=randread", "--size=500g", "--nrfiles=500000", "--bs=4k", "--io_size=4k")
		time.Sleep(delay)
		select {
		case <-c.done:
			t.Fatalf("after %v: exited before the signal: %v\n%s", delay, c.err, c.stderr.String())
		default:
		}
		c.signal(syscall.SIGTERM)
		ws := c.wait(t, 5*time.Second, fmt.Sprintf("SIGTERM %v into the set-up", delay))
		// Stopped while planning, nothing follows the line; past the
		// plan, the report of a job that never ran does.
		if !ws.Exited() || ws.ExitStatus() != 128 || !strings.HasPrefix(c.stdout.String(), "\nfio: terminating on signal 15\n") {
			t.Fatalf("after %v: status %v, stdout %q, stderr %q: want 128 and fio's line first", delay, ws, c.stdout.String(), c.stderr.String())
		}
	}
}

// TestSecondSignalExitsWhileStdoutIsBlocked: with its standard output a
// pipe nobody reads (full, so every write blocks), a run that prints its
// status every millisecond is stuck in a write; the first SIGTERM's line
// cannot be printed, and the second SIGTERM still ends the process at
// once. The signal watcher used to wait on that write with the first
// signal, and never saw the second.
func TestSecondSignalExitsWhileStdoutIsBlocked(t *testing.T) {
	bin := buildBlkq(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(bin, "run", "--name=x", "--ioengine=null", "--rw=read", "--size=1m", "--time_based", "--runtime=1h", "--status-interval=1ms")
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	time.Sleep(time.Second) // the status reports fill the pipe's 64 KiB
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after a second SIGTERM\nstderr: %s", stderr.String())
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("exit status %v, want killed by SIGTERM", ws)
	}
}
