package bcache

import (
	"fmt"
	"sync"
	"testing"

	"github.com/blkq-dev/blkq"
)

// One core, two clocks: the same calls, through the core's API with the same
// clients, make the same write-back decisions in virtual time over a
// data-less cache and on real goroutines over a file with data.

// qLog records Q events as "pid op page flags", under a mutex.
type qLog struct {
	mu  sync.Mutex
	out []string
}

func (l *qLog) Trace(e *blkq.Event) {
	if e.Action != 'Q' {
		return
	}
	l.mu.Lock()
	l.out = append(l.out, fmt.Sprintf("%d %v %d %v", e.PID, e.Op, e.Sector/sectorsPerPage, e.Flags))
	l.mu.Unlock()
}

// clockScenario runs, with the flusher stopped (its timing is the clock's
// and differs between the two): a write of 100 pages of file a by pid 100
// through a 200-page cache (hard threshold 40, so it writes back batches
// itself), a write of 10 pages of file b by pid 101, and a Sync of file a
// by pid 200. buf returns a buffer of so many pages (nil: no data); wait
// runs one call and waits for it (on the loop, or on a channel).
func clockScenario(t *testing.T, c *Cache, buf func(pages int) []byte, wait func(start func(done func()))) {
	t.Helper()
	fa, err := c.AddFile("a", 0, 1000*PageSize)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddFile("b", 1000*PageSize, 1000*PageSize); err != nil {
		t.Fatal(err)
	}
	c.stopFlusher()
	w, w2, s := c.NewClient(blkq.NewTask(100, "w")), c.NewClient(blkq.NewTask(101, "w2")), c.NewClient(blkq.NewTask(200, "s"))
	check := func(done func()) func(int, error) {
		return func(_ int, err error) {
			if err != nil {
				t.Error(err)
			}
			done()
		}
	}
	write := func(cl *Client, pages int, off int64, done func(int, error)) {
		if b := buf(pages); b != nil {
			c.StartWrite(cl, b, off, done)
		} else {
			c.StartWriteN(cl, int64(pages)*PageSize, off, done)
		}
	}
	wait(func(done func()) { write(w, 100, 0, check(done)) })
	wait(func(done func()) { write(w2, 10, 1000*PageSize, check(done)) })
	wait(func(done func()) {
		c.StartSync(s, fa, func(r SyncResult, err error) {
			if err != nil || r.DirtyAtStart != r.Written {
				t.Errorf("Sync of a: %+v, %v", r, err)
			}
			done()
		})
	})
}

func TestSameDecisionsOnBothClocks(t *testing.T) {
	// Virtual time, no data.
	v := newVT(t, 4096, Config{Pages: 200}, blkq.Config{})
	var vlog qLog
	v.q.AddTracer(&vlog)
	clockScenario(t, v.c, func(int) []byte { return nil }, func(start func(done func())) {
		ok := false
		v.loop.Post(func() { start(func() { ok = true }) })
		v.loop.Run()
		if !ok {
			t.Fatal("a call did not complete in virtual time")
		}
	})

	// A file, real goroutines, data.
	path := makeDisk(t, 4096)
	q, _ := openQueue(t, path, nil)
	var flog qLog
	q.AddTracer(&flog)
	c, err := New(q, Config{Pages: 200})
	if err != nil {
		t.Fatal(err)
	}
	clockScenario(t, c, func(pages int) []byte { return make([]byte, pages*PageSize) }, func(start func(done func())) {
		ch := make(chan struct{})
		start(func() { close(ch) })
		<-ch
	})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// Close adds its own Sync of b on the file; compare what came before.
	got := flog.out[:min(len(flog.out), len(vlog.out))]
	if fmt.Sprint(got) != fmt.Sprint(vlog.out) {
		t.Fatalf("Q events differ:\nvirtual %v\nfile    %v", vlog.out, flog.out)
	}
	// 100 pages dirtied with a hard threshold of 40: after 64 and 96 pages
	// the writer is over it and writes the oldest 32 itself (0-31, then
	// 32-63); at its end 36 are dirty, under 40. The second writer's 10
	// pages make 46: it writes the oldest 32, file a's 64-95, whoever
	// dirtied them. The Sync of a writes what is left of a, 96-99, and
	// flushes; b's 10 pages are not its business.
	var want []string
	for p := 0; p < 100; p++ {
		pid, flags := 100, blkq.Flags(0)
		switch {
		case p >= 96:
			pid, flags = 200, blkq.FlagSync
		case p >= 64:
			pid = 101
		}
		want = append(want, fmt.Sprintf("%d %v %d %v", pid, blkq.OpWrite, p, flags))
	}
	want = append(want, fmt.Sprintf("200 %v 0 %v", blkq.OpFlush, blkq.FlagSync))
	if fmt.Sprint(vlog.out) != fmt.Sprint(want) {
		t.Errorf("Q events\n%v\nwant\n%v", vlog.out, want)
	}
}
