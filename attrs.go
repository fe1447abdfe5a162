package blkq

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Tunables by their Linux names, as in /sys/block/<dev>/queue/. Each can be
// read and written while requests are queued; a change takes effect at the
// next decision that consults it, and no queued request is lost or
// duplicated (a scheduler switch moves every queued request to the new
// elevator).
//
//	nr_requests        requests per direction (4..2048; Linux default 128)
//	batch_requests     read-only: nr_requests/4 (or Config.BatchRequests), the 2.4 wake-up batch
//	nomerges           0, 1 or 2 (writing any other non-zero value means 1)
//	max_sectors_kb     largest request, KiB (4..max_hw_sectors_kb; default 1280)
//	max_hw_sectors_kb  read-only: 32767
//	read_ahead_kb      read-ahead window for the layers above, KiB in whole pages (default 128)
//	scheduler          "[active] other ..."; write a name to switch
//	alloc              blkq's request-allocation policy (fair, legacy, ...)
//	iosched/NAME       the active elevator's tunables

const maxHWSectorsKB = 32767

// ErrNoAttr is returned for a tunable the queue or its elevator does not
// have.
var ErrNoAttr = errors.New("no such attribute")

// Attrs lists the queue's tunables, then the elevator's as iosched/NAME.
func (q *Queue) Attrs() []string {
	q.lock()
	defer q.release()
	names := []string{"nr_requests", "batch_requests", "nomerges", "max_sectors_kb", "max_hw_sectors_kb", "read_ahead_kb", "scheduler", "alloc"}
	if q.hooks.tun != nil {
		for _, a := range q.hooks.tun.Attrs() {
			names = append(names, "iosched/"+a)
		}
	}
	return names
}

// Attr reads a tunable by name.
func (q *Queue) Attr(name string) (string, error) {
	q.lock()
	defer q.release()
	switch name {
	case "nr_requests":
		return strconv.Itoa(q.alloc.nr), nil
	case "batch_requests":
		return strconv.Itoa(q.alloc.batch), nil
	case "nomerges":
		return strconv.Itoa(q.cfg.NoMerges), nil
	case "max_sectors_kb":
		return strconv.Itoa(int(q.cfg.MaxSectors / 2)), nil
	case "max_hw_sectors_kb":
		return strconv.Itoa(maxHWSectorsKB), nil
	case "read_ahead_kb":
		return strconv.Itoa(q.cfg.ReadAheadKB), nil
	case "scheduler":
		var parts []string
		for _, n := range Elevators() {
			if n == q.elv.Name() {
				n = "[" + n + "]"
			}
			parts = append(parts, n)
		}
		return strings.Join(parts, " "), nil
	case "alloc":
		return q.alloc.policy.Name, nil
	}
	if a, ok := strings.CutPrefix(name, "iosched/"); ok && q.hooks.tun != nil {
		v, err := q.hooks.tun.Attr(a)
		if err != nil {
			return "", fmt.Errorf("blkq: %s: %w", name, err)
		}
		return v, nil
	}
	return "", fmt.Errorf("blkq: %s: %w", name, ErrNoAttr)
}

