package report

// DefaultVersion is printed where fio prints its version ("fio-3.33": the
// line after the job header lines, and the JSON "fio version" key) when
// [Run.Version] is empty. It names blkq and the fio release whose output
// format the reports follow, so a reader can tell the two programs apart.
// The command line sets Run.Version to name its own build ("blkq-v0.3.0
// (fio-3.33 compatible)", or "blkq-devel ..." from a checkout).
const DefaultVersion = "blkq (fio-3.33 compatible)"

// Dir is an I/O direction, indexing the per-direction arrays of this
// package in fio's order.
type Dir int

// The I/O directions, in fio's order (the "rwts" of "issued rwts").
const (
	DirRead  Dir = 0
	DirWrite Dir = 1
	DirTrim  Dir = 2
	// NumDirs is the number of directions.
	NumDirs = 3
)

// String returns fio's lower-case direction name: "read", "write", "trim".
func (d Dir) String() string {
	switch d {
	case DirRead:
		return "read"
	case DirWrite:
		return "write"
	case DirTrim:
		return "trim"
	}
	return "unknown"
}

// DirStats are a job's statistics in one direction (fio's read, write and
// trim objects).
type DirStats struct {
	// IOs is the number of I/Os completed (fio total_ios; also the issued
	// count printed in "issued rwts").
	IOs uint64
	// Bytes is the number of bytes transferred (fio io_bytes).
	Bytes uint64
	// Short is the number of short I/Os (fio short_ios).
	Short uint64
	// Dropped is the number of dropped I/Os (fio drop_ios).
	Dropped uint64
	// Runtime is how long the job was active in this direction, in ns. The
	// reports print it in whole ms (truncated, but at least 1 ms when
	// Runtime > 0), as fio's "runtime"; bandwidth and IOPS are computed from
	// that ms value as fio does. When 0 while IOs > 0, [JobStats.Runtime]
	// is used instead.
	Runtime int64
	// Slat is the submission latency (submission start → the submission
	// returned), ns. nil or empty: not measured (no "slat" line); for a
	// [JobStats.Sync] job it is never printed, and JSON slat_ns is zeros.
	Slat *Latency
	// Clat is the completion latency (the submission returned →
	// completed; for a sync engine the whole call, as fio times a pread),
	// ns. It also feeds the job's latency distribution lines and the
	// percentiles.
	Clat *Latency
	// Lat is the total latency (queue → completed), ns.
	Lat *Latency
	// BW holds one bandwidth sample per 500 ms window of the run, KiB/s
	// (fio bw_min/bw_max/bw_mean/bw_dev/bw_samples and the "bw" line).
	BW Samples
	// IOPS holds one IOPS sample per 500 ms window, operations/s (fio
	// iops_min/iops_max/iops_mean/iops_stddev/iops_samples).
	IOPS Samples
	// Prios are the completion latencies (total latencies when the job
	// has lat_percentiles) per I/O priority, in fio's order: the job's
	// own priority first. The reports show them (fio's "clat prio C/L"
	// lines, JSON "prios") when at least two have samples.
	Prios []PrioLat
}

// PrioLat is the latency of a direction's I/Os of one priority.
type PrioLat struct {
	Prio uint16 // Linux's ioprio value: class << 13 | level
	Lat  *Latency
}

// BSRange is the block size range of one direction, in bytes, as fio's
// "bs=(R) 4096B-4096B" prints it.
type BSRange struct {
	Min uint64 // smallest block size, bytes
	Max uint64 // largest block size, bytes
}

// SyncStats are a job's fsync/fdatasync statistics (fio's "sync" object
// and its "fsync/fdatasync/sync_file_range:" block).
type SyncStats struct {
	// IOs is the number of sync operations completed.
	IOs uint64
	// Lat is the latency of each sync operation, ns.
	Lat *Latency
}

// Depth histogram indexes: the buckets of [JobStats.IODepthHist] are I/Os
// submitted while 1, 2-3, 4-7, 8-15, 16-31, 32-63 and >=64 I/Os were in
// flight (labels 1, 2, 4, 8, 16, 32, >=64); those of SubmitHist and
// CompleteHist are calls that submitted (reaped) 0, 1-4, 5-8, 9-16, 17-32,
// 33-64 and >64 I/Os at once (labels 0, 4, 8, 16, 32, 64, >=64).
const NumDepthBuckets = 7

// DepthBucket returns the IODepthHist index for an I/O submitted while
// depth I/Os (counting itself) were in flight.
func DepthBucket(depth int) int {
	switch {
	case depth < 2:
		return 0
	case depth < 4:
		return 1
	case depth < 8:
		return 2
	case depth < 16:
		return 3
	case depth < 32:
		return 4
	case depth < 64:
		return 5
	}
	return 6
}

