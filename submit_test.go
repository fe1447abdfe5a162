package blkq_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// minNrRequests is the smallest request pool (BLKDEV_MIN_RQ), as New
// clamps nr_requests.
const minNrRequests = 4

// gateDevice holds every request it is issued until the test releases
// it, from a goroutine of its own (never from inside Issue): the blocking
// API's paths can then be driven step by step with real goroutines.
type gateDevice struct {
	depth    int
	complete func(*blkq.Request, error)
	mu       sync.Mutex
	held     []*blkq.Request
}

func (d *gateDevice) Name() string                        { return "gate" }
func (d *gateDevice) Capacity() uint64                    { return 1 << 20 }
func (d *gateDevice) Depth() int                          { return d.depth }
func (d *gateDevice) Attach(c func(*blkq.Request, error)) { d.complete = c }
func (d *gateDevice) Close() error                        { return nil }
func (d *gateDevice) Issue(rq *blkq.Request) {
	d.mu.Lock()
	d.held = append(d.held, rq)
	d.mu.Unlock()
}

// releaseAll completes every request held now and every one issued until
// the queue is idle.
func (d *gateDevice) releaseAll(q *blkq.Queue) {
	for !q.Idle() {
		d.mu.Lock()
		held := d.held
		d.held = nil
		d.mu.Unlock()
		for _, rq := range held {
			d.complete(rq, nil)
		}
		time.Sleep(time.Millisecond)
	}
}

// ends counts each bio's EndIO calls and keeps the last error.
type ends struct {
	mu    sync.Mutex
	n     map[*blkq.Bio]int
	err   map[*blkq.Bio]error
	calls chan *blkq.Bio
}

func newEnds() *ends {
	return &ends{n: map[*blkq.Bio]int{}, err: map[*blkq.Bio]error{}, calls: make(chan *blkq.Bio, 1024)}
}

func (e *ends) bio(op blkq.Op, sector uint64, sectors uint32) *blkq.Bio {
	return &blkq.Bio{Op: op, Sector: sector, Sectors: sectors, Buf: make([]byte, int(sectors)*512),
		EndIO: func(b *blkq.Bio, err error) {
			e.mu.Lock()
			e.n[b]++
			e.err[b] = err
			e.mu.Unlock()
			e.calls <- b
		}}
}

// once checks that b ended exactly once, with want (errors.Is).
func (e *ends) once(t *testing.T, name string, b *blkq.Bio, want error) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.n[b] != 1 {
		t.Errorf("%s: EndIO called %d times, want exactly once", name, e.n[b])
		return
	}
	if got := e.err[b]; (want == nil) != (got == nil) || (want != nil && !errors.Is(got, want)) {
		t.Errorf("%s: ended with %v, want %v", name, got, want)
	}
}

func (e *ends) ended(b *blkq.Bio) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n[b] > 0
}

func newGateQueue(t *testing.T) (*blkq.Queue, *gateDevice, *blkq.DiskStats) {
	t.Helper()
	dev := &gateDevice{depth: 1}
	q, err := blkq.New(dev, blkq.NewRealClock(), blkq.Config{Scheduler: "mq-deadline", NrRequests: minNrRequests})
	if err != nil {
		t.Fatal(err)
	}
	st := &blkq.DiskStats{}
	q.AddTracer(st)
	return q, dev, st
}

func checkIdle(t *testing.T, q *blkq.Queue) {
	t.Helper()
	if err := q.CheckInvariants(); err != nil {
		t.Error(err)
	}
	if !q.Idle() {
		t.Errorf("queue not idle: %+v", q.Pool())
	}
}

// TestSubmitCancelledBeforeCallEndsBioWithCtxErr: a context already done
// ends the bio through EndIO with the context's error before Submit
// returns the same error; the queue never sees it.
func TestSubmitCancelledBeforeCallEndsBioWithCtxErr(t *testing.T) {
	q, _, st := newGateQueue(t)
	e := newEnds()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := e.bio(blkq.OpWrite, 0, 8)
	if err := q.Submit(ctx, b); !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit: %v, want context.Canceled", err)
	}
	e.once(t, "cancelled before Submit", b, context.Canceled)
	dctx, dcancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer dcancel()
	b2 := e.bio(blkq.OpRead, 0, 8)
	if err := q.Submit(dctx, b2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Submit: %v, want context.DeadlineExceeded", err)
	}
	e.once(t, "deadline passed before Submit", b2, context.DeadlineExceeded)
	if err := q.Flush(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Flush with a cancelled context: %v", err)
	}
	if s := st.Snapshot(); s.Dispatched != 0 || s.InFlight != 0 {
		t.Errorf("a cancelled bio reached the queue: %+v", s)
	}
	checkIdle(t, q)
}

