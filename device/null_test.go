package device

import (
	"errors"
	"sync"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
)

var (
	_ blkq.Device = (*Null)(nil)
	_ blkq.Device = (*File)(nil)
)

func TestNullOnLoop(t *testing.T) {
	l := sim.NewLoop()
	l.RunUntil(1000)
	n := NewNull(l, 1<<20, 4)
	if n.Name() != "null" || n.Capacity() != 1<<20 || n.Depth() != 4 {
		t.Fatalf("name %q capacity %d depth %d", n.Name(), n.Capacity(), n.Depth())
	}
	var got []*blkq.Request
	inIssue := false
	n.Attach(func(rq *blkq.Request, err error) {
		if inIssue || err != nil || l.Now() != 1000 {
			t.Errorf("completion in Issue %v, err %v, at %d", inIssue, err, l.Now())
		}
		got = append(got, rq)
	})
	var want []*blkq.Request
	for i := range 4 {
		rq := &blkq.Request{Op: blkq.OpRead, Sector: uint64(i)}
		want = append(want, rq)
		inIssue = true
		n.Issue(rq)
		inIssue = false
	}
	l.Run()
	if len(got) != 4 {
		t.Fatalf("%d completions", len(got))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("completion %d out of order", i)
		}
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNullSteadyStream reissues from every completion, as a queue at full
// depth does: the device's internal queue must stay bounded.
func TestNullSteadyStream(t *testing.T) {
	l := sim.NewLoop()
	n := NewNull(l, 100, 32)
	done := 0
	n.Attach(func(rq *blkq.Request, err error) {
		if done++; done < 100000 {
			n.Issue(rq)
		}
		if len(n.fifo) > 64 {
			t.Fatalf("fifo grew to %d", len(n.fifo))
		}
	})
	for range 32 {
		n.Issue(&blkq.Request{})
	}
	l.Run()
	if done != 100000+31 {
		t.Fatalf("%d completions", done)
	}
	if a := testing.AllocsPerRun(10, func() {
		n.Issue(&blkq.Request{})
		l.Run()
	}); a > 1 {
		t.Errorf("%.1f allocations per request (want only the test's own)", a)
	}
}

func TestNullRealClock(t *testing.T) {
	const depth, total = 8, 20000
	n := NewNull(blkq.NewRealClock(), 100, depth)
	slots := make(chan struct{}, depth) // the queue's depth limit
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[*blkq.Request]int{}
	n.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		seen[rq]++
		mu.Unlock()
		<-slots
		wg.Done()
	})
	var issuers sync.WaitGroup
	var issueMu sync.Mutex // the queue lock: Issue calls are serialised
	for g := range 4 {
		issuers.Add(1)
		go func() {
			defer issuers.Done()
			for i := range total / 4 {
				rq := &blkq.Request{Op: blkq.OpWrite, Sector: uint64(g*total + i)}
				slots <- struct{}{}
				wg.Add(1)
				issueMu.Lock()
				n.Issue(rq)
				issueMu.Unlock()
			}
		}()
	}
	issuers.Wait()
	wg.Wait()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != total {
		t.Fatalf("%d distinct completions of %d", len(seen), total)
	}
	for _, c := range seen {
		if c != 1 {
			t.Fatal("a request completed twice")
		}
	}
	// After Close: ErrClosed, still asynchronously.
	errc := make(chan error, 1)
	n.Attach(func(rq *blkq.Request, err error) { errc <- err })
	n.Issue(&blkq.Request{})
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if err := n.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func BenchmarkNullLoop(b *testing.B) {
	l := sim.NewLoop()
	n := NewNull(l, 100, 32)
	left := b.N
	n.Attach(func(rq *blkq.Request, err error) {
		if left--; left > 0 {
			n.Issue(rq)
		}
	})
	b.ReportAllocs()
	n.Issue(&blkq.Request{})
	l.Run()
}

// TestNullInline: once its queue calls RunInline, a real-clock Null
// completes a request on the goroutine that issued it, before RunInline
// returns; a completion that issues the next request (as the queue's
// does, dispatching what waits) and calls RunInline does not complete it
// nested inside itself but in the drainer's next round; after
// inlineRounds rounds the completer goroutine takes the rest, and every
// request completes once, in issue order.
func TestNullInline(t *testing.T) {
	n := NewNull(blkq.NewRealClock(), 100, 4)
	var issueMu sync.Mutex // the queue lock
	issue := func(rq *blkq.Request) {
		issueMu.Lock()
		n.Issue(rq)
		issueMu.Unlock()
		n.RunInline()
	}
	// The first RunInline tells the device that its queue calls it.
	n.Attach(func(*blkq.Request, error) {})
	n.RunInline()

	const chain = 3 * inlineRounds
	var (
		mu     sync.Mutex
		order  []uint64
		on     []string // the goroutine of each completion
		depth  int
		deeper bool
		all    sync.WaitGroup
	)
	all.Add(1 + chain)
	n.Attach(func(rq *blkq.Request, err error) {
		mu.Lock()
		depth++
		deeper = deeper || depth > 1
		order = append(order, rq.Sector)
		on = append(on, goid())
		mu.Unlock()
		if err != nil {
			t.Error(err)
		}
		if rq.Sector > 0 && rq.Sector < chain {
			issue(&blkq.Request{Sector: rq.Sector + 1}) // the next, from inside this completion
		}
		mu.Lock()
		depth--
		mu.Unlock()
		all.Done()
	})
	me := goid()
	issue(&blkq.Request{Sector: 0})
	mu.Lock()
	if len(order) != 1 || order[0] != 0 || on[0] != me {
		t.Fatalf("after RunInline: completed %v, want [0] (inline, before it returned)", order)
	}
	mu.Unlock()

	issue(&blkq.Request{Sector: 1}) // a chain, each issued by the last's completion
	all.Wait()
	if deeper {
		t.Error("a completion ran nested inside another")
	}
	for i, s := range order {
		if s != uint64(i) {
			t.Fatalf("completion order %v, want issue order", order)
		}
	}
	for i, g := range on[1:] {
		if inlined := g == me; inlined != (i < inlineRounds) {
			t.Errorf("request %d completed on the issuer: %v; want the issuer's RunInline to complete the first %d (its budget), the completer the rest", i+1, inlined, inlineRounds)
		}
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNullInlineConcurrent: submitters on several goroutines, each
// issuing under the queue lock and calling RunInline after it, get every
// request completed exactly once, with Close waiting for the drainer.
func TestNullInlineConcurrent(t *testing.T) {
	const submitters, each = 8, 2000
	n := NewNull(blkq.NewRealClock(), 100, 32)
	var issueMu sync.Mutex
	var seenMu sync.Mutex
	seen := map[*blkq.Request]int{}
	var dones [submitters]chan struct{} // by the request's Sector
	for g := range dones {
		dones[g] = make(chan struct{}, 1)
	}
	n.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			t.Error(err)
		}
		seenMu.Lock()
		seen[rq]++
		seenMu.Unlock()
		dones[rq.Sector] <- struct{}{}
	})
	var wg sync.WaitGroup
	for g := range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			done := dones[g]
			for range each {
				rq := &blkq.Request{Sector: uint64(g)}
				issueMu.Lock()
				n.Issue(rq)
				issueMu.Unlock()
				n.RunInline()
				<-done
			}
		}()
	}
	wg.Wait()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != submitters*each {
		t.Fatalf("%d distinct completions, want %d", len(seen), submitters*each)
	}
	for _, c := range seen {
		if c != 1 {
			t.Fatal("a request completed twice")
		}
	}
}
