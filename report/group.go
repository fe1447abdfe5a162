package report

import (
	"sort"

	"github.com/blkq-dev/blkq/internal/satmath"
)

// GroupDir is one direction of a group's "Run status" line.
type GroupDir struct {
	// IOBytes is the bytes moved by all jobs of the group.
	IOBytes uint64
	// AggBW is IOBytes*1000/MaxRun, bytes/s (fio "bw=").
	AggBW uint64
	// MinBW and MaxBW are the lowest and highest bandwidth of the group's
	// reported jobs, bytes/s. As in fio, under group_reporting the group is
	// one reported (combined) job, so MinBW == MaxBW.
	MinBW, MaxBW uint64
	// MinRun and MaxRun are the shortest and longest runtime of the
	// group's reported jobs in this direction, ms (0 when no job ran in it;
	// the direction is then not printed).
	MinRun, MaxRun uint64
}

// GroupStats are the statistics of one reporting group.
type GroupStats struct {
	// GroupID is the group id.
	GroupID int
	// Jobs is the number of jobs in the group (clones included).
	Jobs int
	// GroupReporting tells whether the group is reported as one job.
	GroupReporting bool
	// Dirs are the "Run status" values per direction, indexed by [Dir].
	Dirs [NumDirs]GroupDir
	// JobBW is each job's throughput over all directions, bytes/s (total
	// bytes / job runtime), in job order, whatever GroupReporting says.
	JobBW []float64
	// JainIndex is Jain's fairness index of JobBW (1 for one job).
	JainIndex float64
}

// JainIndex returns Jain's fairness index (Σx)²/(n·Σx²) of the throughputs
// x: 1 when all are equal, 1/n when one gets everything. It is 1 for
// fewer than two values and when all are zero (equal shares of nothing);
// negative values count as 0.
func JainIndex(x []float64) float64 {
	if len(x) < 2 {
		return 1
	}
	var sum, sq float64
	for _, v := range x {
		if !(v > 0) { // also NaN
			continue
		}
		sum += v
		sq += v * v
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(x)) * sq)
}

// msOf converts ns to whole ms as the reports print runtimes: truncated,
// but at least 1 when ns > 0.
func msOf(ns int64) uint64 {
	if ns <= 0 {
		return 0
	}
	ms := uint64(ns / 1e6)
	if ms == 0 {
		ms = 1
	}
	return ms
}

// jobRuntimeNs returns the job's runtime in ns: Runtime, or the largest
// direction runtime.
func jobRuntimeNs(j *JobStats) int64 {
	if j.Runtime > 0 {
		return j.Runtime
	}
	var m int64
	for d := Dir(0); d < NumDirs; d++ {
		if r := j.Dir(d).Runtime; r > m {
			m = r
		}
	}
	return m
}

// dirRuntimeMs returns the direction's runtime in ms, falling back to the
// job's runtime when the direction has I/O but no runtime of its own.
func dirRuntimeMs(j *JobStats, d Dir) uint64 {
	ds := j.Dir(d)
	if ds.Runtime > 0 {
		return msOf(ds.Runtime)
	}
	if ds.IOs > 0 || ds.Bytes > 0 {
		return msOf(j.Runtime)
	}
	return 0
}

// jobBW returns the job's throughput over all directions, bytes/s.
func jobBW(j *JobStats) float64 {
	rt := jobRuntimeNs(j)
	if rt <= 0 {
		return 0
	}
	var b uint64
	for d := Dir(0); d < NumDirs; d++ {
		b += j.Dir(d).Bytes
	}
	return float64(b) * 1e9 / float64(rt)
}

// unit is one reported job: a job, or the combination of a group's jobs
// under group_reporting.
type unit struct {
	job  *JobStats
	jobs int // number of jobs combined
}

// units returns the reported jobs in report order.
func units(r *Run) []unit {
	var out []unit
	done := map[int]bool{}
	for i, j := range r.Jobs {
		if j == nil {
			continue
		}
		if !r.GroupReporting[j.GroupID] {
			out = append(out, unit{job: j, jobs: 1})
			continue
		}
		if done[j.GroupID] {
			continue
		}
		done[j.GroupID] = true
		var members []*JobStats
		for _, k := range r.Jobs[i:] {
			if k != nil && k.GroupID == j.GroupID {
				members = append(members, k)
			}
		}
		out = append(out, unit{job: combine(members), jobs: len(members)})
	}
	return out
}

