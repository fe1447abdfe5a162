package blkq

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

func deadlineRq(op Op, sector uint64) *Request {
	return &Request{Op: op, Sector: sector, Sectors: 8}
}

func deadlineMs(n int) Time { return Time(time.Duration(n) * time.Millisecond) }

func deadlineName(r *Request) string {
	if r == nil {
		return "nil"
	}
	l := "R"
	if r.Op == OpWrite {
		l = "W"
	}
	return fmt.Sprintf("%s%d", l, r.Sector)
}

// TestExpiredFIFOHeadStartsTheBatch: with fifo_batch 1, every dispatch
// starts a batch; a batch starts at the next request in sector order unless
// the FIFO head's deadline (insert + read_expire 500 ms) has passed.
func TestExpiredFIFOHeadStartsTheBatch(t *testing.T) {
	d := newDeadline("mq-deadline")
	d.SetAttr("fifo_batch", "1")
	d.Insert(deadlineRq(OpRead, 5000), false, deadlineMs(0)) // deadline 500 ms
	d.Insert(deadlineRq(OpRead, 1000), false, deadlineMs(10))
	d.Insert(deadlineRq(OpRead, 2000), false, deadlineMs(20))
	d.Insert(deadlineRq(OpRead, 3000), false, deadlineMs(30))
	var got []string
	for _, now := range []int{100, 200, 500, 700} {
		got = append(got, deadlineName(d.Dispatch(deadlineMs(now))))
	}
	// 100 ms: nothing expired, next from sector 0 is 1000. 200 ms: 2000.
	// 500 ms: the head (5000, deadline 500 ms) has expired: it goes before
	// 3000. 700 ms: nothing lies beyond 5008, so the FIFO head, 3000.
	if want := "R1000 R2000 R5000 R3000"; strings.Join(got, " ") != want {
		t.Fatalf("dispatch order %v, want %s", got, want)
	}
	if d.Len() != 0 || d.Dispatch(deadlineMs(800)) != nil {
		t.Fatal("requests left over")
	}
}

// TestExpiryOneMsEarlierDoesNotCount pins the boundary: expired means
// now >= insert + read_expire.
func TestExpiryBoundary(t *testing.T) {
	for _, c := range []struct {
		now  int
		want string
	}{{499, "R1000"}, {500, "R5000"}} {
		d := newDeadline("mq-deadline")
		d.Insert(deadlineRq(OpRead, 5000), false, 0)
		d.Insert(deadlineRq(OpRead, 1000), false, 0)
		if got := deadlineName(d.Dispatch(deadlineMs(c.now))); got != c.want {
			t.Errorf("at %d ms dispatched %s, want %s", c.now, got, c.want)
		}
	}
}

// TestWritesStarved: with reads and writes queued and fifo_batch 1, reads
// are preferred for writes_starved (2) batches, then a write batch runs.
func TestWritesStarved(t *testing.T) {
	d := newDeadline("mq-deadline")
	d.SetAttr("fifo_batch", "1")
	for i := range 6 {
		d.Insert(deadlineRq(OpRead, uint64(1000+i*100)), false, 0)
	}
	for i := range 3 {
		d.Insert(deadlineRq(OpWrite, uint64(9000+i*100)), false, 0)
	}
	var got []string
	for range 9 {
		got = append(got, deadlineName(d.Dispatch(0))[:1])
	}
	// A new queue starts as if a write batch were under way (Linux sets
	// last_dir to WRITE), so the first dispatch continues it.
	if want := "WRRWRRWRR"; strings.Join(got, "") != want {
		t.Fatalf("directions %s, want %s", strings.Join(got, ""), want)
	}
	// writes_starved 0: writes go at every batch change when both wait.
	d = newDeadline("mq-deadline")
	d.SetAttr("fifo_batch", "1")
	d.SetAttr("writes_starved", "0")
	for i := range 2 {
		d.Insert(deadlineRq(OpRead, uint64(1000+i*100)), false, 0)
		d.Insert(deadlineRq(OpWrite, uint64(9000+i*100)), false, 0)
	}
	got = got[:0]
	for range 4 {
		got = append(got, deadlineName(d.Dispatch(0))[:1])
	}
	if want := "WWRR"; strings.Join(got, "") != want {
		t.Fatalf("writes_starved=0: %s, want %s", strings.Join(got, ""), want)
	}
}