// BatchBucket returns the SubmitHist/CompleteHist index for a call that
// submitted or reaped n I/Os.
func BatchBucket(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	case n <= 16:
		return 3
	case n <= 32:
		return 4
	case n <= 64:
		return 5
	}
	return 6
}

// JobStats are the statistics of one job (one fio process; clones of a
// numjobs>1 section are separate JobStats).
type JobStats struct {
	// Name is the job name (fio jobname).
	Name string
	// GroupID is the reporting group (fio groupid; stonewall/new_group
	// start a new one).
	GroupID int
	// PID is the process id blkq assigned to the job.
	PID int
	// Description is the job's description option; printed as
	// "  Description  : [...]" and JSON "desc" when not empty.
	Description string
	// Clone marks a clone of the previous job (numjobs > 1): the text
	// report prints "..." instead of its header line.
	Clone bool
	// JobOptions are the options set in the job's own section, in file
	// order (JSON "job options", omitted when empty).
	JobOptions [][2]string
	// Engine is the ioengine name (header line "ioengine=").
	Engine string
	// IODepth is the configured queue depth (header "iodepth=", and the
	// "latency : ... depth=" line and JSON latency_depth when LatencyTarget
	// is nil).
	IODepth int
	// LatencyTarget is the job's latency_target search and the depth it
	// ended at (the "latency : target=..." line, JSON latency_*); nil:
	// none, fio's defaults at IODepth.
	LatencyTarget *LatencyTarget
	// RW is the rw option as given ("read", "randrw", ...).
	RW string
	// BS is the block size range per direction, indexed by [Dir].
	BS [NumDirs]BSRange
	// Sync is true for synchronous engines (psync, sync, ...): fio prints no
	// slat line for them, and neither do we.
	Sync bool
	// Read, Write and Trim are the per-direction statistics.
	Read, Write, Trim DirStats
	// SyncOps are the fsync statistics; nil when the job issued none.
	SyncOps *SyncStats
	// Error is the job's error number (errno), 0 on success.
	Error int
	// ErrorText, when Error != 0, is printed after the number as fio
	// does: "err= 5 (<ErrorText>)" (empty parentheses when it is empty).
	ErrorText string
	// ErrorContinued says Error is the first of the errors the job went
	// on after (continue_on_error), not one that stopped it: fio reports
	// it, yet exits 0 for the job.
	ErrorContinued bool
	// ContinueOnError says the job had continue_on_error or ignore_error:
	// the reports then add fio's "errors : total=N, first_error=E/<text>"
	// line, JSON total_err and first_error, and two terse fields.
	ContinueOnError bool
	// TotalErr is fio's total_err: the errors counted under
	// continue_on_error (those the job went on after, and one of a
	// covered type that stopped it). FirstError is the first one's errno.
	TotalErr   uint64
	FirstError int
	// Elapsed is JSON "elapsed": as fio prints it, the run's time so far
	// in whole seconds rounded up, the same for every job (fio counts from
	// its start, blkq from the run's).
	Elapsed int64
	// Runtime is the job's total run time, in ns (JSON job_runtime in ms).
	// When 0, the largest direction Runtime is used.
	Runtime int64
	// UsrCPU and SysCPU are user and system CPU time in percent of the
	// job's runtime (fio's usr_cpu, sys_cpu).
	UsrCPU, SysCPU float64
	// Ctx is the number of context switches, voluntary and involuntary
	// (fio's ctx).
	Ctx uint64
	// MajFlt and MinFlt are the major and minor page faults (majf, minf).
	MajFlt, MinFlt uint64
	// CPUMeasured tells that UsrCPU, SysCPU, Ctx, MajFlt and MinFlt were
	// measured (getrusage). When false they are not measurements: the
	// text report adds "  blkq     : cpu not measured (...)" after the
	// job's blkq lines and JSON's "blkq" object has "cpu_measured": false,
	// unless Blkq.CPU says they were modelled.
	CPUMeasured bool
	// IODepthHist counts I/Os by the depth at which they were submitted,
	// indexed by [DepthBucket] (fio's "IO depths" line).
	IODepthHist [NumDepthBuckets]uint64
	// SubmitHist counts submit calls by how many I/Os each carried, indexed
	// by [BatchBucket]. All zero means "one I/O per call", printed as fio
	// prints it for synchronous engines (4=100.0%) when the job did I/O.
	SubmitHist [NumDepthBuckets]uint64
	// CompleteHist is SubmitHist for completions (reap calls).
	CompleteHist [NumDepthBuckets]uint64
	// Uncounted says that SubmitHist and CompleteHist count no calls at
	// all, so both lines print 0.0% everywhere: fio's null engine at
	// iodepth=1, whose calls fio 3.33 counts in neither.
	Uncounted bool
	// SteadyState is the job's steady state detection (ss_dur); nil
	// without one.
	SteadyState *SteadyState
	// Blkq are blkq's extra measurements; nil prints none.
	Blkq *BlkqJobStats
	// Percentiles says which latency percentiles the reports print, at
	// which percentiles; nil: fio's defaults (clat only, [Percentiles]).
	Percentiles *PercentileOptions
}

