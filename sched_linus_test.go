package blkq

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func linusRq(op Op, sector uint64, sectors uint32) *Request {
	return &Request{Op: op, Sector: sector, Sectors: sectors}
}

func linusRd(sector uint64) *Request { return linusRq(OpRead, sector, 8) }
func linusWr(sector uint64) *Request { return linusRq(OpWrite, sector, 8) }

func linusRqName(r *Request) string {
	if r == nil {
		return "nil"
	}
	l := map[Op]string{OpRead: "R", OpWrite: "W", OpFlush: "F", OpDiscard: "D"}[r.Op]
	return fmt.Sprintf("%s%d", l, r.Sector)
}

// order lists the sorted list from the head, with budgets: "R100:2048 ...".
func linusOrder(l *linus) string {
	var s []string
	for p := l.sorted.Front(); p != nil; p = p.elv.next {
		s = append(s, fmt.Sprintf("%s:%d", linusRqName(p), p.elvSeq))
	}
	return strings.Join(s, " ")
}

// checkLinks verifies the list's links and count.
func linusCheckLinks(t *testing.T, l *linus) {
	t.Helper()
	n := 0
	var prev *Request
	for p := l.sorted.Front(); p != nil; p = p.elv.next {
		if p.elv.prev != prev || p.elvIndex != onSorted {
			t.Fatalf("bad links at %s", linusRqName(p))
		}
		prev = p
		n++
	}
	if prev != l.sorted.Back() || n != l.sorted.Len() {
		t.Fatalf("tail %s / count %d, want %s / %d", linusRqName(l.sorted.Back()), l.sorted.Len(), linusRqName(prev), n)
	}
}

func linusInsert(l *linus, rqs ...*Request) {
	for _, r := range rqs {
		l.Insert(r, false, 0)
	}
}

func linusDispatchAll(l *linus) string {
	var s []string
	for r := l.Dispatch(0); r != nil; r = l.Dispatch(0) {
		s = append(s, linusRqName(r))
	}
	return strings.Join(s, " ")
}

// TestSortedInsertion: requests go in sweep order, ascending from the head
// and wrapping once; ties go after the requests of equal sector; each
// seeky insert costs everything behind it seek_cost (16).
func TestSortedInsertion(t *testing.T) {
	l := newLinus(linusStock2421())
	linusInsert(l, linusRd(100), linusRd(300))
	if got, want := linusOrder(l), "R100:2048 R300:2048"; got != want {
		t.Fatalf("after appends: %s, want %s", got, want)
	}
	linusInsert(l, linusRd(200)) // between 100 and 300: passes R300
	linusInsert(l, linusRd(50))  // below the head: after the wrap, i.e. at the tail
	linusInsert(l, linusRd(400)) // above 300, before the wrap: passes R50
	linusInsert(l, linusRd(20))  // below 50, after the wrap: passes R50
	linusInsert(l, linusRd(100)) // a tie: after the R100 already there
	linusCheckLinks(t, l)
	want := "R100:2048 R100:2048 R200:2032 R300:2016 R400:2032 R20:2032 R50:2000"
	if got := linusOrder(l); got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
	if l.Len() != 7 {
		t.Fatalf("Len %d, want 7", l.Len())
	}
	if got, want := linusDispatchAll(l), "R100 R100 R200 R300 R400 R20 R50"; got != want {
		t.Fatalf("dispatch %s, want %s", got, want)
	}
	if l.Len() != 0 || l.Dispatch(0) != nil {
		t.Fatal("requests left over")
	}
}