// accumulate merges src into *dst, allocating *dst on the first non-empty
// src; src is not changed.
func accumulate(dst **Latency, src *Latency) {
	if src.Count() == 0 {
		return
	}
	if *dst == nil {
		*dst = &Latency{}
	}
	(*dst).Merge(src)
}

// combine merges the jobs of a group into one job as fio's group_reporting
// does: named and configured after the first job; counts, bytes and
// histograms added up; runtimes the longest per direction; the job
// runtime the sum; bandwidth/IOPS samples summed (see Samples.addSum); CPU
// time summed and divided by the summed runtime, as fio does (the plain
// mean of the percentages when no job has a runtime); CPUMeasured only
// when every job's was; the first non-zero error kept. The inputs are not
// modified.
func combine(jobs []*JobStats) *JobStats {
	first := jobs[0]
	c := &JobStats{
		Name: first.Name, GroupID: first.GroupID, PID: first.PID,
		Description: first.Description, JobOptions: first.JobOptions,
		Engine: first.Engine, IODepth: first.IODepth, RW: first.RW,
		BS: first.BS, Sync: first.Sync, Uncounted: first.Uncounted, Percentiles: first.Percentiles,
	}
	var blkq *BlkqJobStats
	allWaitLat := true
	var usr, sys, usrMean, sysMean float64
	measured := true
	for _, j := range jobs {
		for d := Dir(0); d < NumDirs; d++ {
			s, cd := j.Dir(d), c.Dir(d)
			cd.IOs += s.IOs
			cd.Bytes += s.Bytes
			cd.Short += s.Short
			cd.Dropped += s.Dropped
			rt := s.Runtime
			if rt == 0 && (s.IOs > 0 || s.Bytes > 0) {
				rt = j.Runtime
			}
			if rt > cd.Runtime {
				cd.Runtime = rt
			}
			accumulate(&cd.Slat, s.Slat)
			accumulate(&cd.Clat, s.Clat)
			accumulate(&cd.Lat, s.Lat)
			cd.BW.addSum(&s.BW)
			cd.IOPS.addSum(&s.IOPS)
			mergePrios(cd, s)
		}
		if j.SyncOps != nil {
			if c.SyncOps == nil {
				c.SyncOps = &SyncStats{}
			}
			c.SyncOps.IOs += j.SyncOps.IOs
			accumulate(&c.SyncOps.Lat, j.SyncOps.Lat)
		}
		if c.Error == 0 && j.Error != 0 {
			c.Error, c.ErrorText, c.ErrorContinued = j.Error, j.ErrorText, j.ErrorContinued
		}
		// As fio's sum over a group: the errors added up, the last
		// job's first error.
		c.ContinueOnError = c.ContinueOnError || j.ContinueOnError
		c.TotalErr += j.TotalErr
		c.FirstError = j.FirstError
		if j.SteadyState != nil {
			c.SteadyState = j.SteadyState // fio's: the group's last job holds it
		}
		if j.LatencyTarget != nil {
			c.LatencyTarget = j.LatencyTarget // fio reports the group's last job's
		}
		if j.Elapsed > c.Elapsed {
			c.Elapsed = j.Elapsed
		}
		rt := float64(jobRuntimeNs(j))
		c.Runtime += jobRuntimeNs(j)
		usr += j.UsrCPU * rt // back to CPU time: fio sums the times, then divides
		sys += j.SysCPU * rt
		usrMean += j.UsrCPU
		sysMean += j.SysCPU
		measured = measured && j.CPUMeasured
		c.Ctx += j.Ctx
		c.MajFlt += j.MajFlt
		c.MinFlt += j.MinFlt
		for i := 0; i < NumDepthBuckets; i++ {
			c.IODepthHist[i] += j.IODepthHist[i]
			c.SubmitHist[i] += j.SubmitHist[i]
			c.CompleteHist[i] += j.CompleteHist[i]
		}
		if j.Blkq != nil {
			if blkq == nil {
				blkq = &BlkqJobStats{}
			}
			b := j.Blkq
			if b.WaitLat == nil {
				allWaitLat = false
			}
			e := b.effective()
			blkq.Sleeps += e.Sleeps
			blkq.Wakeups += e.Wakeups
			blkq.Waits += e.Waits
			blkq.WaitTotal = satmath.Add(blkq.WaitTotal, e.WaitTotal)
			if e.WaitMax > blkq.WaitMax {
				blkq.WaitMax = e.WaitMax
			}
			if e.WaitP99 > blkq.WaitP99 { // an upper bound without the histograms
				blkq.WaitP99 = e.WaitP99
			}
			if b.WaitLat != nil {
				accumulate(&blkq.WaitLat, b.WaitLat)
			}
			blkq.DroppedReadAhead += e.DroppedReadAhead
			blkq.BackMerges += e.BackMerges
			blkq.FrontMerges += e.FrontMerges
			blkq.RequestsIssued += e.RequestsIssued
			blkq.RequestBytes += e.RequestBytes
			if c := b.CPU; c != nil {
				if blkq.CPU == nil {
					blkq.CPU = &CPUJobStats{CPUs: c.CPUs}
				}
				blkq.CPU.Wakeups += c.Wakeups
				accumulate(&blkq.CPU.RunDelay, c.RunDelay)
			}
		}
	}
	if blkq != nil {
		if allWaitLat && blkq.WaitLat != nil {
			blkq.WaitP99 = blkq.WaitLat.Percentile(99)
		} else {
			blkq.WaitLat = nil // partial histograms would lose counts
		}
	}
	c.Blkq = blkq
	if c.Runtime > 0 {
		c.UsrCPU, c.SysCPU = usr/float64(c.Runtime), sys/float64(c.Runtime)
	} else {
		n := float64(len(jobs))
		c.UsrCPU, c.SysCPU = usrMean/n, sysMean/n
	}
	c.CPUMeasured = measured
	return c
}