// PercentileOptions are fio's percentile_list, percentile precision and
// clat_percentiles, lat_percentiles and slat_percentiles of a job.
type PercentileOptions struct {
	// List is in percent, as written (the reports sort it, as fio does;
	// a 0 ends it); nil: [Percentiles].
	List []float64
	// Precision is the number of decimals of each percentile in the text
	// report (fio's default list: 2).
	Precision int
	// Clat, Lat and Slat select the completion, total and submission
	// latency percentiles (fio's defaults: Clat only).
	Clat, Lat, Slat bool
}

// defaultPercentileOptions are fio's defaults.
var defaultPercentileOptions = PercentileOptions{Precision: 2, Clat: true}

// percentileOptions returns j's percentile options, fio's defaults when
// none are set.
func (j *JobStats) percentileOptions() PercentileOptions {
	o := defaultPercentileOptions
	if j.Percentiles != nil {
		o = *j.Percentiles
	}
	return o.withList()
}

// withList returns o with fio's default list (and its precision, 2) when
// o has none.
func (o PercentileOptions) withList() PercentileOptions {
	if o.List == nil {
		o.List, o.Precision = fioPercentiles[:], 2
	}
	return o
}

// Dir returns the statistics of direction d (nil for an unknown d).
func (j *JobStats) Dir(d Dir) *DirStats {
	switch d {
	case DirRead:
		return &j.Read
	case DirWrite:
		return &j.Write
	case DirTrim:
		return &j.Trim
	}
	return nil
}

// BlkqJobStats are blkq's request-layer measurements for one job.
type BlkqJobStats struct {
	// Sleeps is how many times a submitter of this job slept because no
	// request was free (blktrace S events).
	Sleeps uint64
	// Wakeups is how many times a sleeping submitter was woken.
	Wakeups uint64
	// Waits is the number of completed allocation waits.
	Waits uint64
	// WaitTotal is the total time spent waiting for a request, ns.
	WaitTotal int64
	// WaitMax is the longest single allocation wait, ns.
	WaitMax int64
	// WaitP99 is the 99th percentile allocation wait, ns.
	WaitP99 int64
	// WaitLat, when not nil, is the distribution of allocation waits in ns;
	// the reports then take Waits, WaitTotal, WaitMax and WaitP99 from it
	// (and combine it exactly under group_reporting).
	WaitLat *Latency
	// DroppedReadAhead counts read-ahead bios failed at once because the
	// pool was short (free < batch).
	DroppedReadAhead uint64
	// BackMerges and FrontMerges count bios merged into an existing request
	// at its end or its start.
	BackMerges, FrontMerges uint64
	// RequestsIssued counts requests dispatched to the device.
	RequestsIssued uint64
	// RequestBytes is the total size of the requests dispatched, bytes.
	RequestBytes uint64
	// CPU are the figures of blkq's CPU model (engine Options.CPU), nil
	// without it. Under the model the job's SysCPU and Ctx are modelled
	// too: its task's CPU time and context switches.
	CPU *CPUJobStats
}

// CPUJobStats are a job's figures under blkq's model of the machine's
// CPUs (package sim/cpu).
type CPUJobStats struct {
	// CPUs is the number of CPUs the run modelled.
	CPUs int
	// Wakeups counts the times the job's task was woken (for a request,
	// an I/O's completion, the end of a thinktime), beside Sleeps and
	// Wakeups of request allocation.
	Wakeups uint64
	// RunDelay is the distribution of its wake-up latencies, ns: from a
	// wake-up to the task running on a CPU, its context switch included.
	RunDelay *Latency
}

// AvgRequestBytes returns RequestBytes / RequestsIssued, 0 when no request
// was issued.
func (b *BlkqJobStats) AvgRequestBytes() float64 {
	if b == nil || b.RequestsIssued == 0 {
		return 0
	}
	return float64(b.RequestBytes) / float64(b.RequestsIssued)
}

