package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Labels of the depth distribution lines, in bucket order.
var (
	depthLabels = [NumDepthBuckets]string{"1", "2", "4", "8", "16", "32", ">=64"}
	batchLabels = [NumDepthBuckets]string{"0", "4", "8", "16", "32", "64", ">=64"}
)

// WriteNormal writes r as fio 3.33's normal (human) output, followed where
// blkq has more to say by its own lines:
//
//   - after each job block with [JobStats.Blkq] set, two "  blkq     :"
//     lines (allocation sleeps/waits, merges and requests);
//   - after the "Run status" lines of a group of more than one job, the
//     Jain fairness index of the jobs' throughputs;
//   - after "Starting N processes", one "blkq: <note>" per [Run.Ignored].
//
// A job that did no I/O is skipped by fio; WriteNormal prints it anyway when
// it has an error or blkq statistics (a job starved of requests is exactly
// what blkq is there to show). Disk stats are printed only when r.Disks is
// not empty.
func WriteNormal(w io.Writer, r *Run) error {
	bw := bufio.NewWriter(w)
	writeNormal(bw, r)
	return bw.Flush()
}

func writeNormal(w *bufio.Writer, r *Run) {
	if r == nil {
		r = &Run{}
	}
	writeNormalHeader(w, r)
	writeNormalBody(w, r)
}

// writeNormalHeader writes what fio prints as the jobs start: the job
// lines, the version, "Starting N processes".
func writeNormalHeader(w *bufio.Writer, r *Run) {
	// Header lines: one per job section, "..." for its clones.
	n := 0
	for i, j := range r.Jobs {
		if j == nil {
			continue
		}
		n++
		if j.Clone {
			if i > 0 && r.Jobs[i-1] != nil && !r.Jobs[i-1].Clone {
				w.WriteString("...\n")
			}
			continue
		}
		writeJobHeader(w, j)
	}
	fmt.Fprintf(w, "%s\n", runVersion(r))
	s := "es"
	if n == 1 {
		s = ""
	}
	fmt.Fprintf(w, "Starting %d process%s\n", n, s)
	for _, note := range r.Ignored {
		fmt.Fprintf(w, "blkq: %s\n", note)
	}
	w.WriteString("\n")
}

// writeNormalBody writes what fio prints after the run: the job blocks,
// the run status of each group, the disks.
func writeNormalBody(w *bufio.Writer, r *Run) {
	us := units(r)
	groups := groupsOf(r, us)
	gidx := map[int]*GroupStats{}
	for i := range groups {
		gidx[groups[i].GroupID] = &groups[i]
	}
	now := runTime(r)
	for _, u := range us {
		writeJobBlock(w, u, gidx[u.job.GroupID], now)
	}

	for _, g := range groups {
		fmt.Fprintf(w, "\nRun status group %d (all jobs):\n", g.GroupID)
		labels := [NumDirs]string{"   READ", "  WRITE", "   TRIM"}
		for d := range g.Dirs {
			gd := g.Dirs[d]
			if gd.MaxRun == 0 {
				continue
			}
			fmt.Fprintf(w, "%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%d-%dmsec\n",
				labels[d],
				Num2Str(gd.AggBW, sigFigs, true, UnitBytesPerS),
				Num2Str(gd.AggBW, sigFigs, false, UnitBytesPerS),
				Num2Str(gd.MinBW, sigFigs, true, UnitBytesPerS),
				Num2Str(gd.MaxBW, sigFigs, true, UnitBytesPerS),
				Num2Str(gd.MinBW, sigFigs, false, UnitBytesPerS),
				Num2Str(gd.MaxBW, sigFigs, false, UnitBytesPerS),
				Num2Str(gd.IOBytes, sigFigs, true, UnitBytes),
				Num2Str(gd.IOBytes, sigFigs, false, UnitBytes),
				gd.MinRun, gd.MaxRun)
		}
		if g.Jobs > 1 {
			fmt.Fprintf(w, "  blkq: Jain's fairness index of per-job throughput: %.4f (%d jobs)\n",
				fin(g.JainIndex), g.Jobs)
		}
	}

	if len(r.Disks) > 0 {
		w.WriteString("\nDisk stats (read/write):\n")
		for _, d := range r.Disks {
			fmt.Fprintf(w, "  %s: ios=%d/%d, merge=%d/%d, ticks=%d/%d, in_queue=%d, util=%3.2f%%\n",
				d.Name, d.ReadIOs, d.WriteIOs, d.ReadMerges, d.WriteMerges,
				d.ReadTicks, d.WriteTicks, d.InQueue, fin(d.Util))
		}
	}
	if pc := r.PageCache; pc != nil {
		w.WriteString("\nblkq page cache (buffered jobs; pages of 4 KiB):\n")
		fmt.Fprintf(w, "  written back: flusher=%d, throttled writers=%d, syncs=%d; throttled writes=%d, read hits=%d\n",
			pc.WrittenFlusher, pc.WrittenThrottle, pc.WrittenSync, pc.Throttled, pc.ReadHits)
		fmt.Fprintf(w, "  dirty: max=%d, background threshold=%d, hard threshold=%d; read-ahead bios dropped=%d\n", pc.MaxDirty, pc.Background, pc.Hard, pc.ReadAheadDropped)
	}
}