// fill takes every write request of q's pool (and the device's one slot)
// with bios that cannot merge, through Submit with a background context.
func fill(t *testing.T, q *blkq.Queue, e *ends) []*blkq.Bio {
	t.Helper()
	var bs []*blkq.Bio
	for i := range minNrRequests {
		b := e.bio(blkq.OpWrite, uint64(i)*1000, 8)
		if err := q.Submit(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	if p := q.Pool(); p.Free[1] != 0 { // the write pool
		t.Fatalf("pool not exhausted: %+v", p)
	}
	return bs
}

func waitSleepers(t *testing.T, q *blkq.Queue, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); q.Pool().Sleepers != n; {
		if time.Now().After(deadline) {
			t.Fatalf("sleepers: %+v, want %d", q.Pool(), n)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// TestSubmitCancelledWhileAsleepTakesBioBack: a Submit asleep in request
// allocation whose context ends returns the context's error, its bio ends
// with it exactly once, the sleeper leaves the wait queue, and a sleeper
// behind it still gets a request.
func TestSubmitCancelledWhileAsleepTakesBioBack(t *testing.T) {
	q, dev, _ := newGateQueue(t)
	e := newEnds()
	first := fill(t, q, e)
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := e.bio(blkq.OpWrite, 50000, 8)
	res := make(chan error, 2)
	go func() { res <- q.Submit(ctx, cancelled) }()
	waitSleepers(t, q, 1)
	behind := e.bio(blkq.OpWrite, 60000, 8)
	go func() { res <- q.Submit(context.Background(), behind) }()
	waitSleepers(t, q, 2)
	cancel()
	if err := <-res; !errors.Is(err, context.Canceled) {
		t.Fatalf("Submit of the cancelled sleeper: %v, want context.Canceled", err)
	}
	e.once(t, "cancelled asleep", cancelled, context.Canceled)
	waitSleepers(t, q, 1)
	dev.releaseAll(q)
	if err := <-res; err != nil {
		t.Fatalf("Submit of the sleeper behind: %v", err)
	}
	for _, b := range append(first, behind) {
		e.once(t, "queued", b, nil)
	}
	checkIdle(t, q)
}

// TestSubmitCancelledAfterQueueingCompletesNormally: once Submit has
// returned nil, cancelling its context changes nothing.
func TestSubmitCancelledAfterQueueingCompletesNormally(t *testing.T) {
	q, dev, _ := newGateQueue(t)
	e := newEnds()
	ctx, cancel := context.WithCancel(context.Background())
	b := e.bio(blkq.OpRead, 0, 8)
	if err := q.Submit(ctx, b); err != nil {
		t.Fatal(err)
	}
	cancel()
	dev.releaseAll(q)
	e.once(t, "cancelled after queueing", b, nil)
	checkIdle(t, q)
}

// TestSubmitRefusedBiosEndBeforeSubmitReturns: a closed queue, a bio
// beyond the device, a bio whose buffer does not match its length, an
// empty read and a flush with sectors each end exactly once with their
// error before Submit returns nil.
func TestSubmitRefusedBiosEndBeforeSubmitReturns(t *testing.T) {
	q, _, _ := newGateQueue(t)
	e := newEnds()
	cases := []struct {
		name string
		b    *blkq.Bio
		want error
	}{
		{"beyond the end", e.bio(blkq.OpRead, 1<<20-4, 8), blkq.ErrBeyondEnd},
		{"sector overflow", e.bio(blkq.OpWrite, 1<<64-4, 8), blkq.ErrBeyondEnd},
		{"zero-length read", e.bio(blkq.OpRead, 0, 0), blkq.ErrBadBio},
		{"flush with sectors", e.bio(blkq.OpFlush, 0, 8), blkq.ErrBadBio},
		{"unknown op", e.bio(blkq.Op(9), 0, 8), blkq.ErrBadBio},
	}
	short := e.bio(blkq.OpWrite, 0, 8)
	short.Buf = short.Buf[:4095]
	cases = append(cases, struct {
		name string
		b    *blkq.Bio
		want error
	}{"buffer shorter than the bio", short, blkq.ErrBadBio})
	for _, c := range cases {
		if err := q.Submit(context.Background(), c.b); err != nil {
			t.Errorf("%s: Submit returned %v, want nil (the error is the bio's)", c.name, err)
		}
		if !e.ended(c.b) {
			t.Errorf("%s: not ended when Submit returned", c.name)
		}
		e.once(t, c.name, c.b, c.want)
	}
	q.Close()
	b := e.bio(blkq.OpWrite, 0, 8)
	if err := q.Submit(context.Background(), b); err != nil {
		t.Errorf("closed: Submit returned %v", err)
	}
	e.once(t, "closed", b, syscall.ENODEV)
	checkIdle(t, q)
}

// TestSubmitMergedAndPluggedBiosEndOnce: bios merged into another's
// request (under a plug and in the elevator) each end exactly once when
// that request completes, and a plugged bio goes out at Finish.
func TestSubmitMergedAndPluggedBiosEndOnce(t *testing.T) {
	q, dev, st := newGateQueue(t)
	e := newEnds()
	tk := blkq.NewGoroutineTask("plugger")
	ctx := blkq.WithTask(context.Background(), tk)
	q.Plug(tk)
	var plugged []*blkq.Bio
	for i := range 4 {
		b := e.bio(blkq.OpWrite, 100+uint64(i)*8, 8)
		if err := q.Submit(ctx, b); err != nil {
			t.Fatal(err)
		}
		plugged = append(plugged, b)
	}
	if s := st.Snapshot(); s.Dispatched != 0 || s.Merges[blkq.OpWrite] != 3 {
		t.Fatalf("under the plug: %+v, want 3 merges and nothing dispatched", s)
	}
	q.Finish(tk)
	// The device holds its one slot; these merge in the elevator.
	a := e.bio(blkq.OpRead, 500, 8)
	b := e.bio(blkq.OpRead, 508, 8)
	for _, x := range []*blkq.Bio{a, b} {
		if err := q.Submit(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	if s := st.Snapshot(); s.Merges[blkq.OpRead] != 1 {
		t.Fatalf("read merges %d, want 1", s.Merges[blkq.OpRead])
	}
	dev.releaseAll(q)
	for _, x := range append(plugged, a, b) {
		e.once(t, "merged or plugged", x, nil)
	}
	checkIdle(t, q)
}

// releaseOne completes the oldest request held, if any.
func (d *gateDevice) releaseOne() {
	d.mu.Lock()
	if len(d.held) == 0 {
		d.mu.Unlock()
		return
	}
	rq := d.held[0]
	d.held = d.held[1:]
	d.mu.Unlock()
	d.complete(rq, nil)
}

// TestSubmitOneTaskSleepsAgainAfterCancelRaces: one task (one Submit
// channel and one waiter, reused from sleep to sleep) whose sleep is
// cancelled while a request is freed for it, over and over: whichever
// wins, its bio ends once, and its next sleep ends only when it is
// granted a request (no wake-up of the race is left over for it), so no
// Submit returns while its task is still asleep.
func TestSubmitOneTaskSleepsAgainAfterCancelRaces(t *testing.T) {
	q, dev, _ := newGateQueue(t)
	e := newEnds()
	tk := blkq.NewGoroutineTask("one")
	tctx := blkq.WithTask(context.Background(), tk)
	var all []*blkq.Bio
	sector := uint64(0)
	next := func() *blkq.Bio {
		sector += 1000
		b := e.bio(blkq.OpWrite, sector, 8)
		all = append(all, b)
		return b
	}
	type result struct {
		err      error
		sleepers int // tasks asleep when Submit returned
	}
	submit := func(ctx context.Context, b *blkq.Bio) chan result {
		res := make(chan result, 1)
		go func() {
			err := q.Submit(ctx, b)
			res <- result{err, q.Pool().Sleepers}
		}()
		return res
	}
	granted, cancelled := 0, 0
	for i := range 300 {
		for q.Pool().Free[1] > 0 { // fill the write pool from other tasks
			if err := q.Submit(context.Background(), next()); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(tctx)
		b := next()
		res := submit(ctx, b)
		waitSleepers(t, q, 1)
		released := make(chan struct{})
		go func() {
			dev.releaseOne()
			close(released)
		}()
		for range i % 3 * 50 { // let the release get ahead, by varying amounts
			runtime.Gosched()
		}
		cancel()
		r := <-res
		<-released
		switch {
		case r.err == nil:
			granted++
		case errors.Is(r.err, context.Canceled):
			cancelled++
			e.once(t, "cancelled in the race", b, context.Canceled)
		default:
			t.Fatalf("Submit: %v", r.err)
		}
		for q.Pool().Free[1] > 0 {
			if err := q.Submit(context.Background(), next()); err != nil {
				t.Fatal(err)
			}
		}
		b2 := next()
		res = submit(tctx, b2)
		for q.Pool().Sleepers != 1 {
			select {
			case r := <-res:
				e.mu.Lock()
				err := e.err[b2]
				e.mu.Unlock()
				t.Fatalf("the next sleep: Submit returned %v (its bio ended: %v, with %v) before sleeping; last race: %v; pool %+v", r.err, e.ended(b2), err, r, q.Pool())
			default:
			}
		}
		dev.releaseOne()
		if r := <-res; r.err != nil || r.sleepers != 0 {
			t.Fatalf("the next sleep: Submit returned %v with %d tasks asleep, want nil once granted", r.err, r.sleepers)
		}
	}
	dev.releaseAll(q)
	for _, b := range all {
		if !e.ended(b) {
			t.Fatalf("a bio never ended")
		}
	}
	for b, n := range e.n {
		if n != 1 {
			t.Fatalf("bio at %d ended %d times", b.Sector, n)
		}
	}
	t.Logf("%d sleeps granted, %d cancelled in the race", granted, cancelled)
	checkIdle(t, q)
}
