package blkq

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// busyQueue returns a harness whose device (depth 1, held) is busy with
// one request, so that what follows queues in the elevator.
func busyQueue(t *testing.T, cfg Config) (*harness, *Task) {
	h := newHarness(t, 1, cfg)
	h.dev.manual = true
	a := NewTask(1, "a")
	h.submit(a, OpRead, 1<<20, 8)
	return h, a
}

func TestBackMergeThroughHash(t *testing.T) {
	h, a := busyQueue(t, Config{Scheduler: "none"})
	h.submit(a, OpRead, 100, 8) // becomes last_merge
	h.submit(a, OpRead, 200, 8)
	h.submit(a, OpRead, 208, 8) // not adjacent to last_merge: the hash finds 200+8
	if h.rec.count[actBackMerge] != 1 {
		t.Fatalf("back merges = %d, want 1", h.rec.count[actBackMerge])
	}
	drain(h)
	h.finish()
	if want := []string{"R 1048576+8", "R 100+8", "R 200+16"}; fmt.Sprint(h.dev.issued) != fmt.Sprint(want) {
		t.Fatalf("issued %v, want %v", h.dev.issued, want)
	}
}

func TestNoMerges1KeepsOnlyOneHitCache(t *testing.T) {
	h, a := busyQueue(t, Config{Scheduler: "none", NoMerges: 1})
	h.submit(a, OpRead, 100, 8) // last_merge
	h.submit(a, OpRead, 108, 8) // one-hit: merges
	h.submit(a, OpRead, 200, 8)
	h.submit(a, OpRead, 208, 8) // only the hash would find 200+8: no merge
	if h.rec.count[actBackMerge] != 1 {
		t.Fatalf("nomerges=1: back merges = %d, want 1 (the one-hit merge)", h.rec.count[actBackMerge])
	}
	drain(h)
	h.finish()
}

func TestNoMerges2MergesNothing(t *testing.T) {
	h, a := busyQueue(t, Config{Scheduler: "none", NoMerges: 2})
	for i := range 10 {
		h.submit(a, OpRead, 100+uint64(i)*8, 8)
	}
	if n := h.rec.count[actBackMerge] + h.rec.count[actFrontMerge]; n != 0 {
		t.Fatalf("nomerges=2: %d merges, want 0", n)
	}
	drain(h)
	h.finish()
	if len(h.dev.issued) != 11 {
		t.Fatalf("issued %d requests, want 11", len(h.dev.issued))
	}
}

func TestMergeRespectsMaxSectorsAndOp(t *testing.T) {
	h, a := busyQueue(t, Config{Scheduler: "none", MaxSectors: 16})
	h.submit(a, OpRead, 100, 8)
	h.submit(a, OpWrite, 108, 8) // different op
	h.submit(a, OpRead, 108, 8)  // 16 sectors: fits
	h.submit(a, OpRead, 116, 8)  // would be 24 > 16
	if h.rec.count[actBackMerge] != 1 {
		t.Fatalf("back merges = %d, want 1", h.rec.count[actBackMerge])
	}
	fua := h.bio(OpWrite, 116, 8)
	fua.Flags = FlagFUA
	h.q.Enqueue(a, fua)
	if h.rec.count[actBackMerge] != 1 {
		t.Fatal("a FUA write merged")
	}
	drain(h)
	h.finish()
}

func TestPlugMergesAndFlushes(t *testing.T) {
	h := newHarness(t, 1, Config{Scheduler: "none"})
	h.dev.manual = true
	a := NewTask(1, "a")
	h.q.Plug(a)
	for i := range 4 {
		h.submit(a, OpWrite, uint64(i)*8, 8) // one request, three plug merges
	}
	if got := h.rec.letters(); got != "QGPQMQMQM" {
		t.Fatalf("events under plug %q, want QGPQMQMQM", got)
	}
	h.q.Finish(a)
	if got := h.rec.letters(); got != "QGPQMQMQMUID" {
		t.Fatalf("events after finish %q", got)
	}
	// PlugLimit: the 33rd request flushes the plug first.
	h.q.Plug(a)
	for i := range 33 {
		h.submit(a, OpWrite, 10000+uint64(i)*100, 8)
	}
	if h.rec.count[actUnplug] != 2 {
		t.Fatalf("unplugs = %d, want 2 (finish, then the limit)", h.rec.count[actUnplug])
	}
	h.q.Finish(a)
	drain(h)
	h.finish()
}

// TestFlipNomergesUnderLoad flips nomerges and the scheduler while a
// random mix of contiguous and scattered bios is queued: no request may be
// lost, duplicated or stranded on the hash.
func TestFlipNomergesUnderLoad(t *testing.T) {
	h := newHarness(t, 2, Config{Scheduler: "none", NrRequests: 16})
	h.dev.manual = true
	rng := rand.New(rand.NewPCG(1, 2))
	tasks := []*sleeper{newSleeper(1), newSleeper(2), newSleeper(3)}
	next := uint64(0)
	for i := range 3000 {
		x := tasks[rng.IntN(len(tasks))]
		for len(x.resumes) > 0 {
			x.resume()
		}
		if !x.asleep() {
			sector := next
			if rng.IntN(3) == 0 {
				sector = uint64(rng.IntN(1 << 16))
			}
			op := OpRead
			if rng.IntN(2) == 0 {
				op = OpWrite
			}
			h.submit(x.Task, op, sector, 8)
			next = sector + 8
		}
		if i%7 == 0 {
			h.q.SetAttr("nomerges", fmt.Sprint(rng.IntN(3)))
		}
		if i%50 == 0 {
			h.q.SetAttr("max_sectors_kb", fmt.Sprint(4+rng.IntN(64)))
		}
		if len(h.dev.held) > 0 && rng.IntN(2) == 0 {
			h.dev.completeOne()
		}
		if err := h.q.CheckInvariants(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	drain(h, tasks...)
	h.finish()
}