// writeJobHeader writes the "name: (g=0): rw=..., bs=..." line printed when
// a job starts.
func writeJobHeader(w *bufio.Writer, j *JobStats) {
	fmt.Fprintf(w, "%s: (g=%d): rw=%s, bs=(R) %s-%s, (W) %s-%s, (T) %s-%s, ioengine=%s, iodepth=%d\n",
		j.Name, j.GroupID, j.RW,
		fmtSize(j.BS[DirRead].Min), fmtSize(j.BS[DirRead].Max),
		fmtSize(j.BS[DirWrite].Min), fmtSize(j.BS[DirWrite].Max),
		fmtSize(j.BS[DirTrim].Min), fmtSize(j.BS[DirTrim].Max),
		j.Engine, j.IODepth)
}

// hasIO tells whether the job moved any data in any direction.
func hasIO(j *JobStats) bool {
	for d := Dir(0); d < NumDirs; d++ {
		if ds := j.Dir(d); ds.IOs > 0 || ds.Bytes > 0 {
			return true
		}
	}
	return false
}

// writeJobBlock writes one reported job's block.
func writeJobBlock(w *bufio.Writer, u unit, g *GroupStats, now string) {
	j := u.job
	if !hasIO(j) && j.Error == 0 && j.Blkq == nil {
		return
	}
	errs := fmt.Sprintf("%2d", j.Error)
	if j.Error != 0 {
		errs += " (" + j.ErrorText + ")"
	}
	fmt.Fprintf(w, "%s: (groupid=%d, jobs=%d): err=%s: pid=%d: %s\n", j.Name, j.GroupID, u.jobs, errs, j.PID, now)
	if j.Description != "" {
		fmt.Fprintf(w, "  Description  : [%s]\n", j.Description)
	}
	for d := Dir(0); d < NumDirs; d++ {
		ds := j.Dir(d)
		if ds.IOs == 0 && ds.Bytes == 0 {
			continue
		}
		var agg uint64
		if g != nil {
			agg = g.Dirs[d].AggBW
		}
		writeDirStatus(w, j, d, agg)
	}
	writeLatBuckets(w, j)
	if j.SyncOps != nil && j.SyncOps.Lat.Count() > 0 {
		w.WriteString("  fsync/fdatasync/sync_file_range:\n")
		w.WriteString(latLine("sync", j.SyncOps.Lat))
		w.WriteString(percentileBlock("sync", j.SyncOps.Lat, j.percentileOptions()))
	}
	fmt.Fprintf(w, "  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%d, majf=%d, minf=%d\n",
		fin(j.UsrCPU), fin(j.SysCPU), j.Ctx, j.MajFlt, j.MinFlt)
	depth := depthPercents(j)
	fmt.Fprintf(w, "  IO depths    : %s\n", distLine(depthLabels, depth))
	sub, comp := batchPercents(j)
	fmt.Fprintf(w, "     submit    : %s\n", distLine(batchLabels, sub))
	fmt.Fprintf(w, "     complete  : %s\n", distLine(batchLabels, comp))
	var syncs uint64
	if j.SyncOps != nil {
		syncs = j.SyncOps.IOs
	}
	fmt.Fprintf(w, "     issued rwts: total=%d,%d,%d,%d short=%d,%d,%d,0 dropped=%d,%d,%d,0\n",
		j.Read.IOs, j.Write.IOs, j.Trim.IOs, syncs,
		j.Read.Short, j.Write.Short, j.Trim.Short,
		j.Read.Dropped, j.Write.Dropped, j.Trim.Dropped)
	if j.ContinueOnError {
		fmt.Fprintf(w, "     errors    : total=%d, first_error=%d/<%s>\n", j.TotalErr, j.FirstError, Strerror(j.FirstError))
	}
	if lt := j.latencyTarget(); lt.Depth > 0 {
		fmt.Fprintf(w, "     latency   : target=%d, window=%d, percentile=%.2f%%, depth=%d\n", lt.TargetNs, lt.WindowUs, lt.Percentile, lt.Depth)
	}
	if j.SteadyState != nil {
		writeSteadyStateNormal(w, j.SteadyState)
	}
	if j.Blkq != nil {
		b := j.Blkq.effective()
		fmt.Fprintf(w, "  blkq     : alloc sleeps=%d, wakeups=%d, waits=%d, wait max=%sms p99=%sms total=%sms, ra dropped=%d\n",
			b.Sleeps, b.Wakeups, b.Waits, nsToMs(b.WaitMax), nsToMs(b.WaitP99), nsToMs(b.WaitTotal), b.DroppedReadAhead)
		fmt.Fprintf(w, "  blkq     : merges back=%d front=%d, requests=%d, avg request=%.1fKiB\n",
			b.BackMerges, b.FrontMerges, b.RequestsIssued, fin(b.AvgRequestBytes()/1024))
		switch c := b.CPU; {
		case c != nil:
			dmax, d99 := c.RunDelay.Max(), c.RunDelay.Percentile(99) // nil-safe
			fmt.Fprintf(w, "  blkq     : cpu modelled, cpus=%d: task wakeups=%d, wake-up latency max=%sms p99=%sms\n", c.CPUs, c.Wakeups, nsToMs(dmax), nsToMs(d99))
		case !j.CPUMeasured:
			w.WriteString("  blkq     : cpu not measured: a simulated device runs on virtual time; the cpu line's figures are not measurements\n")
		}
	}
}

