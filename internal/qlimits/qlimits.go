// Package qlimits holds a device's queue limits under the names
// /sys/block/<dev>/queue/ gives them, for blkq's devices to state (their
// QueueLimit method, which the request queue reads when it is made):
// whether the device rotates, its block sizes, the largest transfer and
// scatter/gather list it takes, its discard limits, and whether it has a
// volatile write cache and FUA. The values of each device kind, and the
// Linux drivers they follow, are in docs/linux-block-layer.md.
package qlimits

import "strconv"

// Limits are a device's queue limits. Sizes are in bytes unless a name
// says KiB.
type Limits struct {
	Rotational         bool   // rotational: 1 for a spinning disk
	LogicalBlockSize   int    // logical_block_size: the smallest unit the device addresses
	PhysicalBlockSize  int    // physical_block_size: the unit it writes without read-modify-write
	MaxHWSectorsKB     int    // max_hw_sectors_kb: the largest transfer, KiB
	MaxSegments        int    // max_segments: scatter/gather elements per request
	MaxSegmentSize     int    // max_segment_size: bytes per element
	MaxDiscardSegments int    // max_discard_segments: ranges one discard request may carry
	DiscardMaxBytes    uint64 // discard_max_bytes (discard_max_hw_bytes): the largest discard; 0 for none
	WriteCache         bool   // write_cache: "write back" for a volatile write cache, else "write through"
	FUA                bool   // fua: the device writes a FUA write through its cache by itself
}

// Names lists the attributes Value answers, in sysfs's order.
var Names = []string{"rotational", "logical_block_size", "physical_block_size", "max_hw_sectors_kb",
	"max_segments", "max_segment_size", "max_discard_segments", "discard_max_bytes", "write_cache", "fua"}

// Value returns the attribute name as sysfs shows it, and false for a name
// it does not hold.
func (l Limits) Value(name string) (string, bool) {
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	switch name {
	case "rotational":
		return b(l.Rotational), true
	case "logical_block_size":
		return strconv.Itoa(l.LogicalBlockSize), true
	case "physical_block_size":
		return strconv.Itoa(l.PhysicalBlockSize), true
	case "max_hw_sectors_kb":
		return strconv.Itoa(l.MaxHWSectorsKB), true
	case "max_segments":
		return strconv.Itoa(l.MaxSegments), true
	case "max_segment_size":
		return strconv.Itoa(l.MaxSegmentSize), true
	case "max_discard_segments":
		return strconv.Itoa(l.MaxDiscardSegments), true
	case "discard_max_bytes":
		return strconv.FormatUint(l.DiscardMaxBytes, 10), true
	case "write_cache":
		if l.WriteCache {
			return "write back", true
		}
		return "write through", true
	case "fua":
		return b(l.FUA), true
	}
	return "", false
}

// Linux's limits for a driver that sets none (include/linux/blkdev.h,
// block/blk-settings.c): 128 segments (BLK_MAX_SEGMENTS) of 64 KiB
// (BLK_MAX_SEGMENT_SIZE), one discard range.
const (
	DefaultMaxSegments    = 128
	DefaultMaxSegmentSize = 65536
)

// MaxDiscardBytes is the largest discard a 32-bit byte count holds in
// whole sectors, 4294966784 (UINT_MAX rounded down to 512): what a loop
// device on Linux 6.18 shows as discard_max_bytes.
const MaxDiscardBytes = 4294966784