// Groups computes the "Run status group" statistics of r, in ascending
// group id order.
func Groups(r *Run) []GroupStats {
	return groupsOf(r, units(r))
}

func groupsOf(r *Run, us []unit) []GroupStats {
	idx := map[int]int{}
	var gs []GroupStats
	get := func(id int) *GroupStats {
		i, ok := idx[id]
		if !ok {
			i = len(gs)
			idx[id] = i
			gs = append(gs, GroupStats{GroupID: id, GroupReporting: r.GroupReporting[id]})
		}
		return &gs[i]
	}
	for _, j := range r.Jobs {
		if j == nil {
			continue
		}
		g := get(j.GroupID)
		g.Jobs++
		g.JobBW = append(g.JobBW, jobBW(j))
	}
	for _, u := range us {
		g := get(u.job.GroupID)
		for d := Dir(0); d < NumDirs; d++ {
			rt := dirRuntimeMs(u.job, d)
			if rt == 0 {
				continue
			}
			gd := &g.Dirs[d]
			ds := u.job.Dir(d)
			bw := ds.Bytes * 1000 / rt
			if gd.MaxRun == 0 { // first reported job with this direction
				gd.MinRun, gd.MaxRun, gd.MinBW, gd.MaxBW = rt, rt, bw, bw
			}
			gd.MinRun = min(gd.MinRun, rt)
			gd.MaxRun = max(gd.MaxRun, rt)
			gd.MinBW = min(gd.MinBW, bw)
			gd.MaxBW = max(gd.MaxBW, bw)
			gd.IOBytes += ds.Bytes
		}
	}
	for i := range gs {
		g := &gs[i]
		for d := range g.Dirs {
			if g.Dirs[d].MaxRun > 0 {
				g.Dirs[d].AggBW = g.Dirs[d].IOBytes * 1000 / g.Dirs[d].MaxRun
			}
		}
		g.JainIndex = JainIndex(g.JobBW)
	}
	sort.SliceStable(gs, func(a, b int) bool { return gs[a].GroupID < gs[b].GroupID })
	return gs
}
