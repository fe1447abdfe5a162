package trace_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/trace"
)

// pressureTrace runs direct I/O that merges every way and runs short of
// requests: six tasks submit 8-sector reads and writes in a 512-sector
// region of a one-at-a-time device behind mq-deadline with nr_requests
// 4, a fifth of the reads read-ahead. It returns the binary trace, the
// Disk stats and the events counted by action (request merges under
// "M-rq", dropped read-aheads under "C-ra").
func pressureTrace(t *testing.T) ([]byte, blkq.DiskStats, map[string]int) {
	t.Helper()
	loop := sim.NewLoop()
	dev := &fixedDevice{loop: loop, service: 200 * time.Microsecond}
	q, err := blkq.New(dev, loop, blkq.Config{Scheduler: "mq-deadline", NrRequests: 4})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := trace.NewWriter(&buf, trace.WriterOptions{})
	stats := &blkq.DiskStats{}
	count := map[string]int{}
	q.AddTracer(w)
	q.AddTracer(stats)
	q.AddTracer(blkq.TracerFunc(func(e *blkq.Event) {
		a := string(rune(e.Action))
		switch {
		case e.Action == 'M' && e.Bio == nil:
			a = "M-rq"
		case e.Action == 'C' && e.Rq == nil:
			if !errors.Is(e.Err, blkq.ErrReadAheadDropped) {
				t.Errorf("a C without a request ended with %v", e.Err)
			}
			a = "C-ra"
		}
		count[a]++
	}))
	rng := sim.NewRNG(11)
	for i := range 6 {
		task := blkq.NewTask(100+i, "io"+strconv.Itoa(i))
		r := rng.Split(task.Name)
		left := 400
		var step func()
		step = func() {
			if left == 0 {
				return
			}
			left--
			b := &blkq.Bio{Op: blkq.OpRead, Sector: 8 * r.Uint64N(64), Sectors: 8}
			switch n := r.IntN(10); {
			case n < 4:
				b.Op = blkq.OpWrite
			case n < 6:
				b.Flags = blkq.FlagReadAhead
			}
			if q.Enqueue(task, b) {
				loop.Schedule(time.Duration(r.Int64N(int64(100*time.Microsecond))), step)
			}
		}
		task.Wake = func(resume func() bool) {
			loop.Post(func() {
				if resume() {
					step()
				}
			})
		}
		loop.Post(step)
	}
	loop.Run()
	if err := q.Check(true); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), *stats, count
}

// TestMergeTotalsEqualDiskStats: for direct I/O the trace's merge totals,
// as blkparse counts them (its M and F records, request merges included
// since Linux 5.11 traces them as M), equal Disk stats' merges exactly,
// as /proc/diskstats counts bio and request merges alike. A read-ahead
// dropped under pressure is a C with -EAGAIN in the trace, and not a
// completed read in Disk stats. blkparse reads it all without a complaint
// and prints what PrintSummary prints.
func TestMergeTotalsEqualDiskStats(t *testing.T) {
	data, st, count := pressureTrace(t)
	if count["M-rq"] == 0 || count["F"] == 0 || count["C-ra"] == 0 || count["S"] == 0 || count["W"] == 0 {
		t.Fatalf("the run did not exercise request merges, front merges, read-ahead drops and sleeps: %v", count)
	}
	if n := uint64(count["M"] + count["M-rq"] + count["F"]); st.Merges[blkq.OpRead]+st.Merges[blkq.OpWrite] != n {
		t.Fatalf("Disk stats merges %v, the stream's M and F %d", st.Merges, n)
	}
	if got, want := st.IOs[blkq.OpRead]+st.IOs[blkq.OpWrite], uint64(count["C"]); got != want {
		t.Fatalf("Disk stats completed %d I/Os, the stream %d completions with a request", got, want)
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pressure.blktrace.0"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := blkparse(t, dir, "pressure")
	recs, err := trace.ReadAll(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	sameText(t, "pressure", printed(t, recs, "pressure"), out)
	merges := func(dir string) uint64 {
		m := regexp.MustCompile(dir + ` Merges: +(\d+),`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no %s Merges line in blkparse's summary:\n%s", dir, out)
		}
		n, _ := strconv.ParseUint(m[1], 10, 64)
		return n
	}
	if r, w := merges("Read"), merges("Write"); r != st.Merges[blkq.OpRead] || w != st.Merges[blkq.OpWrite] {
		t.Fatalf("blkparse: read merges %d, write merges %d; Disk stats %d, %d", r, w, st.Merges[blkq.OpRead], st.Merges[blkq.OpWrite])
	}
	// The kernel stores -EAGAIN in the record's 16-bit error field, and
	// blkparse prints that field unsigned.
	errno := -int32(syscall.EAGAIN)
	eagain := "[" + strconv.Itoa(int(uint16(errno))) + "]"
	if n := strings.Count(out, eagain); n != count["C-ra"] {
		t.Fatalf("blkparse shows %d completions with %s (-EAGAIN), the run dropped %d read-aheads", n, eagain, count["C-ra"])
	}
	t.Logf("merges read %d write %d (%d request merges), %d read-aheads dropped, %d sleeps, %d wake-ups",
		st.Merges[blkq.OpRead], st.Merges[blkq.OpWrite], count["M-rq"], count["C-ra"], count["S"], count["W"])
}
