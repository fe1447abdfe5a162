package blkq

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
)

// The queue's tunables by their Linux names, as in /sys/block/<dev>/queue/.
// Each can be read and written while requests are queued; a change takes
// effect at the next decision that consults it, and no queued request is
// lost or duplicated (a scheduler switch moves every queued request to the
// new elevator). Numbers are parsed as queue_var_store does
// (block/blk-sysfs.c); then each setter applies Linux's bounds.

const (
	maxHWSectorsKB    = 32767
	minNrRequests     = 4    // BLKDEV_MIN_RQ
	maxNrRequests     = 2048 // MAX_SCHED_RQ
	defaultNrRequests = 128  // BLKDEV_MAX_RQ
	defaultMaxSectors = 2560 // BLK_DEF_MAX_SECTORS: 1280 KiB
	defaultReadAhead  = 128  // KiB, VM_READAHEAD_PAGES
	defaultPlugLimit  = 32   // BLK_MAX_REQUEST_COUNT
)

var queueTunables = append([]tunable[*Queue]{
	{tunableInfo: tunableInfo{name: "nr_requests", unit: "requests per direction", lo: minNrRequests, hi: maxNrRequests,
		def: strconv.Itoa(defaultNrRequests), source: "Linux default 128 (BLKDEV_MAX_RQ); blk-mq: 2*min(depth, 128), the depth without an elevator",
		doc: "request pool per direction (alloc blk-mq: the one tag set); a write below 4 becomes 4 (BLKDEV_MIN_RQ), above 2048 (MAX_SCHED_RQ) is refused, and under blk-mq without an elevator above the device's depth"},
		get:   func(q *Queue) string { return strconv.Itoa(q.alloc.nr) },
		parse: parseSysfsNumber,
		set: func(q *Queue, n int64) error {
			if n > maxNrRequests {
				return fmt.Errorf("%w (at most %d)", syscall.EINVAL, maxNrRequests)
			}
			n = max(n, minNrRequests)
			if q.alloc.policy.tags && q.elv.Name() == "none" && int(n) > q.dev.Depth() {
				// blk_mq_tag_update_depth: without an elevator the tags are
				// the driver's, which cannot grow.
				return fmt.Errorf("%w (blk-mq without a scheduler: at most the device's queue depth, %d)", syscall.EINVAL, q.dev.Depth())
			}
			q.alloc.setNr(int(n))
			q.depthUpdated()
			q.wakeAll()
			return nil
		}},
	{tunableInfo: tunableInfo{name: "batch_requests", unit: "requests", lo: 1, hi: maxNrRequests,
		def: strconv.Itoa(defaultBatch(defaultNrRequests)), source: "Linux 2.4.18: nr_requests/4",
		doc: "read-only: the free count at which a release wakes sleepers (Config.BatchRequests, else nr_requests/4)"},
		get: func(q *Queue) string { return strconv.Itoa(q.alloc.batch) }},
	{tunableInfo: tunableInfo{name: "nomerges", unit: "0, 1 or 2", lo: 0, hi: 2, def: "0", source: "Linux default 0",
		doc: "0 all merges, 1 the one-hit cache only, 2 none; writing any other non-zero value means 1"},
		get:   func(q *Queue) string { return strconv.Itoa(q.cfg.NoMerges) },
		parse: parseSysfsNumber,
		set: func(q *Queue, n int64) error {
			switch {
			case n == 2:
				q.cfg.NoMerges = 2
			case n != 0:
				q.cfg.NoMerges = 1
			default:
				q.cfg.NoMerges = 0
			}
			return nil
		}},
	{tunableInfo: tunableInfo{name: "max_sectors_kb", unit: "KiB", lo: pageKB, hi: maxHWSectorsKB,
		def: strconv.Itoa(defaultMaxSectors / 2), source: "Linux default 1280 (BLK_DEF_MAX_SECTORS, 2560 sectors)",
		doc: "largest request; 0 restores the default, else a page (4) up to max_hw_sectors_kb"},
		get:   func(q *Queue) string { return strconv.Itoa(int(q.cfg.MaxSectors / 2)) },
		parse: parseSysfsNumber,
		set: func(q *Queue, n int64) error {
			hw := int64(q.lim.maxHWSectorsKB)
			if n == 0 {
				n = min(defaultMaxSectors/2, hw)
			}
			if n < pageKB || n > hw {
				return fmt.Errorf("%w (want 0 (the default) or %d..%d (page size..max_hw_sectors_kb))", syscall.EINVAL, pageKB, hw)
			}
			q.cfg.MaxSectors = uint32(n * 2)
			return nil
		}},
	{tunableInfo: tunableInfo{name: "max_hw_sectors_kb", unit: "KiB", lo: pageKB, hi: maxHWSectorsKB,
		def: strconv.Itoa(maxHWSectorsKB), source: "the device's (32767, ATA's LBA48 limit, for all of blkq's)",
		doc: "read-only: the largest max_sectors_kb"},
		get: func(q *Queue) string { return strconv.Itoa(q.lim.maxHWSectorsKB) }},
	{tunableInfo: tunableInfo{name: "read_ahead_kb", unit: "KiB", lo: 0, hi: math.MaxUint32,
		def: strconv.Itoa(defaultReadAhead), source: "Linux default 128 (VM_READAHEAD_PAGES)",
		doc: "read-ahead window for the layers above; rounded down to whole 4 KiB pages, as Linux keeps it in pages"},
		get:   func(q *Queue) string { return strconv.Itoa(q.cfg.ReadAheadKB) },
		parse: parseSysfsNumber,
		set:   func(q *Queue, n int64) error { q.cfg.ReadAheadKB = int(n / pageKB * pageKB); return nil }},
	{tunableInfo: tunableInfo{name: "scheduler", unit: "name", def: "linus [mq-deadline] mq-deadline-noprio none",
		source: "Linux's default for a single-queue device: mq-deadline (elevator_get_default)",
		doc:    "reading lists the schedulers, the active one in brackets; writing a name switches"},
		get: func(q *Queue) string {
			var parts []string
			for _, n := range elevatorNames() {
				if n == q.elv.Name() {
					n = "[" + n + "]"
				}
				parts = append(parts, n)
			}
			return strings.Join(parts, " ")
		},
		setText: func(q *Queue, v string) error {
			if _, ok := elevators[v]; !ok {
				return fmt.Errorf("%w (unknown scheduler; have %s)", syscall.EINVAL, strings.Join(elevatorNames(), ", "))
			}
			return q.switchElevator(v)
		}},
	{tunableInfo: tunableInfo{name: "alloc", unit: "name", def: allocFair.name, source: "blkq's own: the 2002 fix as merged in 2.4.18",
		doc: "request-allocation policy: " + strings.Join(allocPolicyNames(), ", ")},
		get: func(q *Queue) string { return q.alloc.policy.name },
		setText: func(q *Queue, v string) error {
			p, ok := allocPolicyByName(v)
			if !ok {
				return fmt.Errorf("%w (unknown allocation policy; have %s)", syscall.EINVAL, strings.Join(allocPolicyNames(), ", "))
			}
			q.alloc.setPolicy(p)
			q.wakeAll()
			return nil
		}},
}, limitTunables...)