// nsToMs formats ns as ms with two decimals.
func nsToMs(ns int64) string { return fmt.Sprintf("%.2f", float64(ns)/1e6) }

// writeDirStatus writes one direction's lines of a job block; agg is the
// group's aggregate bandwidth in that direction, bytes/s.
func writeDirStatus(w *bufio.Writer, j *JobStats, d Dir, agg uint64) {
	ds := j.Dir(d)
	rt := dirRuntimeMs(j, d)
	var iops, bw uint64
	if rt > 0 {
		iops = ds.IOs * 1000 / rt
		bw = ds.Bytes * 1000 / rt
	}
	zone := ""
	if d == DirWrite {
		zone = "; 0 zone resets"
	}
	fmt.Fprintf(w, "  %s: IOPS=%s, BW=%s (%s)(%s/%dmsec)%s\n", d,
		Num2Str(iops, sigFigs, false, UnitNone),
		Num2Str(bw, sigFigs, true, UnitBytesPerS),
		Num2Str(bw, sigFigs, false, UnitBytesPerS),
		Num2Str(ds.Bytes, sigFigs, true, UnitBytes), rt, zone)
	if !j.Sync && ds.Slat.Count() > 0 {
		w.WriteString(latLine("slat", ds.Slat))
	}
	if ds.Clat.Count() > 0 {
		w.WriteString(latLine("clat", ds.Clat))
	}
	if ds.Lat.Count() > 0 {
		w.WriteString(latLine(" lat", ds.Lat))
	}
	po := j.percentileOptions()
	writePrioLatLines(w, ds, po)
	if po.Slat && !j.Sync && ds.Slat.Count() > 0 {
		w.WriteString(percentileBlock("slat", ds.Slat, po))
	}
	if po.Clat && ds.Clat.Count() > 0 {
		w.WriteString(percentileBlock("clat", ds.Clat, po))
	}
	if po.Lat && ds.Lat.Count() > 0 {
		w.WriteString(percentileBlock("lat", ds.Lat, po))
	}
	writePrioPercentiles(w, ds, po)
	if ds.BW.N() > 0 {
		mn, mx := uint64(max(ds.BW.Min(), 0)), uint64(max(ds.BW.Max(), 0))
		mean, dev := ds.BW.Mean(), ds.BW.Stddev()
		unit := "KiB"
		if mean > 1024*1024 {
			mn /= 1024
			mx /= 1024
			mean /= 1024
			dev /= 1024
			unit = "MiB"
		}
		fmt.Fprintf(w, "   bw (%5s/s): min=%5d, max=%5d, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, samples=%d\n",
			unit, mn, mx, percentOfAgg(ds.BW.Mean(), agg), fin(mean), fin(dev), ds.BW.N())
	}
	if ds.IOPS.N() > 0 {
		fmt.Fprintf(w, "   iops        : min=%5d, max=%5d, avg=%5.02f, stdev=%5.02f, samples=%d\n",
			uint64(max(ds.IOPS.Min(), 0)), uint64(max(ds.IOPS.Max(), 0)),
			fin(ds.IOPS.Mean()), fin(ds.IOPS.Stddev()), ds.IOPS.N())
	}
}

