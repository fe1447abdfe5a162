package blkq

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
)

// The blocking API, for real goroutines: each call runs as its own task,
// sleeps (blocks) when no request is free, and returns when its I/O is done.
// It wraps the non-blocking core with one channel per task (submitWait),
// made at the task's first Submit.

var nextPID atomic.Int64

// NewGoroutineTask returns a task whose Wake resumes it at once, for
// callers that block on their own (as ReadAt does).
func NewGoroutineTask(name string) *Task {
	return &Task{PID: int(1<<20 + nextPID.Add(1)), Name: name}
}

// taskKey carries a caller's Task in a context.
type taskKey struct{}

// WithTask returns a context whose Submit calls run as task t, so they
// share its plug and its allocation counters.
func WithTask(ctx context.Context, t *Task) context.Context {
	return context.WithValue(ctx, taskKey{}, t)
}

// Submit hands b to the queue, as submit_bio does, and blocks while the
// submitter sleeps for a free request; it returns once b is queued. The
// task is the one in ctx (WithTask) or a new one.
//
// The contract, on every path: b.EndIO is called exactly once.
//
//   - ctx is done before Submit is called, or while it sleeps for a
//     request: b is not queued (a sleeper is taken off its wait queue and
//     the wake-up it may have been given passes to the next sleeper).
//     EndIO gets ctx.Err(), on the calling goroutine before Submit
//     returns, and Submit returns the same error.
//   - b is queued (merged into a request, given a request of its own,
//     or held on the task's plug): Submit returns nil and b completes
//     normally through EndIO; ctx no longer matters.
//   - the queue refuses b (closed: an error wrapping ENODEV; malformed: ErrBadBio;
//     beyond the device: ErrBeyondEnd; a read-ahead bio under pressure:
//     ErrReadAheadDropped): EndIO gets that error before Submit returns,
//     and Submit returns nil, as the outcome is b's, like a device error.
//
// So a non-nil result always means "ended by ctx", and a caller that
// waits for EndIO never waits for ever.
func (q *Queue) Submit(ctx context.Context, b *Bio) error {
	t, _ := ctx.Value(taskKey{}).(*Task)
	if t == nil {
		t = NewGoroutineTask("submit")
	}
	if err := ctx.Err(); err != nil {
		b.task, b.next, b.Ended = t, nil, 0
		if b.EndIO != nil {
			b.EndIO(b, err)
		}
		return err
	}
	sw := t.submitWaiter()
	t.Wake = sw.wake
	if q.Enqueue(t, b) {
		return nil
	}
	select {
	case <-sw.woken:
		return nil
	case <-ctx.Done():
		err := ctx.Err()
		if q.cancelWait(t, b, err) {
			return err
		}
		// Granted a request meanwhile: queued after all. The wake-up
		// that granted it sends its token once resume returns; take it,
		// so that the task's next sleep does not end on it.
		<-sw.woken
		return nil
	}
}

// submitWait is how Submit blocks a task's goroutine while the task
// sleeps for a request: one per task, made at its first Submit and used
// by every later one, so that a Submit allocates no channel and no
// closure. woken holds at most one token, sent by wake when the task is
// granted its request (a cancelled sleep's resume reports false and
// sends none; a grant that races the cancellation is drained by Submit).
type submitWait struct {
	woken chan struct{}
	wake  func(resume func() bool) // bound once: the Task's Wake during a Submit
}

// submitWaiter returns t's submitWait, making it on first use. Only the
// task's own goroutine submits, so no lock is needed.
func (t *Task) submitWaiter() *submitWait {
	if sw := t.submit; sw != nil {
		return sw
	}
	sw := &submitWait{woken: make(chan struct{}, 1)}
	sw.wake = func(resume func() bool) {
		if resume() {
			sw.woken <- struct{}{}
		}
	}
	t.submit = sw
	return sw
}

