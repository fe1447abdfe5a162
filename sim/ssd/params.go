package ssd

import (
	"errors"
	"fmt"
	"time"

	"github.com/blkq-dev/blkq/sim"
)

// Params describe a simulated SSD. A zero field takes the DefaultParams
// value, so Params{Depth: 1} is the default drive at queue depth 1.
//
// The defaults follow MQSim (Tavakkol et al., "MQSim: A Framework for
// Enabling Realistic Studies of Modern Multi-Queue SSD Devices", FAST
// 2018), whose ssdconfig.xml describes an MLC drive of 8 channels at
// 333 MT/s, 1 byte wide, 4 chips per channel with 2 dies each, 2 planes per
// die, 2048 blocks of 256 pages of 8 KiB per plane, page reads of 75 µs,
// programs of 750 µs and erases of 3.8 ms (docs/design.md, "Simulated
// devices").
type Params struct {
	// Capacity is the drive's size in 512-byte sectors. Default 1048576000
	// (500 GiB), the size of sim:hdd, so that the same jobs and traces fit
	// both; MQSim's default geometry holds 512 GiB of raw flash
	// (8 × 4 × 2 × 2 × 2048 × 256 × 8 KiB), of which 500 GiB leaves 2.3%
	// spare, a plausible exported size. Nothing in the model depends on it
	// but the range check.
	Capacity uint64
	// Channels is the number of flash channels (buses). Default 8
	// (MQSim's Flash_Channel_Count).
	Channels int
	// DiesPerChannel is the number of dies sharing each channel, each able
	// to read or program one page at a time. Default 8: MQSim's 4 chips per
	// channel (Chip_No_Per_Channel) of 2 dies each (Die_No_Per_Chip), 64
	// dies in all.
	DiesPerChannel int
	// PageSize is the flash page in bytes, a multiple of 512: the unit of
	// striping, of array reads and of programs. Default 8192 (MQSim's
	// Page_Capacity).
	PageSize int
	// ReadLatency is the time to read a page from the array into the
	// die's page register (tR). Default 75 µs (MQSim's
	// Page_Read_Latency_LSB/CSB/MSB).
	ReadLatency time.Duration
	// ProgramLatency is the time to program a page from the die's page
	// register (tPROG). Default 750 µs (MQSim's
	// Page_Program_Latency_LSB/MSB in ssdconfig.xml).
	ProgramLatency time.Duration
	// ChannelRate is each channel's data rate in bytes/s. Default 333e6:
	// MQSim's Channel_Transfer_Rate of 333 MT/s on a channel 1 byte wide
	// (Flash_Channel_Width), ONFI NV-DDR2.
	ChannelRate float64
	// Depth is how many requests the drive accepts at once. Default 32,
	// the most SATA's native command queueing allows (MQSim's NVMe queues
	// are far deeper, 65535 in ssdconfig.xml, but blkq's queue of 2002
	// issues at most what the device takes).
	Depth int
	// CommandOverhead is the controller's time for every command before
	// any flash operation starts: taking the command from the host
	// interface and decoding it. It adds latency but is not a resource:
	// the controller decodes commands in parallel. Default 10 µs, blkq's
	// assumption: small against the 75 µs page read, as the few µs of an
	// NVMe controller plus firmware's mapping lookup would be. (MQSim's
	// SATA_Processing_Delay of 400 µs is a different thing: the host's
	// whole hardware and software path, which blkq models itself.) A
	// negative value means none.
	CommandOverhead time.Duration
}

// DefaultParams returns the default drive: 500 GiB, 8 channels of 8 dies,
// 8 KiB pages, 75 µs reads, 750 µs programs, 333 MB/s channels, queue
// depth 32 and 10 µs of command overhead.
func DefaultParams() Params {
	return Params{
		Capacity:        500 << 30 >> 9,
		Channels:        8,
		DiesPerChannel:  8,
		PageSize:        8192,
		ReadLatency:     75 * time.Microsecond,
		ProgramLatency:  750 * time.Microsecond,
		ChannelRate:     333e6,
		Depth:           32,
		CommandOverhead: 10 * time.Microsecond,
	}
}

// withDefaults returns p with every zero field set from DefaultParams.
func (p Params) withDefaults() Params { return sim.WithDefaults(p, DefaultParams()) }

// Limits of Params, far beyond any drive and far below where sums of times
// or the model's tables could overflow.
const (
	MaxChannels    = 1024
	MaxDies        = 1 << 16 // Channels × DiesPerChannel
	MaxPageSize    = 1 << 20
	MaxDepth       = 1 << 16
	maxLatency     = time.Second
	maxChannelRate = 1e12
)

// Validate reports whether p (with its zero fields defaulted) describes a
// drive the model can simulate.
func (p Params) Validate() error {
	p = p.withDefaults()
	var errs []error
	if p.Channels < 1 || p.Channels > MaxChannels {
		errs = append(errs, fmt.Errorf("channels %d out of range 1..%d", p.Channels, MaxChannels))
	}
	if p.DiesPerChannel < 1 || p.DiesPerChannel > MaxDies {
		errs = append(errs, fmt.Errorf("dies per channel %d out of range 1..%d", p.DiesPerChannel, MaxDies))
	} else if p.Channels >= 1 && p.Channels <= MaxChannels && p.Channels*p.DiesPerChannel > MaxDies {
		errs = append(errs, fmt.Errorf("%d channels × %d dies = %d dies, more than %d",
			p.Channels, p.DiesPerChannel, p.Channels*p.DiesPerChannel, MaxDies))
	}
	if p.PageSize < 512 || p.PageSize > MaxPageSize || p.PageSize%512 != 0 {
		errs = append(errs, fmt.Errorf("page size %d bytes is not a multiple of 512 in 512..%d", p.PageSize, MaxPageSize))
	}
	if p.ReadLatency < 0 || p.ReadLatency > maxLatency || p.ProgramLatency < 0 || p.ProgramLatency > maxLatency {
		errs = append(errs, fmt.Errorf("read latency %v and program latency %v must be in (0, %v]",
			p.ReadLatency, p.ProgramLatency, maxLatency))
	}
	if !(p.ChannelRate > 0) || p.ChannelRate > maxChannelRate {
		errs = append(errs, fmt.Errorf("channel rate %g bytes/s out of range (0, %g]", p.ChannelRate, maxChannelRate))
	}
	if p.Depth < 0 || p.Depth > MaxDepth {
		errs = append(errs, fmt.Errorf("depth %d out of range 1..%d", p.Depth, MaxDepth))
	}
	if p.CommandOverhead > maxLatency {
		errs = append(errs, fmt.Errorf("command overhead %v exceeds %v", p.CommandOverhead, maxLatency))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("ssd: invalid parameters: %w", err)
	}
	return nil
}
