package blkq

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestSplitAtRunsSegments: a bio whose memory is scattered (Bio.Runs) is
// cut where its max_segments-th segment ends, before max_sectors_kb: with
// 128 segments of 64 KiB and a 1040 KiB read (2080 sectors) whose first
// 127 pages lie apart and whose next two pages are adjacent, the kernel's
// own split of read-2m-qd2-batch2-nomerges0-nr256 ("X R 0 / 1032"): 127
// one-page segments and one of two pages end at sector 1032. The rest,
// one run, is 9 segments and goes on whole. The same bio with no runs is
// 17 segments of at most 64 KiB and is not split; the caller's Runs are
// as they were.
func TestSplitAtRunsSegments(t *testing.T) {
	runs := make([]uint32, 0, 129)
	for range 127 {
		runs = append(runs, 8)
	}
	runs = append(runs, 16, 2080-1032)
	orig := slices.Clone(runs)
	for _, c := range []struct {
		runs   []uint32
		splits string
	}{{runs, "[X R 0+1032]"}, {nil, "[]"}} {
		h := newHarness(t, 32, Config{Scheduler: "none"})
		b := h.bio(OpRead, 0, 2080)
		b.Runs = c.runs
		if !h.q.Enqueue(NewTask(1, "a"), b) {
			t.Fatal("the task slept")
		}
		if got := fmt.Sprint(h.rec.actions("X")); got != c.splits {
			t.Fatalf("runs %v: splits %s, want %s", c.runs != nil, got, c.splits)
		}
		h.finish()
	}
	if !slices.Equal(runs, orig) {
		t.Fatal("the queue changed the caller's runs")
	}
}

// TestRunsBoundMerges: a bio's runs count toward its request's segments:
// with max_segments 4, a 4 KiB bio of two half-page runs is two segments,
// so two of them fill a request and a third gets its own.
func TestRunsBoundMerges(t *testing.T) {
	h, a := busyQueueWith(t, Config{Scheduler: "none"}, map[string]string{"max_segments": "4"})
	for i := range 3 {
		b := h.bio(OpWrite, 1000+uint64(i)*8, 8)
		b.Runs = []uint32{4, 4}
		h.q.Enqueue(a, b)
	}
	if n := h.rec.count[actBackMerge]; n != 1 {
		t.Fatalf("%d back merges, want 1 (two bios of two segments each fill four)", n)
	}
	drain(h)
	h.finish()
}

// TestRunsMustFit: runs that do not sum to the bio's size, or hold an
// empty run, make the bio malformed.
func TestRunsMustFit(t *testing.T) {
	for _, runs := range [][]uint32{{8}, {8, 0, 8}, {20}} {
		h := newHarness(t, 32, Config{Scheduler: "none"})
		b := h.bio(OpRead, 0, 16)
		b.Runs = runs
		h.q.Enqueue(NewTask(1, "a"), b)
		h.finish()
		if !errors.Is(h.errs[b], ErrBadBio) {
			t.Errorf("runs %v of a 16-sector bio: %v, want ErrBadBio", runs, h.errs[b])
		}
	}
}

// TestCutRuns: cutting runs after n sectors.
func TestCutRuns(t *testing.T) {
	for _, c := range []struct {
		runs        []uint32
		n           uint32
		front, rest string
	}{
		{[]uint32{8, 8, 8}, 8, "[8]", "[8 8]"},
		{[]uint32{8, 8, 8}, 12, "[8 4]", "[4 8]"},
		{[]uint32{24}, 16, "[16]", "[8]"},
		{[]uint32{8, 16}, 24, "[8 16]", "[]"},
	} {
		in := slices.Clone(c.runs)
		f, r := cutRuns(c.runs, c.n)
		if fmt.Sprint(f) != c.front || fmt.Sprint(r) != c.rest || !slices.Equal(in, c.runs) {
			t.Errorf("cutRuns(%v, %d) = %v, %v; want %s, %s, the input unchanged", in, c.n, f, r, c.front, c.rest)
		}
	}
}
