package fio

import "time"

// Direction indices for the per-direction arrays of Job (BS, BSSplit, Rate,
// RateMin, RateIOPS), in fio's order: a value list "R,W,T" fills them so.
const (
	DirRead  = 0 // reads
	DirWrite = 1 // writes
	DirTrim  = 2 // trims (discards)
)

// JobFile is a parsed fio job file.
type JobFile struct {
	// Path is the path the file was parsed under.
	Path string
	// Jobs are the job sections in file order; [global] sections are not
	// jobs, they only supply defaults to the jobs below them.
	Jobs []*Job
	// Ignored lists each option fio knows but blkq does not model, once per
	// distinct name as written, with the first place it was seen, in file
	// order, so a caller can warn once per name.
	Ignored []Ignored
}

// Ignored is an option that fio 3.33 accepts but blkq does not model.
type Ignored struct {
	// Option is the option name as written in the file.
	Option string
	// File and Line locate its first occurrence (Line is 1-based).
	File string
	Line int
}

// Range is an inclusive range of byte counts.
type Range struct {
	Min, Max int64 // bytes
}

// Split is one weighted entry of bssplit: Percent percent of the I/Os of a
// direction use block size BS.
type Split struct {
	BS      int64 // bytes
	Percent int   // 0..100
}

// Job is one job section with the [global] defaults above it applied.
// Fields hold fio's defaults when the file does not set them.
type Job struct {
	// Name is the section name, or the job's own name= option when it has
	// one (a name= in [global] does not rename jobs, as in fio).
	Name string
	// Line is the 1-based line of the section header.
	Line int
	// File is the job file the section came from when it differs from its
	// JobFile's Path (set by Merge); empty otherwise.
	File string
	// Options are the options in effect for the job, as fio's JSON "job
	// options" would list them: first those inherited from [global]
	// sections above, then the job's own, each in file order, with canonical
	// names (bs for blocksize, ...) and values after ${VAR} expansion. A bare
	// flag has value "". A later entry for the same name overrides an
	// earlier one.
	Options [][2]string
	// NumInherited is how many leading entries of Options came from
	// [global] sections; Options[NumInherited:] are the job's own.
	NumInherited int
	// GroupID is the reporting group as fio numbers them: the first job is in
	// group 0 and every later job with stonewall or new_group set starts a
	// new group.
	GroupID int

	// Filenames are the files of filename=, split at ':' (with "\:" standing
	// for a literal colon). Empty when fio would make names up from the job
	// name (see FilenameFormat).
	Filenames []string
	// Directory is the directory= prefix for the files ("" = current).
	Directory string
	// FilenameFormat is filename_format= as written ("" = fio's default,
	// "$jobname.$jobnum.$filenum").
	FilenameFormat string
	// NrFiles is the number of files per job clone (nrfiles=, default 1).
	NrFiles int

	// Size is size= in bytes (0 = unset: the size of the files or device).
	Size int64
	// SizePercent is size= given as a percentage of the file or device size
	// (0 = not given as a percentage).
	SizePercent float64
	// FileSize is filesize= in bytes: Min..Max, equal when a single value,
	// both 0 when unset.
	FileSize [2]int64
	// IOSize is io_size= (alias io_limit) in bytes (0 = same as Size).
	IOSize int64
	// IOSizePercent is io_size= given as a percentage (0 = not a percentage).
	IOSizePercent float64

	// Offset is offset= in bytes where I/O starts.
	Offset int64
	// OffsetPercent is offset= given as a percentage (0 = not a percentage).
	OffsetPercent float64
	// OffsetIncrement is offset_increment= in bytes: clone n starts at
	// Offset + n*OffsetIncrement.
	OffsetIncrement int64
	// OffsetIncrementPercent is offset_increment= given as a percentage.
	OffsetIncrementPercent float64

	// RW is the I/O pattern (rw= or readwrite=, default read).
	RW RW
	// RWModifier is the ":N" after the rw= value: for sequential patterns a
	// byte count added after each I/O (negative goes backwards), for random
	// patterns the number of I/Os issued before a new random offset is
	// chosen. 0 when absent.
	RWModifier int64
	// RWMixRead is the percentage of reads in a mixed pattern (rwmixread=, or
	// 100 - rwmixwrite=; the later one in the file wins; default 50).
	RWMixRead int
	// PercentageRandom is percentage_random= per direction (DirRead,
	// DirWrite, DirTrim), 0..100, fio's default 100: of a random
	// pattern's I/Os, the share at a random offset; the others continue
	// sequentially from the last I/O of their direction.
	PercentageRandom [3]int
	// RWSequencer is rw_sequencer=: what the I/Os between two random ones
	// of rw=randread:N do, "sequential" (fio's default: continue from the
	// last) or "identical" (repeat the last offset).
	RWSequencer string
	// BSIsSeqRand is bs_is_seq_rand: the block size settings are read as
	// "sequential,random" instead of "read,write" (a sequential I/O takes
	// the read entry, a random one the write entry, whatever its
	// direction).
	BSIsSeqRand bool
	// BlockAlign is ba= (alias blockalign) per direction, in bytes (0:
	// unset, fio's default of the direction's smallest block size): what
	// a random offset is a multiple of. fio turns the random map off for
	// a random job whose alignment differs from that default in any
	// direction.
	BlockAlign [3]int64
	// BSUnaligned is bs_unaligned (alias blocksize_unaligned): a size drawn
	// from bsrange or bssplit is not rounded down to a multiple of the
	// smallest block size.
	BSUnaligned bool

	// BS are the block size ranges per direction (DirRead, DirWrite,
	// DirTrim) in bytes, from bs=, bsrange= or bssplit= (default 4096-4096).
	BS [3]Range
	// BSSplit are the weighted block sizes of bssplit= per direction (nil when
	// not given). Entries keep file order; percentages left out were filled
	// in as fio does.
	BSSplit [3][]Split

	// NumJobs is the number of clones of the job (numjobs=, default 1).
	NumJobs int
	// IODepth is the number of I/Os kept in flight (iodepth=, default 1).
	IODepth int
	// IODepthLow is iodepth_low: once the job has iodepth I/Os in flight
	// it submits no more until they drain to this many. -1 (unset) means
	// iodepth, fio's default: refill as soon as one completes.
	IODepthLow int
	// IOEngine is the engine name as written (ioengine=, default "psync").
	// Parse does not reject engines blkq cannot emulate; see EngineKind.
	IOEngine string
	// Direct is O_DIRECT (direct=1, or buffered=0).
	Direct bool

	// Runtime is the time limit (runtime= or timeout=; 0 = none).
	Runtime time.Duration
	// RampTime is the warm-up time before statistics are kept (ramp_time=).
	RampTime time.Duration
	// TimeBased keeps the job running until Runtime even after the region is
	// covered (time_based).
	TimeBased bool
	// Loops is the number of passes over the region (loops=, default 1;
	// loops=0 behaves as 1, as in fio).
	Loops int
	// StartDelay is the delay before the job starts (startdelay=): Min..Max
	// when given as a range, both equal otherwise.
	StartDelay [2]time.Duration

	// Stonewall makes the job wait for all earlier jobs to finish (and start
	// a new reporting group).
	Stonewall bool
	// NewGroup starts a new reporting group without waiting.
	NewGroup bool
	// GroupReporting reports statistics per group rather than per job.
	GroupReporting bool
	// Stats are the percentile reporting options (statopts.go).
	Stats StatOptions
	// NoRandomMap lets random I/O repeat blocks within a pass (norandommap).
	NoRandomMap bool
	// ExitAll stops all jobs when this one finishes (exitall); ExitWhat
	// narrows which ones.
	ExitAll bool
	// Thread asks for threads rather than processes (thread). fio's
	// "threads=" is a tiobench profile option and does not set this.
	Thread bool
	// ExitWhat is exit_what=: "group" (default), "stonewall" or "all".
	ExitWhat string
	// ExitAllOnError is exitall_on_error: when this job ends in error, the
	// other jobs are stopped too (fio's exit_what applies).
	ExitAllOnError bool
	// IOScheduler is ioscheduler=: the elevator fio switches the job's
	// device to when the job starts ("" = leave it as it is).
	IOScheduler string
	// WaitFor is the name of an earlier job this one waits for (wait_for=).
	WaitFor string

	// RandRepeat seeds the random generators predictably (randrepeat=,
	// default true).
	RandRepeat bool
	// RandSeed is randseed= (fio's default 0x89 = 137 when unset).
	RandSeed uint64
	// RandSeedSet says whether randseed= was given.
	RandSeedSet bool

	// ThinkTime is the stall between I/Os (thinktime=; a number without a
	// unit is microseconds).
	ThinkTime time.Duration
	// ThinkTimeBlocks is the number of I/Os between stalls
	// (thinktime_blocks=, default 1).
	ThinkTimeBlocks int
	// Rate caps bandwidth per direction in bytes/s (rate=; 0 = unlimited).
	Rate [3]int64
	// RateMin is the minimum bandwidth per direction in bytes/s (rate_min=
	// or ratemin=; 0 = none): below it over a RateCycle the job fails.
	RateMin [3]int64
	// RateIOPS caps I/Os per second per direction (rate_iops=; 0 = unlimited).
	RateIOPS [3]int64
	// RateIOPSMin is rate_iops_min=, the minimum I/Os per second per
	// direction, checked as RateMin is when RateMin is not set.
	RateIOPSMin [3]int64
	// RateCycle is rate_cycle= (alias ratecycle; a number of ms, fio's
	// default 1000 ms): the span rate_min and rate_iops_min are checked
	// over.
	RateCycle time.Duration
	// RateIgnoreThinktime is rate_ignore_thinktime: a rate= or rate_iops=
	// job does not catch up after a thinktime stall, as if it had issued
	// at its rate meanwhile.
	RateIgnoreThinktime bool

	// RandomDistribution is random_distribution= (default uniform,
	// "random"). fio turns the random map off for the others.
	RandomDistribution Distribution
	// RandomGenerator is random_generator=: "tausworthe" (fio's default,
	// 32-bit draws), "tausworthe64" or "lfsr" (each block once per pass
	// without a random map).
	RandomGenerator string
	// RateProcess is rate_process=: "linear" (fio's default: evenly
	// spaced I/Os) or "poisson" (exponential gaps with the rate's mean).
	RateProcess string
	// ThinkTimeSpin is the part of ThinkTime spent busy rather than
	// asleep (thinktime_spin=, microseconds without a unit).
	ThinkTimeSpin time.Duration
	// Nice is nice= (-20 to 19, fio's default 0): the job's CPU priority,
	// which only blkq's CPU model (engine Options.CPU) gives a meaning;
	// without it no CPU is shared.
	Nice int
	// ThinkTimeBlocksType is thinktime_blocks_type=: "complete" (fio's
	// default: count completed I/Os) or "issue" (count issued ones).
	ThinkTimeBlocksType string
	// ThinkTimeIOTime, if set, thinks after each ThinkTimeIOTime of
	// issuing rather than after ThinkTimeBlocks I/Os
	// (thinktime_iotime=, seconds without a unit).
	ThinkTimeIOTime time.Duration
	// OffsetAlign is offset_align=: the boundary a percentage offset is
	// rounded up to (0: unset, the smallest block size, as fio).
	OffsetAlign int64

	// Flow is flow=, the job's weight in its flow's flow control (fio
	// default 0: the job is in no flow). fio keeps it unsigned: flow=-N
	// is 2^32-N, which takes N off the flow's sum of weights
	// (engine/flow.go).
	Flow uint32
	// FlowID is flow_id=: the jobs with one flow_id share a flow (fio
	// default 0).
	FlowID int32
	// FlowSleep is flow_sleep=: how long a job its flow holds back
	// sleeps before it looks again (a number is microseconds; fio
	// default 0: it looks again at once).
	FlowSleep time.Duration

	// NumberIOs stops the job after this many I/Os (number_ios=; 0 = no limit).
	NumberIOs int64
	// ZoneMode is zonemode=: "none" (default), "strided" or "zbd".
	ZoneMode string
	// ZoneSize is zonesize= in bytes: the part of each zone that is used.
	ZoneSize int64
	// ZoneSkip is zoneskip= in bytes skipped after each zone.
	ZoneSkip int64
	// ZoneRange is zonerange= in bytes: how far apart zones start, from
	// the start of one to the start of the next, before zoneskip (0: the
	// same as ZoneSize, fio's default).
	ZoneRange int64

	// Fsync issues an fsync after every Fsync writes (fsync=; 0 = never).
	Fsync int
	// Fdatasync issues an fdatasync after every Fdatasync writes.
	Fdatasync int
	// EndFsync syncs the file when the job ends (end_fsync=1).
	EndFsync bool
	// Verify is verify= as written ("" when unset; fio's "0" also means
	// none), or "pattern_hdr" (fio's VERIFY_PATTERN: a header, then the
	// pattern) for verify_pattern= without verify=.
	Verify string
	// Verification is the other verify options (verify.go).
	Verification Verification
	// Trim are the verify trims' options (ioopts.go).
	Trim TrimVerify
	// KBBase is kb_base=: 1024 (default) or 1000. It already shaped every
	// size above; a reporter needs it to pick units.
	KBBase int
	// URI is uri= of the nbd engine.
	URI string
	// Logs are the log and iolog options (logopts.go).
	Logs Logs
	// Errors are continue_on_error, ignore_error and error_dump
	// (erroropts.go).
	Errors ErrorOptions
	// SteadyState are ss, ss_dur and ss_ramp (ssopts.go).
	SteadyState SteadyState
	// Priority are prio, prioclass and the cmdprio options (prioopts.go).
	Priority Priority
	// Buffers are the options of what the job's writes hold (buffers.go).
	Buffers Buffers
	// Files are the options of the files' set-up (files.go).
	Files FileSetup
	// Queue are the batching, overlap and latency-target options
	// (queueopts.go).
	Queue QueueOptions

	// lines maps a modelled option's canonical name to the line that last
	// set it, so Validate can point at the option rather than the section.
	lines map[string]int
	// files maps a modelled option's canonical name to the job file its
	// last line was in, when that is an included file (fio's include).
	files map[string]string
	// cond are the options refused only in some jobs (refused.go).
	cond conditional
}

