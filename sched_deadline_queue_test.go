package blkq

import (
	"testing"
)

// gated is a depth-1 device that holds each request until released.
type gated struct {
	held     []*Request
	complete func(*Request, error)
}

func (g *gated) Name() string                   { return "gated" }
func (g *gated) Capacity() uint64               { return 1 << 30 }
func (g *gated) Depth() int                     { return 1 }
func (g *gated) Attach(c func(*Request, error)) { g.complete = c }
func (g *gated) Issue(rq *Request)              { g.held = append(g.held, rq) }
func (g *gated) Close() error                   { return nil }
func (g *gated) release()                       { rq := g.held[0]; g.held = g.held[1:]; g.complete(rq, nil) }

// TestFrontAndRequestMerges: with mq-deadline, a bio that ends where a
// queued request starts merges at its front; a bio that fills the gap
// between two queued requests merges into the first and the two requests
// become one. The disk statistics count both merges, and in_flight drops
// by the request that was absorbed.
func TestFrontAndRequestMerges(t *testing.T) {
	loop := newSimLoop()
	dev := &gated{}
	q, err := New(dev, loop, Config{Scheduler: "mq-deadline"})
	if err != nil {
		t.Fatal(err)
	}
	st := &DiskStats{}
	q.AddTracer(st)
	task := NewTask(1, "t")
	ended := 0
	sub := func(sector uint64) {
		q.Enqueue(task, &Bio{Op: OpRead, Sector: sector, Sectors: 8, EndIO: func(*Bio, error) { ended++ }})
	}
	sub(1 << 20) // issued: the device is busy from now on
	sub(116)
	sub(100)
	sub(92)  // front merge into 100+8 (through the sorted tree)
	sub(108) // back merge into 92+16, which now touches 116+8: one request
	if st.Merges[OpRead] != 3 {
		t.Fatalf("read merges = %d, want 3 (front, back, request+request)", st.Merges[OpRead])
	}
	if st.InFlight != 2 {
		t.Fatalf("in_flight = %d, want 2 (the busy request and 92+32)", st.InFlight)
	}
	if p := q.Pool(); p.InUse[dirRead] != 2 || p.Queued != 1 {
		t.Fatalf("pool %+v: want 2 reads in use, 1 queued", p)
	}
	dev.release()
	loop.Run()
	if len(dev.held) != 1 || dev.held[0].Sector != 92 || dev.held[0].Sectors != 32 || dev.held[0].NrBios != 4 {
		t.Fatalf("next request issued: %+v, want 92+32 with 4 bios", dev.held)
	}
	dev.release()
	loop.Run()
	if ended != 5 || st.InFlight != 0 || st.IOs[OpRead] != 2 {
		t.Fatalf("ended %d bios, in_flight %d, read ios %d; want 5, 0, 2", ended, st.InFlight, st.IOs[OpRead])
	}
	if err := q.CheckInvariants(); err != nil || !q.Idle() {
		t.Fatalf("invariants: %v, idle %v", err, q.Idle())
	}
}
