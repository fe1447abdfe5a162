package sim

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

var _ blkq.Clock = (*Loop)(nil)

func TestLoopOrder(t *testing.T) {
	var l Loop
	var got []string
	rec := func(s string) func() {
		return func() { got = append(got, fmt.Sprintf("%s@%d", s, l.Now())) }
	}
	l.AfterFunc(30, rec("c"))
	l.AfterFunc(10, rec("a"))
	l.Schedule(20, rec("b"))
	l.ScheduleAt(15, rec("ab"))
	l.Run()
	want := []string{"a@10", "ab@15", "b@20", "c@30"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if l.Now() != 30 || l.Pending() != 0 || l.Events() != 4 {
		t.Fatalf("now %d pending %d events %d", l.Now(), l.Pending(), l.Events())
	}
}

func TestLoopSameTimeFIFO(t *testing.T) {
	var l Loop
	var got []int
	for i := range 100 {
		// Interleave two ways of scheduling at the same instant.
		if i%2 == 0 {
			l.Schedule(5, func() { got = append(got, i) })
		} else {
			l.ScheduleAt(5, func() { got = append(got, i) })
		}
	}
	// Events posted from inside an event run after those already queued
	// for the same time.
	l.Schedule(5, func() {
		l.Post(func() { got = append(got, 1000) })
		l.AfterFunc(-time.Second, func() { got = append(got, 1001) })
	})
	l.Run()
	if len(got) != 102 {
		t.Fatalf("ran %d events", len(got))
	}
	for i := range 100 {
		if got[i] != i {
			t.Fatalf("position %d ran event %d: %v", i, got[i], got)
		}
	}
	if got[100] != 1000 || got[101] != 1001 || l.Now() != 5 {
		t.Fatalf("tail %v at %d", got[100:], l.Now())
	}
}

func TestLoopTimeNeverGoesBack(t *testing.T) {
	var l Loop
	l.RunUntil(100)
	if l.Now() != 100 {
		t.Fatalf("RunUntil on an empty loop: now %d", l.Now())
	}
	var at []blkq.Time
	l.ScheduleAt(50, func() { at = append(at, l.Now()) }) // in the past: runs now
	l.AfterFunc(-5, func() { at = append(at, l.Now()) })
	l.Schedule(math.MaxInt64, func() { at = append(at, l.Now()) }) // saturates
	l.Run()
	if !slices.Equal(at, []blkq.Time{100, 100, math.MaxInt64}) {
		t.Fatalf("ran at %v", at)
	}
}

func TestLoopRunUntil(t *testing.T) {
	var l Loop
	n := 0
	for _, d := range []time.Duration{10, 20, 20, 30} {
		l.Schedule(d, func() { n++ })
	}
	l.RunUntil(20)
	if n != 3 || l.Now() != 20 || l.Pending() != 1 {
		t.Fatalf("after RunUntil(20): ran %d, now %d, pending %d", n, l.Now(), l.Pending())
	}
	l.RunUntil(25)
	if n != 3 || l.Now() != 25 {
		t.Fatalf("after RunUntil(25): ran %d, now %d", n, l.Now())
	}
	l.RunUntil(10) // in the past: nothing runs, time stays
	if l.Now() != 25 {
		t.Fatalf("RunUntil into the past moved the clock to %d", l.Now())
	}
	l.Run()
	if n != 4 || l.Now() != 30 {
		t.Fatalf("after Run: ran %d, now %d", n, l.Now())
	}
}

func TestLoopStop(t *testing.T) {
	var l Loop
	n := 0
	for i := 1; i <= 10; i++ {
		l.Schedule(time.Duration(i), func() {
			n++
			if n == 3 {
				l.Stop()
			}
		})
	}
	l.Run()
	if n != 3 || l.Now() != 3 || l.Pending() != 7 {
		t.Fatalf("after Stop: ran %d, now %d, pending %d", n, l.Now(), l.Pending())
	}
	// Stop inside RunUntil leaves the clock at the last event.
	l.Schedule(1, l.Stop)
	l.RunUntil(100)
	if l.Now() != 4 || n != 4 {
		t.Fatalf("RunUntil after Stop: now %d, ran %d", l.Now(), n)
	}
	l.Run() // resumes
	if n != 10 || l.Now() != 10 {
		t.Fatalf("resume: ran %d, now %d", n, l.Now())
	}
}

func TestLoopCancel(t *testing.T) {
	var l Loop
	var got []int
	stops := make([]func() bool, 10)
	for i := range 10 {
		stops[i] = l.AfterFunc(time.Duration(10-i%3), func() { got = append(got, i) })
	}
	// Cancel from outside the loop, then from inside an event.
	if !stops[4]() || stops[4]() {
		t.Fatal("stop of a pending event: want true, then false")
	}
	l.Schedule(0, func() {
		if !stops[0]() {
			t.Error("stop from inside an event failed")
		}
	})
	l.Run()
	want := []int{2, 5, 8, 1, 7, 3, 6, 9}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// After an event ran, its stop reports false, even when the event
	// struct has been recycled for a new, still pending event.
	again := l.AfterFunc(1, func() { got = append(got, 99) })
	for i, s := range stops {
		if s() {
			t.Fatalf("stale stop %d cancelled something", i)
		}
	}
	l.Run()
	if got[len(got)-1] != 99 || again() {
		t.Fatalf("recycled event: got %v", got)
	}
}

// TestLoopHeapRandom checks the heap against a sort over many random
// schedules and cancellations.
func TestLoopHeapRandom(t *testing.T) {
	rng := NewRNG(1)
	var l Loop
	type key struct {
		at  blkq.Time
		seq int
	}
	var want, got []key
	stops := map[int]func() bool{}
	seq := 0
	for range 5000 {
		at := blkq.Time(rng.Int64N(1000))
		k := key{at, seq}
		seq++
		want = append(want, k)
		stops[k.seq] = l.AfterFunc(time.Duration(at), func() { got = append(got, k) })
		if rng.IntN(4) == 0 {
			victim := rng.IntN(seq)
			if s, ok := stops[victim]; ok && s() {
				want = slices.DeleteFunc(want, func(k key) bool { return k.seq == victim })
			}
		}
	}
	slices.SortStableFunc(want, func(a, b key) int { return int(a.at - b.at) })
	l.Run()
	if !slices.Equal(got, want) {
		t.Fatalf("heap order differs from sorted order (%d vs %d events)", len(got), len(want))
	}
}

func TestLoopDeterminism(t *testing.T) {
	run := func(seed uint64) []blkq.Time {
		var l Loop
		rng := NewRNG(seed)
		var trace []blkq.Time
		var tick func()
		tick = func() {
			trace = append(trace, l.Now())
			if len(trace) < 1000 {
				l.Schedule(time.Duration(rng.Int64N(100)), tick)
				if rng.IntN(3) == 0 {
					l.Post(func() { trace = append(trace, -l.Now()) })
				}
			}
		}
		for range 4 {
			l.Post(tick)
		}
		l.Run()
		return trace
	}
	a, b, c := run(7), run(7), run(8)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different runs")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds, same run")
	}
}

