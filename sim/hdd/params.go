package hdd

import (
	"errors"
	"fmt"
	"time"

	"github.com/blkq-dev/blkq/sim"
)

// Params describe a simulated disk. A zero field takes the DefaultParams
// value, so Params{Depth: 32} is the default disk with NCQ.
type Params struct {
	// Capacity is the disk's size in 512-byte sectors. Default 1048576000
	// (500 GiB), blkq's choice: a common size for a 7200 rpm desktop disk.
	Capacity uint64
	// RPM is the spindle speed in revolutions per minute. Default 7200
	// (docs/design.md, "Simulated devices"): 8.33 ms per revolution, 4.17 ms
	// average rotational latency.
	RPM int
	// TrackToTrack is the seek time between adjacent cylinders. Default
	// 0.8 ms (docs/design.md, "Simulated devices").
	TrackToTrack time.Duration
	// AvgSeek is the seek time over a third of the stroke, the mean
	// distance between two random cylinders. Default 8.5 ms (docs/design.md,
	// "Simulated devices").
	AvgSeek time.Duration
	// FullStroke is the seek time from the first cylinder to the last.
	// Default 16 ms (docs/design.md, "Simulated devices").
	FullStroke time.Duration
	// MediaRate is the rate, in bytes/s, at which data passes under the
	// head; with RPM it sets the sectors per track. Default 150e6 bytes/s
	// (docs/design.md, "Simulated devices": about 150 MB/s).
	MediaRate float64
	// TrackSkew is the rotation, in sectors, of each track's first sector
	// relative to the previous track's. 0 (the default) derives it: the
	// whole sectors that pass during a track-to-track seek (235 for the
	// defaults). A negative value means no skew: sector s sits at angle
	// (s mod SectorsPerTrack)/SectorsPerTrack on every track, and reading
	// on across a track boundary costs a full revolution.
	TrackSkew int
	// Depth is how many requests the disk accepts at once. Default 1 (an
	// IDE disk of 2002: requests are served in arrival order). With
	// Depth > 1 the disk models NCQ: it serves next, among the requests it
	// holds, the one it can reach soonest.
	Depth int

	// CommandOverhead is the controller's time for every command before
	// any data moves: taking the command from the interface, decoding it
	// and looking its range up in the buffer. A read served from the
	// buffer costs only this and the host transfer. Default 0.1 ms, the
	// "read, cache hit" command overhead in the Hitachi Deskstar 7K3000
	// (a 7200 rpm SATA disk) specification, table 5; the sources disagree
	// by a few tens of µs:
	// DiskSim's validated Seagate Barracuda ST32171W (7200 rpm) has a read
	// hit overhead of 0.082 ms, IBM's Ultrastar specifications (DDRS-39130,
	// 146Z10) give < 0.03 ms. A negative value means none.
	CommandOverhead time.Duration
	// MissOverhead is the controller's further time, before the seek
	// starts, for a command that must go to the media: a read the buffer
	// cannot serve, and every write (there is no write cache). Default
	// 0.4 ms, so that a miss costs 0.5 ms of overhead in all: the middle
	// of the "cache not hit" figures, which disagree: Hitachi Deskstar
	// 7K3000 0.5 ms typical, IBM Ultrastar DDRS-39130 and 146Z10 < 0.4 ms,
	// DiskSim's Seagate Barracuda ST32171W 0.613 ms, and PC Guide's
	// "Command Overhead Time" about 0.5 ms for drives of the 2000s. A
	// negative value means none.
	MissOverhead time.Duration
	// BusRate is the host interface's rate in bytes/s: how fast data
	// held in the buffer reaches the host. Default 300e6: Serial ATA at
	// 3 Gb/s (300 MB/s after 8b/10b coding), the interface of 7200 rpm
	// desktop disks from 2005 on (Hitachi Deskstar 7K500). The parallel
	// ATA-100 (100 MB/s) and ATA-133 of 2002, and even SATA 1.5 Gb/s
	// (150 MB/s), would be no faster than this model's 150 MB/s media,
	// which would make a buffer hit slower than reading the platter.
	BusRate float64
	// ReadAheadBytes is how far, in bytes (rounded down to whole
	// sectors), the drive reads ahead of the end of the last read it
	// served: the size of its read-ahead window (see cache.go). Default
	// 512 KiB (1024 sectors), between the sources: DiskSim's Barracuda
	// ST32171W reads ahead at most 281 sectors (140.5 KiB) and its Maxtor
	// Atlas 10K V 512 (256 KiB); Fujitsu's ATA disks read ahead until
	// their read buffer is full: 256 KiB of the 512 KiB buffer of the
	// MHF2043AT, up to 1968 KiB of the 2 MiB of the MPG3xxxAH. A negative
	// value disables the read-ahead buffer: every read then goes to the
	// media. Each of the CacheSegments segments has a window of this
	// size (see CacheSegments).
	ReadAheadBytes int
	// CacheSegments is how many read-ahead segments the buffer has. Each
	// holds one sequential stream's data and its read-ahead window of
	// ReadAheadBytes, so interleaved sequential streams keep one segment
	// each; a read that misses them all replaces the least recently used
	// (cache.go). 1 to MaxCacheSegments. Default 4, so that with the
	// default window the buffer holds 2 MiB, the buffer of a desktop ATA
	// disk of 2002 (Zhu and Hu, "Disk built-in caches: evaluation on
	// system performance", MASCOTS 2003: "2 MB buffers are common on
	// low-end retail IDE/ATA drives"). ATA disk manuals describe
	// segmentation without a count (Western Digital's CacheFlow
	// "partitions the buffer into multiple segments"; Maxtor's
	// DiamondMax allocates "a variable number of read and write buffers";
	// Quantum's Fireball Plus AS has "adaptive segmentation"). Where 7200
	// rpm SCSI disks of the late 1990s document a count it is 3 to 7: DiskSim's
	// validated Seagate Barracuda ST32171W has 3 segments of 281 sectors,
	// its Quantum Atlas III 6 of 64 and its IBM Ultrastar 18ES 7 of 511
	// (each with a maximum read-ahead of one segment, as here); the
	// Seagate Barracuda 2LP defaults to 3 (of 1 to 16); the IBM Ultrastar
	// DDRS-39130 offers 3 × 128 KB or 6 × 64 KB. Quantum's older ProDrive
	// defaults to 4 segments and replaces the least recently used. Zhu
	// and Hu also find that the buffer does little for sequential
	// workloads once there are more concurrent streams than segments,
	// which the model reproduces.
	CacheSegments int
}