// effective returns a copy with the wait fields filled from WaitLat when it
// is set.
func (b *BlkqJobStats) effective() BlkqJobStats {
	e := *b
	if b.WaitLat != nil {
		e.Waits = uint64(b.WaitLat.Count())
		e.WaitTotal = b.WaitLat.Total()
		e.WaitMax = b.WaitLat.Max()
		e.WaitP99 = b.WaitLat.Percentile(99)
	}
	return e
}

// DiskStats are one disk's counters over the run (fio "Disk stats" and JSON
// disk_util[]), as /sys/block/<dev>/stat counts them.
type DiskStats struct {
	// Name is the device name ("vda", "sim0").
	Name string
	// ReadIOs and WriteIOs are completed requests.
	ReadIOs, WriteIOs uint64
	// ReadMerges and WriteMerges are bios merged into existing requests.
	ReadMerges, WriteMerges uint64
	// ReadSectors and WriteSectors are 512-byte sectors transferred. fio
	// 3.33 prints neither; the reports leave them out, they are carried for
	// iostat-style consumers.
	ReadSectors, WriteSectors uint64
	// ReadTicks and WriteTicks are the time requests spent in the queue and
	// at the device, ms.
	ReadTicks, WriteTicks uint64
	// InQueue is the weighted time with requests in flight, ms.
	InQueue uint64
	// Util is the percentage of the run during which the device was busy.
	Util float64
}

// Run is everything a report shows.
type Run struct {
	// Version is printed as fio's version; DefaultVersion when empty.
	Version string
	// Timestamp is the report time, unix seconds (JSON "timestamp").
	Timestamp int64
	// TimestampMs is the report time, unix milliseconds.
	TimestampMs int64
	// Time is the report time as ctime prints it ("Mon Nov 30 12:20:43
	// 2026"); when empty it is derived from Timestamp in UTC. It is printed
	// on every job block's header line and as JSON "time".
	Time string
	// GlobalOptions are the [global] section's options in file order (JSON
	// "global options", omitted when empty).
	GlobalOptions [][2]string
	// Jobs are the jobs in start order.
	Jobs []*JobStats
	// GroupReporting tells, per group id, whether group_reporting is set:
	// the group's jobs are then reported as one combined job named after
	// the group's first job, with "jobs=N".
	GroupReporting map[int]bool
	// Disks are the disks whose counters are reported.
	Disks []DiskStats
	// PageCache is the write-back of buffered (direct=0) jobs, when there
	// were any: it is not in the jobs' blkq lines, because write-back
	// submitted by the flusher (and, on sim devices, a throttled writer's
	// batch of other jobs' pages) is nobody's job's I/O.
	PageCache *PageCacheStats
	// Ignored are notes about job-file options blkq accepted but ignored;
	// each is printed as a "blkq: <note>" line after "Starting N
	// processes" and listed in JSON "blkq_ignored".
	Ignored []string
	// TerseVersion is the version of the terse output [Write] writes
	// (fio's --terse-version, one of [TerseVersions]); 0 is fio's
	// default, [TerseVersion].
	TerseVersion int
}

// PageCacheStats is the page cache's write-back over a run, in 4 KiB pages.
type PageCacheStats struct {
	WrittenFlusher  int64 // pages written back by the background flusher
	WrittenThrottle int64 // pages written back by writers over the hard threshold
	WrittenSync     int64 // pages written back by fsync/fdatasync/end_fsync
	Throttled       int64 // writes that had to write back themselves
	ReadHits        int64 // pages buffered reads found in the cache (reads only: a write to a cached page is no hit)
	MaxDirty        int   // most dirty pages at once
	// ReadAheadDropped counts the cache's read-ahead bios dropped under
	// request pressure (bios, not pages): normal, never an error. On a
	// real file the buffer cache's read-ahead runs on no job's behalf, so
	// this is where its drops are reported.
	ReadAheadDropped int64
	Background       int // background threshold, pages
	Hard             int // hard threshold, pages
}

// LatencyTarget is a job's latency_target search as fio reports it.
type LatencyTarget struct {
	// TargetNs is latency_target in ns (fio's "target=", 0: none).
	TargetNs int64
	// WindowUs is latency_window in µs (fio's "window=").
	WindowUs int64
	// Percentile is latency_percentile in percent (fio default 100).
	Percentile float64
	// Depth is the queue depth the search ended at (fio's "depth=",
	// latency_depth): iodepth without a target.
	Depth int
}

// latencyTarget returns j's search, or fio's defaults at its iodepth.
func (j *JobStats) latencyTarget() LatencyTarget {
	if j.LatencyTarget != nil {
		return *j.LatencyTarget
	}
	return LatencyTarget{Percentile: 100, Depth: j.IODepth}
}
