package blkq

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// Queue limits: what the device says about itself, as Linux's drivers say
// it in the queue's limits and /sys/block/<dev>/queue/ shows it
// (rotational, block sizes, transfer and discard limits, the volatile
// write cache and FUA). A Device states them by implementing
//
//	QueueLimit(name string) (value string, ok bool)
//
// answering each name with its sysfs text ("write back", "512", "1");
// the queue reads them once, in New. A name the device does not answer,
// or a device without the method, takes the value below: a device that
// does not say is taken to have a volatile write cache and FUA, so every
// flush and FUA write reaches it, as before blkq sequenced flushes.
//
// The limits are read-only tunables, except rotational and write_cache,
// which Linux lets an administrator change: writing "write through" (or
// "none") to write_cache makes the queue treat the device as having no
// cache (flushes end at once, FUA is dropped) until "write back" is
// written again, which cannot give a cache to a device that has none.
// The queue splits bios at max_segments and max_segment_size, and
// discards at discard_max_bytes, and bounds merges by them (split.go).

// A queueLimiter is a Device that states its limits (see above).
type queueLimiter interface {
	QueueLimit(name string) (value string, ok bool)
}

// limits are the device's queue limits.
type limits struct {
	rotational         bool
	logicalBlockSize   int // bytes
	physicalBlockSize  int // bytes
	maxHWSectorsKB     int
	maxSegments        int
	maxSegmentSize     int // bytes
	maxDiscardSegments int
	discardMaxBytes    uint64
	writeCache         bool // the device has a volatile write cache (BLK_FEAT_WRITE_CACHE)
	fua                bool // and writes FUA writes through it (BLK_FEAT_FUA)
}

// defaultLimits are the limits of a device that states none: 512-byte
// blocks, Linux's segment defaults (BLK_MAX_SEGMENTS 128,
// BLK_MAX_SEGMENT_SIZE 65536), a write cache with FUA.
var defaultLimits = limits{logicalBlockSize: SectorSize, physicalBlockSize: SectorSize, maxHWSectorsKB: maxHWSectorsKB,
	maxSegments: 128, maxSegmentSize: 65536, maxDiscardSegments: 1, discardMaxBytes: 4294966784, writeCache: true, fua: true}

// readLimits asks dev for its limits. A value it states that is not
// what sysfs would show (a non-number, a block size that is not a power
// of two from 512 to 64 KiB, a transfer limit below a page or above
// 32767 KiB) is an error naming the device and the attribute.
func readLimits(dev Device) (limits, error) {
	l := defaultLimits
	ql, ok := dev.(queueLimiter)
	if !ok {
		return l, nil
	}
	bad := func(name, v, want string) error {
		return fmt.Errorf("blkq: device %s: queue limit %s=%q: want %s", dev.Name(), name, v, want)
	}
	flag := func(name string, p *bool) error {
		if v, ok := ql.QueueLimit(name); ok {
			if v != "0" && v != "1" {
				return bad(name, v, "0 or 1")
			}
			*p = v == "1"
		}
		return nil
	}
	num := func(name string, lo, hi int64, p *int) error {
		if v, ok := ql.QueueLimit(name); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < lo || n > hi {
				return bad(name, v, fmt.Sprintf("a number %d..%d", lo, hi))
			}
			*p = int(n)
		}
		return nil
	}
	blockSize := func(name string, p *int) error {
		if err := num(name, SectorSize, 65536, p); err != nil {
			return err
		}
		if *p&(*p-1) != 0 {
			return bad(name, strconv.Itoa(*p), "a power of two")
		}
		return nil
	}
	for _, err := range []error{
		flag("rotational", &l.rotational),
		blockSize("logical_block_size", &l.logicalBlockSize),
		blockSize("physical_block_size", &l.physicalBlockSize),
		num("max_hw_sectors_kb", pageKB, maxHWSectorsKB, &l.maxHWSectorsKB),
		num("max_segments", 1, 65535, &l.maxSegments),
		num("max_segment_size", 4096, 1<<32-1, &l.maxSegmentSize),
		num("max_discard_segments", 1, 65535, &l.maxDiscardSegments),
		flag("fua", &l.fua),
	} {
		if err != nil {
			return l, err
		}
	}
	if l.physicalBlockSize < l.logicalBlockSize {
		return l, bad("physical_block_size", strconv.Itoa(l.physicalBlockSize), "at least logical_block_size")
	}
	if v, ok := ql.QueueLimit("discard_max_bytes"); ok {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return l, bad("discard_max_bytes", v, "a number of bytes")
		}
		l.discardMaxBytes = n
	}
	if v, ok := ql.QueueLimit("write_cache"); ok {
		switch v {
		case "write back":
			l.writeCache = true
		case "write through":
			l.writeCache = false
		default:
			return l, bad("write_cache", v, `"write back" or "write through"`)
		}
	}
	// FUA means nothing without a cache to write through (Linux's
	// blk_validate_limits drops it).
	l.fua = l.fua && l.writeCache
	return l, nil
}