// TestBatchRunsInSectorOrderUpToFifoBatch: a batch continues in ascending
// sector order, ignoring deadlines, for fifo_batch requests.
func TestBatchRunsInSectorOrderUpToFifoBatch(t *testing.T) {
	d := newDeadline("mq-deadline")
	d.SetAttr("fifo_batch", "3")
	for _, s := range []uint64{400, 100, 300, 200, 500} {
		d.Insert(deadlineRq(OpRead, s), false, 0)
	}
	d.Insert(deadlineRq(OpWrite, 50), false, 0)
	var got []string
	for range 6 {
		got = append(got, deadlineName(d.Dispatch(deadlineMs(10000))))
	}
	// Everything has expired at 10 s. The initial write "batch" takes W50.
	// Batch 1 (reads): FIFO head 400 (the oldest read), then 500 in sector
	// order; nothing beyond 508 ends the batch early. Batch 2: head 100,
	// then 200 and 300.
	if want := "W50 R400 R500 R100 R200 R300"; strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

func TestAttrs(t *testing.T) {
	d := newDeadline("mq-deadline")
	want := map[string]string{"read_expire": "500", "write_expire": "5000", "writes_starved": "2", "fifo_batch": "16", "front_merges": "1"}
	for k, v := range want {
		if got, err := d.Attr(k); err != nil || got != v {
			t.Errorf("%s = %q, %v; want %q (Linux default)", k, got, err, v)
		}
	}
	if err := d.SetAttr("bogus", "1"); !errors.Is(err, errNoAttr) {
		t.Errorf("unknown attribute: %v, want errNoAttr", err)
	}
}

// TestAttrBoundsClampAndOverflowIsAnError: values are parsed as a 32-bit
// int (kstrtoint) and clamped to each tunable's bounds, as mq-deadline's
// sysfs stores do; a value that does not fit (2^63 for read_expire, which
// used to read back as -1) is ERANGE, a non-number EINVAL, and neither
// changes the tunable.
func TestAttrBoundsClampAndOverflowIsAnError(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        string // read back; "" if refused
		errno       error
	}{
		{"read_expire", "2147483647", "2147483647", nil},
		{"read_expire", "-1", "0", nil},
		{"read_expire", "+250", "250", nil},
		{"read_expire", "2147483648", "", syscall.ERANGE},
		{"read_expire", "9223372036854775808", "", syscall.ERANGE},
		{"read_expire", "9223372036854775807", "", syscall.ERANGE},
		{"read_expire", "9223372036855", "", syscall.ERANGE},
		{"read_expire", "18446744073709551616", "", syscall.ERANGE},
		{"read_expire", "abc", "", syscall.EINVAL},
		{"read_expire", "", "", syscall.EINVAL},
		{"read_expire", "1.5", "", syscall.EINVAL},
		{"write_expire", "-2147483648", "0", nil},
		{"write_expire", " 1000\n", "1000", nil},
		{"write_expire", "-2147483649", "", syscall.ERANGE},
		{"fifo_batch", "-3", "0", nil},
		{"fifo_batch", "2147483647", "2147483647", nil},
		{"fifo_batch", "4294967296", "", syscall.ERANGE},
		{"writes_starved", "-2147483648", "-2147483648", nil},
		{"writes_starved", "2147483647", "2147483647", nil},
		{"writes_starved", "-2147483649", "", syscall.ERANGE},
		{"front_merges", "7", "1", nil},
		{"front_merges", "-1", "0", nil},
		{"front_merges", "0x1", "", syscall.EINVAL},
	} {
		d := newDeadline("mq-deadline")
		before, _ := d.Attr(c.name)
		err := d.SetAttr(c.name, c.value)
		got, _ := d.Attr(c.name)
		switch {
		case c.errno != nil && !errors.Is(err, c.errno):
			t.Errorf("%s=%q: error %v, want %v", c.name, c.value, err, c.errno)
		case c.errno != nil && got != before:
			t.Errorf("%s=%q refused but changed the value to %s", c.name, c.value, got)
		case c.errno == nil && (err != nil || got != c.want):
			t.Errorf("%s=%q: read back %q, %v; want %q", c.name, c.value, got, err, c.want)
		}
	}
}

// TestExpiryOverflowThroughQueueNamesAttributeAndValue: the queue's error
// for read_expire=2^63 names the attribute and the value, and the expiry
// stays as it was.
func TestExpiryOverflowThroughQueueNamesAttributeAndValue(t *testing.T) {
	q, err := New(&gated{}, newSimLoop(), Config{Scheduler: "mq-deadline"})
	if err != nil {
		t.Fatal(err)
	}
	err = q.SetAttr("iosched/read_expire", "9223372036854775808")
	if err == nil || !errors.Is(err, syscall.ERANGE) || !strings.Contains(err.Error(), `iosched/read_expire="9223372036854775808"`) {
		t.Fatalf("read_expire=2^63: %v; want ERANGE naming the attribute and value", err)
	}
	if v, _ := q.Attr("iosched/read_expire"); v != "500" {
		t.Fatalf("read_expire after the refused write: %s, want 500", v)
	}
}