// SetAttr writes a tunable by name, with Linux's parsing and bounds
// (block/blk-sysfs.c): a number is decimal, at most 4294967295 (UINT_MAX,
// queue_var_store), else the write fails with EINVAL. Per attribute:
//
//	nr_requests     below 4 becomes 4 (BLKDEV_MIN_RQ); above 2048 (MAX_SCHED_RQ): EINVAL
//	nomerges        0; 2; any other value means 1
//	max_sectors_kb  0 restores the default (1280); else 4 (page size/1024)..max_hw_sectors_kb, or EINVAL
//	read_ahead_kb   any; rounded down to whole 4 KiB pages, as Linux keeps it in pages
//	scheduler       a registered name, else EINVAL
//	alloc           a policy name, else EINVAL
//	read-only ones  EACCES
//
// A refused write changes nothing. Errors wrap the errno (errors.Is(err,
// syscall.EINVAL)) and name the attribute and value (at most
// maxQuotedValue bytes of it): blkq: nr_requests="5000": invalid
// argument (at most 2048).
func (q *Queue) SetAttr(name, value string) error {
	q.lock()
	defer q.unlock()
	value = strings.TrimSpace(value)
	bad := func(errno error, why string) error {
		return fmt.Errorf("blkq: %s=%s: %w (%s)", name, quoteValue(value), errno, why)
	}
	num := func() (uint64, error) {
		n, ok := parseSysfsUint(value)
		if !ok {
			return 0, bad(syscall.EINVAL, "want a decimal integer 0..4294967295")
		}
		return n, nil
	}
	switch name {
	case "nr_requests":
		n, err := num()
		if err != nil {
			return err
		}
		if n > MaxNrRequests {
			return bad(syscall.EINVAL, fmt.Sprintf("at most %d", MaxNrRequests))
		}
		q.alloc.setNr(max(int(n), MinNrRequests))
		for d := DirRead; d <= DirWrite; d++ {
			q.queueWakeups(d)
		}
		return nil
	case "nomerges":
		n, err := num()
		if err != nil {
			return err
		}
		switch {
		case n == 2:
			q.cfg.NoMerges = 2
		case n != 0:
			q.cfg.NoMerges = 1
		default:
			q.cfg.NoMerges = 0
		}
		return nil
	case "max_sectors_kb":
		n, err := num()
		if err != nil {
			return err
		}
		if n == 0 {
			n = min(DefaultMaxSectors/2, maxHWSectorsKB)
		}
		if n < pageKB || n > maxHWSectorsKB {
			return bad(syscall.EINVAL, fmt.Sprintf("want 0 (the default) or %d..%d (page size..max_hw_sectors_kb)", pageKB, maxHWSectorsKB))
		}
		q.cfg.MaxSectors = uint32(n * 2)
		return nil
	case "read_ahead_kb":
		n, err := num()
		if err != nil {
			return err
		}
		q.cfg.ReadAheadKB = int(n / pageKB * pageKB)
		return nil
	case "scheduler":
		have := Elevators()
		if !slices.Contains(have, value) {
			return bad(syscall.EINVAL, "unknown scheduler; have "+strings.Join(have, ", "))
		}
		return q.switchElevator(value)
	case "alloc":
		p, ok := AllocPolicyByName(value)
		if !ok {
			var names []string
			for _, p := range AllocPolicies() {
				names = append(names, p.Name)
			}
			return bad(syscall.EINVAL, "unknown allocation policy; have "+strings.Join(names, ", "))
		}
		q.alloc.setPolicy(p)
		for d := DirRead; d <= DirWrite; d++ {
			q.queueWakeups(d)
		}
		return nil
	case "batch_requests", "max_hw_sectors_kb":
		return bad(syscall.EACCES, "read-only")
	}
	if a, ok := strings.CutPrefix(name, "iosched/"); ok && q.hooks.tun != nil {
		if err := q.hooks.tun.SetAttr(a, value); err != nil {
			return fmt.Errorf("blkq: %s=%s: %w", name, quoteValue(value), err)
		}
		q.run()
		return nil
	}
	return fmt.Errorf("blkq: %s: %w", name, ErrNoAttr)
}

// pageKB is the page size in KiB: the floor of max_sectors_kb and the
// unit read_ahead_kb is kept in.
const pageKB = 4

// parseSysfsUint parses a sysfs number as queue_var_store does: decimal,
// an optional leading '+', at most UINT_MAX.
func parseSysfsUint(s string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 64)
	return n, err == nil && n <= math.MaxUint32 && s != "+"
}

// maxQuotedValue is the most bytes of a refused value an error quotes.
const maxQuotedValue = 200

// quoteValue quotes an attribute value for an error message (Go syntax),
// cut to its first maxQuotedValue bytes with "..." after the quote if
// longer. Elevators' errors need not quote it: the queue does.
func quoteValue(v string) string {
	if len(v) > maxQuotedValue {
		return strconv.Quote(v[:maxQuotedValue]) + "..."
	}
	return strconv.Quote(v)
}

// queueWakeups wakes sleepers that a tunable change let through.
func (q *Queue) queueWakeups(d Dir) {
	q.wakebuf = q.alloc.wakeup(d, q.wakebuf[:0])
	for _, w := range q.wakebuf {
		w.task.stats.Wakeups++
		q.pending = append(q.pending, deferred{w: w})
	}
}

// switchElevator moves every queued request from the current elevator to
// a new one, in the order the old one gives them up.
func (q *Queue) switchElevator(name string) error {
	if name == q.elv.Name() {
		return nil
	}
	e, err := newElevator(name, q.clk)
	if err != nil {
		return err
	}
	now := q.clk.Now()
	for _, rq := range drainElevator(q.elv, now) {
		e.Insert(rq, rq.Op == OpFlush, now)
	}
	q.elv, q.hooks = e, hooksOf(e)
	q.cfg.Scheduler = name
	q.run()
	return nil
}

// SchedulerName returns the active elevator's name.
func (q *Queue) SchedulerName() string {
	q.lock()
	defer q.release()
	return q.elv.Name()
}