// writeCache reports whether the queue treats the device as having a
// volatile write cache: it has one and write_cache was not written
// "write through" (blk_queue_write_cache).
func (q *Queue) writeCache() bool { return q.lim.writeCache && !q.wcOff }

// fua reports whether a FUA write goes to the device as such, rather than
// followed by a flush.
func (q *Queue) fua() bool { return q.writeCache() && q.lim.fua }

// limitTunables are the limits' files in /sys/block/<dev>/queue/; their
// defaults are those of a device that states none.
var limitTunables = []tunable[*Queue]{
	{tunableInfo: tunableInfo{name: "max_segments", unit: "segments", lo: 1, hi: 65535, def: "128",
		source: "the device's (Linux's BLK_MAX_SEGMENTS if it says none)", doc: "read-only: scatter/gather elements per request; bios are split at it, and merges stop there (split.go)"},
		get: func(q *Queue) string { return strconv.Itoa(q.lim.maxSegments) }},
	{tunableInfo: tunableInfo{name: "max_segment_size", unit: "bytes", lo: 4096, hi: 1<<32 - 1, def: "65536",
		source: "the device's (Linux's BLK_MAX_SEGMENT_SIZE if it says none)", doc: "read-only: bytes per scatter/gather element"},
		get: func(q *Queue) string { return strconv.Itoa(q.lim.maxSegmentSize) }},
	{tunableInfo: tunableInfo{name: "max_discard_segments", unit: "ranges", lo: 1, hi: 65535, def: "1",
		source: "the device's (1 if it says none)", doc: "read-only: ranges one discard request may carry"},
		get: func(q *Queue) string { return strconv.Itoa(q.lim.maxDiscardSegments) }},
	{tunableInfo: tunableInfo{name: "discard_max_bytes", unit: "bytes", def: "4294966784",
		source: "the device's (a loop device's if it says none)", doc: "read-only: the largest discard; larger ones are split (split.go)"},
		get: func(q *Queue) string { return strconv.FormatUint(q.lim.discardMaxBytes, 10) }},
	{tunableInfo: tunableInfo{name: "logical_block_size", unit: "bytes", lo: SectorSize, hi: 65536, def: "512",
		source: "the device's (512 if it says none)", doc: "read-only: the smallest unit the device addresses"},
		get: func(q *Queue) string { return strconv.Itoa(q.lim.logicalBlockSize) }},
	{tunableInfo: tunableInfo{name: "physical_block_size", unit: "bytes", lo: SectorSize, hi: 65536, def: "512",
		source: "the device's (512 if it says none)", doc: "read-only: the unit the device writes without read-modify-write"},
		get: func(q *Queue) string { return strconv.Itoa(q.lim.physicalBlockSize) }},
	{tunableInfo: tunableInfo{name: "rotational", unit: "0 or 1", lo: 0, hi: 1, def: "0",
		source: "the device's (Linux 6.11+: 0 unless the driver says 1)", doc: "1 for a spinning disk; any non-zero write means 1 (nothing in blkq acts on it)"},
		get: func(q *Queue) string {
			if q.lim.rotational {
				return "1"
			}
			return "0"
		},
		parse: parseSysfsNumber,
		set:   func(q *Queue, n int64) error { q.lim.rotational = n != 0; return nil }},
	{tunableInfo: tunableInfo{name: "write_cache", unit: "text", def: "write back",
		source: "the device's (write back if it says none)",
		doc:    `"write back" if the queue sends flushes and FUA to a volatile write cache; "write through" or "none" turns that off; "write back" turns it on again if the device has one (flush.go)`},
		get: func(q *Queue) string {
			if q.writeCache() {
				return "write back"
			}
			return "write through"
		},
		setText: func(q *Queue, v string) error {
			// queue_wc_store compares prefixes: "write back" (10 bytes),
			// "write through" (13), "none" (4).
			switch {
			case strings.HasPrefix(v, "write back"):
				q.wcOff = false
			case strings.HasPrefix(v, "write through"), strings.HasPrefix(v, "none"):
				q.wcOff = true
			default:
				return fmt.Errorf(`%w (want "write back", "write through" or "none")`, syscall.EINVAL)
			}
			q.kickFlush()
			q.run()
			return nil
		}},
	{tunableInfo: tunableInfo{name: "fua", unit: "0 or 1", lo: 0, hi: 1, def: "1",
		source: "the device's (1 if it says none; 0 without a write cache)", doc: "read-only: 1 if a FUA write goes to the device as such, 0 if a flush follows it"},
		get: func(q *Queue) string {
			if q.lim.fua {
				return "1"
			}
			return "0"
		}},
}