// Attrs lists the queue's tunables, then the elevator's as iosched/NAME.
func (q *Queue) Attrs() []string {
	q.lock()
	defer q.release()
	names := tunableNames(queueTunables)
	if q.hooks.tun != nil {
		for _, a := range q.hooks.tun.Attrs() {
			names = append(names, "iosched/"+a)
		}
	}
	return names
}

// Attr reads a tunable by name (see Attrs); an unknown name is an error
// wrapping syscall.ENOENT, as opening a missing sysfs file fails.
func (q *Queue) Attr(name string) (string, error) {
	q.lock()
	defer q.release()
	v, err := readTunable(queueTunables, q, name)
	if a, ok := strings.CutPrefix(name, "iosched/"); ok && q.hooks.tun != nil {
		v, err = q.hooks.tun.Attr(a)
	}
	if err != nil {
		return "", fmt.Errorf("blkq: %s: %w", name, err)
	}
	return v, nil
}

// SetAttr writes a tunable by name, with Linux's parsing and bounds
// (block/blk-sysfs.c; each tunable's bounds are in
// docs/linux-block-layer.md). A refused write changes nothing. Errors
// wrap the errno (errors.Is(err, syscall.EINVAL); EACCES for a read-only
// tunable; ENOENT for an unknown name) and name the attribute and
// value, at most 200 bytes of it: blkq: nr_requests="5000": invalid
// argument (at most 2048).
func (q *Queue) SetAttr(name, value string) error {
	q.lock()
	defer q.unlock()
	err := writeTunable(queueTunables, q, name, value)
	if a, ok := strings.CutPrefix(name, "iosched/"); ok && q.hooks.tun != nil {
		if err = q.hooks.tun.SetAttr(a, value); err == nil {
			q.syncShallow()
			q.wakeAll()
			q.run()
		}
	}
	switch {
	case errors.Is(err, errNoAttr):
		return fmt.Errorf("blkq: %s: %w", name, err)
	case err != nil:
		return fmt.Errorf("blkq: %s=%s: %w", name, quoteValue(strings.TrimSpace(value)), err)
	}
	return nil
}

// pageKB is the page size in KiB: the floor of max_sectors_kb and the
// unit read_ahead_kb is kept in.
const pageKB = 4

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

// wakeAll wakes the sleepers of both directions that a tunable change let
// through.
func (q *Queue) wakeAll() {
	for d := dirRead; d <= dirWrite; d++ {
		q.queueWakeups(d)
	}
}

// queueWakeups wakes sleepers that a tunable change let through.
func (q *Queue) queueWakeups(d direction) {
	q.wakebuf = q.alloc.kick(d, q.wakebuf[:0])
	q.queueWoken()
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
	now := q.now()
	for _, rq := range drainElevator(q.elv, now) {
		e.Insert(rq, rq.Op == OpFlush, now)
	}
	q.elv, q.hooks = e, hooksOf(e)
	q.cfg.Scheduler = name
	if q.alloc.policy.tags {
		// Linux sizes the tags anew for the elevator (blk_mq_init_sched,
		// elevator_disable): a loop device goes from 128 to 256 as
		// mq-deadline replaces none.
		q.alloc.setNr(blkmqNrRequests(name, q.dev.Depth()))
		q.wakeAll()
	}
	q.depthUpdated()
	q.run()
	return nil
}