// newJob returns a job with fio's defaults.
func newJob(name string, line int) *Job {
	def := Range{Min: 4096, Max: 4096}
	return &Job{
		Name:                name,
		Line:                line,
		NrFiles:             1,
		RW:                  RWRead,
		RWMixRead:           50,
		PercentageRandom:    [3]int{100, 100, 100},
		RWSequencer:         "sequential",
		BS:                  [3]Range{def, def, def},
		NumJobs:             1,
		IODepth:             1,
		IODepthLow:          -1,
		IOEngine:            "psync",
		Loops:               1,
		ExitWhat:            "group",
		RandRepeat:          true,
		RandSeed:            0x89,
		ThinkTimeBlocks:     1,
		RateCycle:           time.Second,
		RandomDistribution:  Distribution{Kind: "random", Center: -1},
		RandomGenerator:     "tausworthe",
		RateProcess:         "linear",
		ThinkTimeBlocksType: "complete",
		ZoneMode:            "none",
		KBBase:              1024,
		Stats:               DefaultStatOptions(),
		Queue:               defaultQueueOptions(),
		Verification:        Verification{DoVerify: true, StateSave: true},
		Trim:                TrimVerify{VerifyZero: true},
		Logs:                defaultLogs(),
		SteadyState:         defaultSteadyState(),
		Buffers:             defaultBuffers(),
		Files:               defaultFileSetup(),
	}
}