// MaxCacheSegments bounds Params.CacheSegments: Seagate's disks of the
// time take any number of segments from 1 to 16 (Barracuda 2LP and 18XL
// product manuals, mode page 08h).
const MaxCacheSegments = 16

// DefaultParams returns the default disk: 500 GiB, 7200 rpm, seeks of
// 0.8/8.5/16 ms, 150 MB/s, queue depth 1, derived track skew, command
// overhead 0.1 ms plus 0.4 ms on a miss, a 300 MB/s interface and four
// read-ahead segments of 512 KiB each.
func DefaultParams() Params {
	return Params{
		Capacity:        500 << 30 >> 9,
		RPM:             7200,
		TrackToTrack:    800 * time.Microsecond,
		AvgSeek:         8500 * time.Microsecond,
		FullStroke:      16 * time.Millisecond,
		MediaRate:       150e6,
		Depth:           1,
		CommandOverhead: 100 * time.Microsecond,
		MissOverhead:    400 * time.Microsecond,
		BusRate:         300e6,
		ReadAheadBytes:  512 << 10,
		CacheSegments:   4,
	}
}

// withDefaults returns p with every zero field set from DefaultParams.
func (p Params) withDefaults() Params { return sim.WithDefaults(p, DefaultParams()) }

// maxOverhead bounds CommandOverhead and MissOverhead, far above any disk's
// and far below where sums of times could overflow.
const maxOverhead = time.Second

// Validate reports whether p (with its zero fields defaulted) describes a
// disk the model can simulate.
func (p Params) Validate() error {
	p = p.withDefaults()
	var errs []error
	if p.RPM < 0 || p.RPM > 1_000_000 {
		errs = append(errs, fmt.Errorf("RPM %d out of range 1..1000000", p.RPM))
	}
	if p.TrackToTrack < 0 || p.AvgSeek < p.TrackToTrack || p.FullStroke < p.AvgSeek {
		errs = append(errs, fmt.Errorf("seek times must satisfy 0 < track-to-track (%v) <= average (%v) <= full stroke (%v)",
			p.TrackToTrack, p.AvgSeek, p.FullStroke))
	}
	if !(p.MediaRate > 0) || p.MediaRate > 1e12 {
		errs = append(errs, fmt.Errorf("media rate %g bytes/s out of range (0, 1e12]", p.MediaRate))
	}
	if p.Depth < 0 {
		errs = append(errs, fmt.Errorf("depth %d is negative", p.Depth))
	}
	if p.CommandOverhead > maxOverhead || p.MissOverhead > maxOverhead {
		errs = append(errs, fmt.Errorf("command overhead %v and miss overhead %v must not exceed %v",
			p.CommandOverhead, p.MissOverhead, maxOverhead))
	}
	if !(p.BusRate > 0) || p.BusRate > 1e12 {
		errs = append(errs, fmt.Errorf("bus rate %g bytes/s out of range (0, 1e12]", p.BusRate))
	}
	if p.CacheSegments < 1 || p.CacheSegments > MaxCacheSegments {
		errs = append(errs, fmt.Errorf("cache segments %d out of range 1..%d", p.CacheSegments, MaxCacheSegments))
	}
	if len(errs) == 0 {
		if spt := sectorsPerTrack(p); spt < 1 || spt > maxSPT {
			errs = append(errs, fmt.Errorf("media rate %g bytes/s at %d rpm puts %d 512-byte sectors on a track, out of range 1..%d",
				p.MediaRate, p.RPM, spt, maxSPT))
		} else if p.TrackSkew >= 0 && uint64(p.TrackSkew) >= spt {
			errs = append(errs, fmt.Errorf("track skew %d sectors is not less than the %d sectors per track", p.TrackSkew, spt))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("hdd: invalid parameters: %w", err)
	}
	return nil
}

// maxSPT bounds the sectors per track so that a revolution, in the model's
// angle units (60e9 per sector), fits in 63 bits.
const maxSPT = 100_000_000

// sectorsPerTrack is the whole number of 512-byte sectors that pass under
// the head in one revolution at the media rate.
func sectorsPerTrack(p Params) uint64 {
	return uint64(p.MediaRate * 60 / float64(p.RPM) / 512)
}