// percentOfAgg returns a job's mean sampled bandwidth (KiB/s) as a
// percentage of its group's aggregate bandwidth (bytes/s), at most 100; 100
// when the aggregate is under 1 KiB/s.
func percentOfAgg(meanKiB float64, aggBytes uint64) float64 {
	aggKiB := aggBytes / 1024
	if aggKiB == 0 {
		return 100
	}
	p := meanKiB * 100 / float64(aggKiB)
	if p > 100 {
		p = 100
	}
	return fin(p)
}

// latBucketPercents returns the job's completion-latency distribution over
// fio's buckets (all directions together), in percent of the I/Os counted.
func latBucketPercents(j *JobStats) (ns [10]float64, us [10]float64, ms [12]float64) {
	var cn, cu [10]uint64
	var cm [12]uint64
	var total uint64
	for d := Dir(0); d < NumDirs; d++ {
		n, u, m := j.Dir(d).Clat.Buckets()
		for i := range n {
			cn[i] += n[i]
			cu[i] += u[i]
			total += n[i] + u[i]
		}
		for i := range m {
			cm[i] += m[i]
			total += m[i]
		}
	}
	for i := range cn {
		ns[i] = pct(cn[i], total, 0.01)
		us[i] = pct(cu[i], total, 0.01)
	}
	for i := range cm {
		ms[i] = pct(cm[i], total, 0.01)
	}
	return
}

// writeLatBuckets writes the "  lat (usec)   : 750=28.52%, ..." lines,
// five buckets per line, leaving out empty buckets.
func writeLatBuckets(w *bufio.Writer, j *JobStats) {
	ns, us, ms := latBucketPercents(j)
	nsl := int64Labels(latBoundsNs[:])
	latBucketLines(w, "nsec", nsl, ns[:])
	latBucketLines(w, "usec", nsl, us[:])
	latBucketLines(w, "msec", append(int64Labels(latBoundsMs[:]), ">=2000"), ms[:])
}

func latBucketLines(w *bufio.Writer, unit string, labels []string, vals []float64) {
	var parts []string
	for i, v := range vals {
		if v > 0 {
			parts = append(parts, fmt.Sprintf("%s=%3.2f%%", labels[i], v))
		}
	}
	for len(parts) > 0 {
		k := min(5, len(parts))
		fmt.Fprintf(w, "  lat (%s)   : %s\n", unit, strings.Join(parts[:k], ", "))
		parts = parts[k:]
	}
}

// depthPercents returns the "IO depths" distribution in percent of the
// I/Os counted in IODepthHist.
func depthPercents(j *JobStats) [NumDepthBuckets]float64 {
	var out [NumDepthBuckets]float64
	var total uint64
	for _, c := range j.IODepthHist {
		total += c
	}
	for i, c := range j.IODepthHist {
		out[i] = pct(c, total, 0.1)
	}
	return out
}

// batchPercents returns the submit and complete distributions; an all-zero
// histogram of a job that did I/O means one I/O per call (4=100%).
func batchPercents(j *JobStats) (sub, comp [NumDepthBuckets]float64) {
	one := func(h [NumDepthBuckets]uint64) [NumDepthBuckets]float64 {
		var out [NumDepthBuckets]float64
		var total uint64
		for _, c := range h {
			total += c
		}
		if total == 0 {
			if hasIO(j) && !j.Uncounted {
				out[1] = 100
			}
			return out
		}
		for i, c := range h {
			out[i] = pct(c, total, 0.1)
		}
		return out
	}
	return one(j.SubmitHist), one(j.CompleteHist)
}

// distLine formats "1=0.4%, 2=0.8%, ..." with one decimal.
func distLine(labels [NumDepthBuckets]string, vals [NumDepthBuckets]float64) string {
	parts := make([]string, len(labels))
	for i := range labels {
		parts[i] = fmt.Sprintf("%s=%3.1f%%", labels[i], vals[i])
	}
	return strings.Join(parts, ", ")
}