// ReadAt reads len(p) bytes at byte offset off through the queue
// (io.ReaderAt). It is safe for concurrent use. I/O that is not a whole
// number of 512-byte sectors is done through a bounce buffer. Reading past
// the device's end returns the bytes before it and io.EOF.
func (q *Queue) ReadAt(p []byte, off int64) (int, error) {
	return q.rw(OpRead, p, off)
}

// WriteAt writes len(p) bytes at byte offset off through the queue
// (io.WriterAt). Partial sectors are read, modified and written back, which
// is not atomic against a concurrent write to the same sector.
func (q *Queue) WriteAt(p []byte, off int64) (int, error) {
	return q.rw(OpWrite, p, off)
}

// Flush makes earlier writes durable (a flush request: fdatasync on a
// file device).
func (q *Queue) Flush(ctx context.Context) error {
	done := make(chan error, 1)
	b := &Bio{Op: OpFlush, Flags: FlagSync, EndIO: func(_ *Bio, err error) { done <- err }}
	if err := q.Submit(ctx, b); err != nil {
		return err
	}
	return <-done
}

func (q *Queue) rw(op Op, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("blkq: negative offset %d", off)
	}
	if len(p) == 0 && op == OpWrite {
		return 0, nil // nothing to write: no read-modify-write either
	}
	size := int64(q.dev.Capacity()) << SectorShift
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := int64(len(p))
	var eof error
	if off+n > size {
		n = size - off
		eof = io.EOF
	}
	start := off &^ (SectorSize - 1)
	end := (off + n + SectorSize - 1) &^ (SectorSize - 1)
	aligned := start == off && end == off+n && isAligned(p)
	buf := p[:n]
	if !aligned {
		buf = alignedBuffer(int(end - start))
		if op == OpWrite {
			// Read the partial sectors at both ends first.
			if _, err := q.io(OpRead, buf, start); err != nil {
				return 0, err
			}
			copy(buf[off-start:], p[:n])
		}
	}
	if _, err := q.io(op, buf, start); err != nil {
		return 0, err
	}
	if !aligned && op == OpRead {
		copy(p, buf[off-start:off-start+n])
	}
	return int(n), eof
}

// io submits buf (whole sectors) at byte offset off as bios of at most
// max_sectors each, under a plug, and waits for all of them.
func (q *Queue) io(op Op, buf []byte, off int64) (int, error) {
	t := NewGoroutineTask("rw")
	q.lock()
	chunk := int(q.cfg.MaxSectors) << SectorShift
	q.release()
	nbios := (len(buf) + chunk - 1) / chunk
	done := make(chan error, nbios)
	ctx := WithTask(context.Background(), t)
	q.Plug(t)
	for i := 0; i < len(buf); i += chunk {
		part := buf[i:min(i+chunk, len(buf))]
		b := &Bio{Op: op, Sector: uint64(off+int64(i)) >> SectorShift, Sectors: uint32(len(part) >> SectorShift),
			Buf: part, Flags: FlagSync, EndIO: func(_ *Bio, err error) { done <- err }}
		q.Submit(ctx, b)
	}
	q.Finish(t)
	var first error
	for range nbios {
		if err := <-done; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return 0, first
	}
	return len(buf), nil
}

// Alignment of buffers for O_DIRECT devices.
const bufAlign = 4096

func isAligned(p []byte) bool {
	if len(p) == 0 {
		return true
	}
	return uintptrOf(p)%bufAlign == 0
}

func alignedBuffer(n int) []byte {
	b := make([]byte, n+bufAlign)
	a := int(uintptrOf(b) % bufAlign)
	if a != 0 {
		a = bufAlign - a
	}
	return b[a : a+n : a+n]
}

// Close stops the queue from accepting bios: any submitted afterwards ends
// at once with an error wrapping syscall.ENODEV. Requests already queued or in flight complete
// normally. The device is not closed (it may be shared).
func (q *Queue) Close() error {
	q.lock()
	q.closed = true
	q.release()
	return nil
}