// IsSync reports whether the job's engine does one I/O at a time per job
// (psync, sync, pvsync, pvsync2, vsync), so iodepth has no effect.
func (j *Job) IsSync() bool {
	k, ok := EngineKind(j.IOEngine)
	return ok && k == "sync"
}

// RW is an I/O pattern as fio's rw= option names it.
type RW int

// The rw= patterns. The mixed ones split reads and writes by RWMixRead.
const (
	RWRead          RW = iota // "read": sequential reads (fio's default)
	RWWrite                   // "write": sequential writes
	RWTrim                    // "trim": sequential trims
	RWRandRead                // "randread"
	RWRandWrite               // "randwrite"
	RWRandTrim                // "randtrim"
	RWReadWrite               // "rw" (alias "readwrite"): sequential mixed reads and writes
	RWRandRW                  // "randrw": random mixed reads and writes
	RWTrimWrite               // "trimwrite": trim then write each block, sequentially
	RWRandTrimWrite           // "randtrimwrite": trim then write each block, randomly
)

var rwNames = [...]string{
	RWRead:          "read",
	RWWrite:         "write",
	RWTrim:          "trim",
	RWRandRead:      "randread",
	RWRandWrite:     "randwrite",
	RWRandTrim:      "randtrim",
	RWReadWrite:     "rw",
	RWRandRW:        "randrw",
	RWTrimWrite:     "trimwrite",
	RWRandTrimWrite: "randtrimwrite",
}

