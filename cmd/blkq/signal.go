package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// SIGINT and SIGTERM during run, replay and experiment, as fio 3.33
// handles them: the first prints "fio: terminating on signal N" (after an
// empty line, on standard output, where fio prints it) and stops the
// jobs; the run then drains, writes back, closes its trace and prints its
// report, and the command exits with fio's status for it: 128, plus one
// per failed job.
//
// A second signal exits at once, whatever the command is doing (setting
// the run up, running it, writing its report). fio 3.33 itself only
// prints the line again and goes on waiting for its jobs; blkq gives the
// way out that a user pressing Ctrl-C twice expects. The exit closes the
// trace files (so that they end at a record boundary, which blkparse
// reads without a complaint), waiting at most cleanupWait for them, and
// then dies of the signal, as a program without a handler does: the shell
// sees 128+N and a script's loop stops. A first signal that comes once
// the command has its status (its report is out) does not change it, but
// counts: the next one exits.

// cleanupWait bounds what a second signal waits for the cleanups (a
// trace's last buffer to its file): a file system that does not answer
// must not keep the process alive.
const cleanupWait = time.Second

// interrupter watches for SIGINT and SIGTERM while a command runs.
type interrupter struct {
	sigs    chan os.Signal
	stop    chan struct{} // closed at the first signal, once fio's line is out
	quit    chan struct{} // closed by release
	exited  chan struct{}
	once    sync.Once
	out     *lockedWriter
	mu      sync.Mutex
	sig     syscall.Signal // the first signal, 0 if none
	decided bool           // err was called: the command's status is set
	late    bool           // a signal came after decided (the next exits)
	cleanup []func()       // run before exiting at a second signal
}

// notifyInterrupt starts watching; release ends it. stdout gets the
// "terminating" line; write the command's report through in.out, so that
// the two never interleave.
func notifyInterrupt(stdout io.Writer) *interrupter {
	in := &interrupter{
		sigs:   make(chan os.Signal, 2),
		stop:   make(chan struct{}),
		quit:   make(chan struct{}),
		exited: make(chan struct{}),
		out:    &lockedWriter{w: stdout},
	}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		// A signal the parent ignores stays ignored (a shell's
		// background job ignores SIGINT): Notify would turn it back on.
		if !signal.Ignored(sig) {
			signal.Notify(in.sigs, sig)
		}
	}
	go in.watch()
	return in
}

func (in *interrupter) watch() {
	defer close(in.exited)
	for {
		select {
		case s := <-in.sigs:
			in.handle(s)
		case <-in.quit:
			for { // signals that came before release stopped them
				select {
				case s := <-in.sigs:
					in.handle(s)
				default:
					return
				}
			}
		}
	}
}

// handle acts on one signal. The first one's line is printed on a
// goroutine of its own, which then closes Stop: the run stops (and its
// report follows) only once the line is out, and err waits for it too;
// meanwhile the watcher is free for a second signal, even if the line
// waits for a report being written to a slow or blocked output.
func (in *interrupter) handle(s os.Signal) {
	sig, _ := s.(syscall.Signal)
	in.mu.Lock()
	switch {
	case in.sig == 0 && in.decided && !in.late:
		// The command has its report out and is returning with its own
		// status: too late to interrupt it; a second signal still exits.
		in.late = true
		in.mu.Unlock()
		return
	case in.sig == 0:
		in.sig = sig
		in.mu.Unlock()
		go func() {
			fmt.Fprintf(in.out, "\nfio: terminating on signal %d\n", int(sig))
			close(in.stop)
		}()
		return
	}
	in.mu.Unlock()
	in.exitNow(sig)
}

// exitNow runs the cleanups and dies of sig.
func (in *interrupter) exitNow(sig syscall.Signal) {
	in.mu.Lock()
	fs := in.cleanup
	in.cleanup = nil
	in.mu.Unlock()
	done := make(chan struct{})
	go func() {
		for i := len(fs) - 1; i >= 0; i-- {
			fs[i]()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(cleanupWait):
	}
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second) // the signal is on its way; if not:
	os.Exit(128 + int(sig))
}

// Stop is closed at the first signal (engine.Options.Stop).
func (in *interrupter) Stop() <-chan struct{} { return in.stop }

// onExit adds f to what a second signal does before the process exits
// (the last added runs first).
func (in *interrupter) onExit(f func()) {
	in.mu.Lock()
	in.cleanup = append(in.cleanup, f)
	in.mu.Unlock()
}

// release stops watching: signals get their default effect again. It may
// be called more than once.
func (in *interrupter) release() {
	in.once.Do(func() {
		signal.Stop(in.sigs)
		close(in.quit)
		<-in.exited
	})
}

// err returns the interruption error if a signal came, else nil: failed
// is the number of jobs that failed, which fio adds to its exit status.
// Call it once the report is out: a first signal after it is ignored, as
// the command is returning.
func (in *interrupter) err(failed int) error {
	in.mu.Lock()
	in.decided = true
	sig := in.sig
	in.mu.Unlock()
	if sig == 0 {
		return nil
	}
	<-in.stop // fio's line is out
	return &interruptedError{sig: sig, failed: failed}
}

// interruptedError ends a command that a signal interrupted: main exits
// with its code and prints nothing more (the report and fio's line are
// out).
type interruptedError struct {
	sig    syscall.Signal
	failed int
}

func (e *interruptedError) Error() string {
	return fmt.Sprintf("terminated on signal %d", int(e.sig))
}

// exitCode is fio's: 128, plus one per failed job.
func (e *interruptedError) exitCode() int { return min(128+e.failed, 255) }

// lockedWriter serializes writes from the signal watcher and the command.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