func TestLoopRunFromEventPanics(t *testing.T) {
	var l Loop
	l.Post(func() {
		defer func() {
			if recover() == nil {
				t.Error("nested Run did not panic")
			}
		}()
		l.Run()
	})
	l.Run()
}

func TestLoopSteadyStateAllocs(t *testing.T) {
	var l Loop
	var n int
	var f func()
	f = func() {
		if n++; n%64 != 0 {
			l.Schedule(time.Duration(n%7), f)
		}
	}
	warm := func() {
		for range 8 {
			l.Post(f)
		}
		l.Run()
	}
	warm()
	if a := testing.AllocsPerRun(100, warm); a != 0 {
		t.Fatalf("%.1f allocations per run of 64 events, want 0", a)
	}
}

// BenchmarkLoop measures the loop's throughput with 64 pending events,
// each rescheduling itself a pseudo-random delay ahead (a disk, a few
// dozen jobs and their timers keep about that many).
func BenchmarkLoop(b *testing.B) {
	benchLoop(b, 64)
}

// BenchmarkLoopWide is BenchmarkLoop with 4096 pending events.
func BenchmarkLoopWide(b *testing.B) {
	benchLoop(b, 4096)
}

func benchLoop(b *testing.B, width int) {
	var l Loop
	var x uint64 = 1
	left := b.N
	var f func()
	f = func() {
		if left <= 0 {
			return
		}
		left--
		x = x*6364136223846793005 + 1442695040888963407
		l.Schedule(time.Duration(x>>54), f) // 0..1023 ns ahead
	}
	for range width {
		l.Post(f)
	}
	b.ReportAllocs()
	b.ResetTimer()
	l.Run()
	b.StopTimer()
	b.ReportMetric(float64(l.Events())/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkLoopAfterFunc measures AfterFunc with a cancel of every other
// timer, the pattern of request-expiry timers.
func BenchmarkLoopAfterFunc(b *testing.B) {
	var l Loop
	nop := func() {}
	b.ReportAllocs()
	for i := range b.N {
		stop := l.AfterFunc(time.Duration(i%1000), nop)
		if i%2 == 0 {
			stop()
		}
		if l.Pending() > 1024 {
			l.RunUntil(l.Now() + 100)
		}
	}
	l.Run()
}