// TestNothingGoesBeforeTheHead: the head is where the sweep starts; a
// lower sector waits for the wrap even on a two-request list.
func TestNothingGoesBeforeTheHead(t *testing.T) {
	l := newLinus(linusStock2421())
	linusInsert(l, linusWr(500), linusWr(100))
	if got, want := linusOrder(l), "W500:8192 W100:8192"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// TestExhaustedBudgetIsNeverPassed: with read_latency 16 and seek cost 16
// one seeky insert exhausts a read. After that nothing goes ahead of it: a
// later request with a lower sector goes behind it, though it may go right
// after it.
func TestExhaustedBudgetIsNeverPassed(t *testing.T) {
	l := newLinus(linusParams{ReadLatency: 16, WriteLatency: 16, SeekCost: 16})
	linusInsert(l, linusRd(100), linusRd(500))
	linusInsert(l, linusRd(300)) // passes R500: 16-16 = 0
	if got, want := linusOrder(l), "R100:16 R300:16 R500:0"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	linusInsert(l, linusRd(400)) // belongs before R500, which is exhausted: tail
	if got, want := linusOrder(l), "R100:16 R300:16 R500:0 R400:16"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	// R200 belongs at the wrap right after R500: that passes only R400.
	linusInsert(l, linusRd(200))
	if got, want := linusOrder(l), "R100:16 R300:16 R500:0 R200:16 R400:0"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	// Now R400 (the tail) is the barrier: R150 goes after it, and so does
	// R450, right after it at the wrap, passing R150.
	linusInsert(l, linusRd(150), linusRd(450))
	linusCheckLinks(t, l)
	if got, want := linusOrder(l), "R100:16 R300:16 R500:0 R200:16 R400:0 R450:16 R150:0"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	if got, want := linusDispatchAll(l), "R100 R300 R500 R200 R400 R450 R150"; got != want {
		t.Fatalf("dispatch %s, want %s", got, want)
	}
}

// TestZeroLatencyIsFIFO: with budgets of 0 every request is a barrier the
// moment it is queued, so requests are served in arrival order.
func TestZeroLatencyIsFIFO(t *testing.T) {
	l := newLinus(linusParams{ReadLatency: 0, WriteLatency: 0, MaxBombSegments: 6, SeekCost: 1})
	linusInsert(l, linusRd(300), linusWr(100), linusRd(200), linusWr(50), linusRd(250))
	if got, want := linusDispatchAll(l), "R300 W100 R200 W50 R250"; got != want {
		t.Fatalf("dispatch %s, want %s", got, want)
	}
}

// TestBudgetCharges: a seeky pass costs seek_cost, an insert contiguous
// with its new neighbour 1, a bio merge 1 to every request behind the
// merged one (and to the merged one itself for a front merge); a merge
// into the tail passes nobody.
func TestBudgetCharges(t *testing.T) {
	l := newLinus(linusStock2421())
	r100, r200, r300 := linusRd(100), linusRd(200), linusRd(300)
	linusInsert(l, r100, r300, r200)
	if got, want := linusOrder(l), "R100:2048 R200:2048 R300:2032"; got != want {
		t.Fatalf("seeky insert: %s, want %s", got, want)
	}

	// Back merge of 108+8 into R100 (the queue grows the request, then
	// tells the elevator).
	b := &Bio{Op: OpRead, Sector: 108, Sectors: 8}
	if !l.AllowMerge(r100, b) {
		t.Fatal("back merge refused")
	}
	r100.Sectors += 8
	l.Merged(r100, false)
	if got, want := linusOrder(l), "R100:2048 R200:2047 R300:2031"; got != want {
		t.Fatalf("back merge: %s, want %s", got, want)
	}

	// Front merge of 292+8 into R300: R300 itself pays 1.
	b = &Bio{Op: OpRead, Sector: 292, Sectors: 8}
	if !l.AllowMerge(r300, b) {
		t.Fatal("front merge refused")
	}
	r300.Sector, r300.Sectors = 292, 16
	l.Merged(r300, true)
	if got, want := linusOrder(l), "R100:2048 R200:2047 R292:2030"; got != want {
		t.Fatalf("front merge: %s, want %s", got, want)
	}

	// Back merge into the tail request: nobody behind it.
	r300.Sectors += 8
	l.Merged(r300, false)
	if got, want := linusOrder(l), "R100:2048 R200:2047 R292:2030"; got != want {
		t.Fatalf("tail merge: %s, want %s", got, want)
	}

	// An unmerged request that starts where R100 (100+16) ends is no seek:
	// it costs the requests it passes 1.
	linusInsert(l, linusRd(116))
	if got, want := linusOrder(l), "R100:2048 R116:2048 R200:2046 R292:2029"; got != want {
		t.Fatalf("contiguous insert: %s, want %s", got, want)
	}
	// So is one that ends where its successor starts (R192 ends at 200).
	linusInsert(l, linusRd(192))
	if got, want := linusOrder(l), "R100:2048 R116:2048 R192:2048 R200:2045 R292:2028"; got != want {
		t.Fatalf("contiguous insert: %s, want %s", got, want)
	}
	// seek_cost is a tunable.
	if err := l.SetAttr("seek_cost", "5"); err != nil {
		t.Fatal(err)
	}
	linusInsert(l, linusRd(250))
	if got, want := linusOrder(l), "R100:2048 R116:2048 R192:2048 R200:2045 R250:2048 R292:2023"; got != want {
		t.Fatalf("seek_cost 5: %s, want %s", got, want)
	}
	linusCheckLinks(t, l)
}

// TestMergesStopAtTheBarrier: a merge into a request with an exhausted
// request behind it is refused, so is a front merge into an exhausted
// request; a back merge into the exhausted tail is fine.
func TestMergesStopAtTheBarrier(t *testing.T) {
	l := newLinus(linusParams{ReadLatency: 16, WriteLatency: 16, SeekCost: 16})
	r100, r300, r500 := linusRd(100), linusRd(300), linusRd(500)
	linusInsert(l, r100, r500, r300) // R500 exhausted
	bio := func(s uint64) *Bio { return &Bio{Op: OpRead, Sector: s, Sectors: 8} }
	for _, c := range []struct {
		rq   *Request
		b    *Bio
		want bool
	}{
		{r100, bio(108), false}, // back merge: would pass R500
		{r300, bio(292), false}, // front merge: would pass R500
		{r300, bio(308), false},
		{r500, bio(492), false}, // front merge into the exhausted request itself
		{r500, bio(508), true},  // back merge into the tail: passes nobody
	} {
		if got := l.AllowMerge(c.rq, c.b); got != c.want {
			t.Errorf("AllowMerge(%s, %d+8) = %v, want %v", linusRqName(c.rq), c.b.Sector, got, c.want)
		}
	}
	// The front-merge lookup stops at the barrier too.
	if got := l.FrontMerge(300, OpRead); got != nil {
		t.Errorf("FrontMerge(300) = %s, want nil (ahead of the barrier)", linusRqName(got))
	}
	if got := l.FrontMerge(500, OpRead); got != nil {
		t.Errorf("FrontMerge(500) = %s, want nil (exhausted)", linusRqName(got))
	}
	// Behind the barrier merges are allowed again.
	r600 := linusRd(600)
	linusInsert(l, r600)
	if got := l.FrontMerge(600, OpRead); got != r600 {
		t.Errorf("FrontMerge(600) = %s, want R600", linusRqName(got))
	}
	if got := l.FrontMerge(600, OpWrite); got != nil {
		t.Errorf("FrontMerge(600, write) = %s, want nil (op differs)", linusRqName(got))
	}
	if !l.AllowMerge(r600, bio(592)) || !l.AllowMerge(r500, bio(508)) {
		t.Error("merge behind the barrier refused")
	}
}

// TestFrontMergeFindsTheTailMost: with two requests at one sector the
// lookup returns the one nearer the tail (it passes fewer requests).
func TestFrontMergeFindsTheTailMost(t *testing.T) {
	l := newLinus(linusStock2421())
	a, b := linusRd(100), linusRd(100)
	linusInsert(l, a, linusRd(200), b) // b goes after a (tie), before R200
	if got := l.FrontMerge(100, OpRead); got != b {
		t.Fatalf("FrontMerge found %p, want the second R100 %p (%s)", got, b, linusOrder(l))
	}
}

// TestMaxBombSegments: a read that finds only writes queued is put after
// the write at which the write units (1 + sectors/64 each) reach
// max_bomb_segments, unless its sorted place is earlier. The writes it
// passes pay seek_cost.
func TestMaxBombSegments(t *testing.T) {
	writes := func(l *linus) {
		for s := uint64(1000); s <= 8000; s += 1000 {
			linusInsert(l, linusWr(s))
		}
	}
	t.Run("promoted", func(t *testing.T) {
		l := newLinus(linusStock2421()) // max_bomb_segments 6
		writes(l)
		linusInsert(l, linusRd(9000)) // sorted place: the tail; promoted past W7000, W8000
		want := "W1000:8192 W2000:8192 W3000:8192 W4000:8192 W5000:8192 W6000:8192 R9000:2048 W7000:8176 W8000:8176"
		if got := linusOrder(l); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
		// A read is queued now, so the next read is sorted as usual.
		linusInsert(l, linusRd(9500))
		want = "W1000:8192 W2000:8192 W3000:8192 W4000:8192 W5000:8192 W6000:8192 R9000:2048 R9500:2048 W7000:8160 W8000:8160"
		if got := linusOrder(l); got != want {
			t.Fatalf("second read:\n got %s\nwant %s", got, want)
		}
	})
	t.Run("sorted place earlier", func(t *testing.T) {
		l := newLinus(linusStock2421())
		writes(l)
		linusInsert(l, linusRd(1500))
		if got := linusRqName(l.sorted.Front().elv.next); got != "R1500" {
			t.Fatalf("R1500 not second: %s", linusOrder(l))
		}
	})
	t.Run("large writes count more", func(t *testing.T) {
		l := newLinus(linusStock2421())
		linusInsert(l, linusRq(OpWrite, 1000, 128), linusRq(OpWrite, 2000, 64), linusWr(3000), linusWr(4000))
		linusInsert(l, linusRd(500)) // units 3, 5, 6: after W3000
		if got, want := linusOrder(l), "W1000:8192 W2000:8192 W3000:8192 R500:2048 W4000:8176"; got != want {
			t.Fatalf("%s, want %s", got, want)
		}
	})
	t.Run("off", func(t *testing.T) {
		l := newLinus(linusStock2421())
		if err := l.SetAttr("max_bomb_segments", "0"); err != nil {
			t.Fatal(err)
		}
		writes(l)
		linusInsert(l, linusRd(9000))
		if got := linusRqName(l.sorted.Back()); got != "R9000" {
			t.Fatalf("R9000 not at the tail: %s", linusOrder(l))
		}
	})
	t.Run("not past a barrier", func(t *testing.T) {
		l := newLinus(linusParams{ReadLatency: 2048, WriteLatency: 16, MaxBombSegments: 2, SeekCost: 16})
		linusInsert(l, linusWr(1000), linusWr(3000), linusWr(2000)) // W3000 exhausted
		for s := uint64(4000); s <= 8000; s += 1000 {
			linusInsert(l, linusWr(s))
		}
		// Two units are reached at W2000, but W3000 may not be passed.
		linusInsert(l, linusRd(9000))
		want := "W1000:16 W2000:16 W3000:0 R9000:2048 W4000:0 W5000:0 W6000:0 W7000:0 W8000:0"
		if got := linusOrder(l); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
	t.Run("writes are not promoted", func(t *testing.T) {
		l := newLinus(linusStock2421())
		writes(l)
		linusInsert(l, linusWr(9000))
		if got := linusRqName(l.sorted.Back()); got != "W9000" {
			t.Fatalf("W9000 not at the tail: %s", linusOrder(l))
		}
	})
}

// TestHeadInsertsGoFirst: flushes (head inserts) are served before the
// sorted list, newest first, and carry no budget.
func TestHeadInsertsGoFirst(t *testing.T) {
	l := newLinus(linusStock2421())
	linusInsert(l, linusRd(100), linusRd(200))
	f1, f2 := linusRq(OpFlush, 0, 0), linusRq(OpFlush, 0, 0)
	l.Insert(f1, true, 0)
	l.Insert(f2, true, 0)
	if l.Len() != 4 {
		t.Fatalf("Len %d, want 4", l.Len())
	}
	if l.Former(f1) != nil || l.Latter(f1) != nil || l.AllowMerge(f1, &Bio{Op: OpFlush}) {
		t.Fatal("a head insert is a merge candidate")
	}
	if got := l.Dispatch(0); got != f2 {
		t.Fatal("newest head insert not first")
	}
	if got := l.Dispatch(0); got != f1 {
		t.Fatal("second head insert not second")
	}
	if got, want := linusDispatchAll(l), "R100 R200"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// TestFormerLatterAndMergedRequests: neighbours on the list with the same
// op; a request merge keeps the smaller budget and forgets next.
func TestFormerLatterAndMergedRequests(t *testing.T) {
	l := newLinus(linusStock2421())
	r100, w108, r116, r124 := linusRd(100), linusWr(108), linusRd(116), linusRd(124)
	linusInsert(l, r100, w108, r116, r124)
	if l.Latter(r100) != nil || l.Former(r116) != nil {
		t.Fatal("neighbour of another op returned")
	}
	if l.Latter(r116) != r124 || l.Former(r124) != r116 || l.Former(r100) != nil || l.Latter(r124) != nil {
		t.Fatal("wrong neighbours")
	}
	r116.elvSeq, r124.elvSeq = 500, 7
	r116.Sectors += r124.Sectors
	l.MergedRequests(r116, r124)
	linusCheckLinks(t, l)
	if r116.elvSeq != 7 {
		t.Fatalf("merged budget %d, want 7 (the smaller)", r116.elvSeq)
	}
	if r124.elv.prev != nil || r124.elv.next != nil || l.Len() != 3 {
		t.Fatal("next not forgotten")
	}
	if got, want := linusDispatchAll(l), "R100 W108 R116"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// TestDrain returns every request, head inserts first, then in dispatch
// order, and leaves the elevator empty and the requests unlinked.
func TestDrain(t *testing.T) {
	l := newLinus(linusStock2421())
	rqs := []*Request{linusRd(300), linusWr(100), linusRd(200), linusWr(50)}
	linusInsert(l, rqs...)
	f := linusRq(OpFlush, 0, 0)
	l.Insert(f, true, 0)
	got := l.Drain()
	var names []string
	for _, r := range got {
		names = append(names, linusRqName(r))
		if r.elv.prev != nil || r.elv.next != nil || r.elvIndex != onNone {
			t.Errorf("%s still linked", linusRqName(r))
		}
	}
	if want := "F0 R300 W50 W100 R200"; strings.Join(names, " ") != want {
		t.Fatalf("drained %v, want %s", names, want)
	}
	if l.Len() != 0 || l.Dispatch(0) != nil || l.sorted.Front() != nil || l.sorted.Back() != nil {
		t.Fatal("not empty after Drain")
	}
	// Usable again afterwards.
	linusInsert(l, got[1:]...)
	if l.Len() != 4 {
		t.Fatalf("Len %d after reinserting, want 4", l.Len())
	}
}

func TestTunables(t *testing.T) {
	l := newLinus(linusStock2421())
	if got, want := l.Attrs(), []string{"read_latency", "write_latency", "max_bomb_segments", "seek_cost"}; !slices.Equal(got, want) {
		t.Fatalf("Attrs %v, want %v", got, want)
	}
	want := map[string]string{"read_latency": "2048", "write_latency": "8192", "max_bomb_segments": "6", "seek_cost": "16"}
	for k, v := range want {
		if got, err := l.Attr(k); err != nil || got != v {
			t.Errorf("%s = %q, %v; want %q (stock 2.4.21)", k, got, err, v)
		}
	}
	if _, err := l.Attr("bogus"); !errors.Is(err, errNoAttr) {
		t.Errorf("Attr(bogus) error %v, want errNoAttr", err)
	}
	for _, c := range []struct{ name, value, want string }{
		{"read_latency", "128", "128"},
		{"write_latency", " 512\n", "512"},
		{"max_bomb_segments", "0", "0"},
		{"seek_cost", "1", "1"},
		{"read_latency", "0", "0"},
	} {
		if err := l.SetAttr(c.name, c.value); err != nil {
			t.Errorf("SetAttr(%s, %q): %v", c.name, c.value, err)
		}
		if got, _ := l.Attr(c.name); got != c.want {
			t.Errorf("%s = %q after writing %q, want %q", c.name, got, c.value, c.want)
		}
	}
	before := l.linusParams()
	for _, c := range []struct{ name, value string }{
		{"read_latency", "-1"},
		{"write_latency", "x"},
		{"max_bomb_segments", "-3"},
		{"seek_cost", "0"},
		{"seek_cost", "99999999999"},
		{"read_latency", ""},
	} {
		if err := l.SetAttr(c.name, c.value); err == nil {
			t.Errorf("SetAttr(%s, %q) accepted", c.name, c.value)
		}
	}
	if err := l.SetAttr("bogus", "1"); !errors.Is(err, errNoAttr) {
		t.Errorf("SetAttr(bogus) error %v, want errNoAttr", err)
	}
	if l.linusParams() != before {
		t.Errorf("a refused write changed the tunables: %+v, want %+v", l.linusParams(), before)
	}

	// A new latency applies to requests inserted afterwards.
	l = newLinus(linusStock2421())
	a := linusRd(100)
	linusInsert(l, a)
	l.SetAttr("read_latency", "7")
	b := linusRd(200)
	linusInsert(l, b)
	if a.elvSeq != 2048 || b.elvSeq != 7 {
		t.Fatalf("budgets %d, %d; want 2048, 7", a.elvSeq, b.elvSeq)
	}
}

func TestParams(t *testing.T) {
	if got, want := linusTuned2003(), (linusParams{ReadLatency: 128, WriteLatency: 512, MaxBombSegments: 0, SeekCost: 1}); got != want {
		t.Errorf("linusTuned2003 %+v, want %+v", got, want)
	}
	if got, want := linusStock2421(), (linusParams{ReadLatency: 2048, WriteLatency: 8192, MaxBombSegments: 6, SeekCost: 16}); got != want {
		t.Errorf("linusStock2421 %+v, want %+v", got, want)
	}
	for _, p := range []linusParams{{SeekCost: 0}, {ReadLatency: -1, SeekCost: 1}, {WriteLatency: -1, SeekCost: 1}, {MaxBombSegments: -1, SeekCost: 1}} {
		if p.Validate() == nil {
			t.Errorf("%+v valid", p)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newLinus(%+v) did not panic", p)
				}
			}()
			newLinus(p)
		}()
	}
	if err := (linusParams{SeekCost: 1}).Validate(); err != nil {
		t.Errorf("zero latencies refused: %v", err)
	}
}

func TestRegistered(t *testing.T) {
	if !slices.Contains(elevatorNames(), "linus") {
		t.Fatalf("linus not registered: %v", elevatorNames())
	}
}

// TestTunableOverflowIsAnErrorNotAWrap: values past an int are ERANGE,
// out-of-bounds ones and non-numbers EINVAL; none changes a tunable.
func TestTunableOverflowIsAnErrorNotAWrap(t *testing.T) {
	l := newLinus(linusStock2421())
	before := l.linusParams()
	for _, c := range []struct {
		name, value string
		errno       error
	}{
		{"read_latency", "9223372036854775808", syscall.ERANGE},
		{"write_latency", "2147483648", syscall.ERANGE},
		{"max_bomb_segments", "-2147483649", syscall.ERANGE},
		{"seek_cost", "0", syscall.EINVAL},
		{"read_latency", "-1", syscall.EINVAL},
		{"write_latency", "5e3", syscall.EINVAL},
	} {
		if err := l.SetAttr(c.name, c.value); !errors.Is(err, c.errno) {
			t.Errorf("%s=%q: %v, want %v", c.name, c.value, err, c.errno)
		}
	}
	if err := l.SetAttr("read_latency", "2147483647"); err != nil {
		t.Errorf("read_latency=MaxInt32: %v", err)
	}
	if l.linusParams().ReadLatency != 2147483647 || l.linusParams().WriteLatency != before.WriteLatency {
		t.Errorf("tunables %+v", l.linusParams())
	}
}