// String gives the name fio prints for the pattern ("rw" for readwrite).
func (r RW) String() string {
	if r >= 0 && int(r) < len(rwNames) {
		return rwNames[r]
	}
	return "RW(?)"
}

// Random reports whether offsets are chosen at random.
func (r RW) Random() bool {
	switch r {
	case RWRandRead, RWRandWrite, RWRandTrim, RWRandRW, RWRandTrimWrite:
		return true
	}
	return false
}

// Reads reports whether the pattern issues reads.
func (r RW) Reads() bool {
	return r == RWRead || r == RWRandRead || r == RWReadWrite || r == RWRandRW
}

// Writes reports whether the pattern issues writes.
func (r RW) Writes() bool {
	switch r {
	case RWWrite, RWRandWrite, RWReadWrite, RWRandRW, RWTrimWrite, RWRandTrimWrite:
		return true
	}
	return false
}

// Trims reports whether the pattern issues trims.
func (r RW) Trims() bool {
	return r == RWTrim || r == RWRandTrim || r == RWTrimWrite || r == RWRandTrimWrite
}

// parseRWName maps an rw= value (without modifier) to its pattern. fio
// matches these case-sensitively.
func parseRWName(s string) (RW, bool) {
	if s == "readwrite" {
		return RWReadWrite, true
	}
	for i, n := range rwNames {
		if n == s {
			return RW(i), true
		}
	}
	return 0, false
}
