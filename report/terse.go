package report

// fio 3.33's terse output (--minimal, --output-format=terse), versions 2
// to 5 (--terse-version; fio's default and --minimal's is 3): one line per
// reported job, fields separated by ';', in the order of fio's HOWTO
// "Terse output" and of stat.c's show_thread_status_terse_all: the
// version, fio's version (not in version 2), the job's name, group and
// error; for read and then write (and trim in versions 2, 4 and 5): KiB,
// bandwidth (KiB/s), IOPS,
// runtime (ms), then slat and clat (min, max, mean, stddev, in us), 20
// percentile fields "P%=VALUE" (us; fio's list, sorted, padded with
// "0%=0"), lat (as slat), bandwidth samples (min, max, share of the
// group's aggregate, mean, stddev, KiB/s), and in version 5 the number
// of bandwidth samples and the IOPS samples (min, max, mean, stddev,
// number); CPU (usr, sys, ctx, majf, minf); the 7 I/O depth shares; the
// 10 us and 12 ms latency shares (the ns buckets counted in the first us
// one, as fio keeps terse unchanged); from version 3 on, per disk its
// name, ios, merges, ticks (read and write each), in_queue and util; and
// the description when the job has one (version 2 puts it on a line of
// its own, as fio does).

import (
	"bufio"
	"fmt"
	"io"
)

// TerseVersion is the terse format version [WriteTerse] writes: fio's
// default, --terse-version=3.
const TerseVersion = 3

// TerseVersions are the terse format versions fio 3.33 writes, and
// [WriteTerseVersion] with them.
var TerseVersions = []int{2, 3, 4, 5}

// WriteTerse writes r as fio 3.33's terse output, version 3, one line per
// job (per group under group_reporting).
func WriteTerse(w io.Writer, r *Run) error { return WriteTerseVersion(w, r, TerseVersion) }

// WriteTerseVersion writes r as fio 3.33's terse output of version ver
// (one of [TerseVersions]), one line per job (per group under
// group_reporting). Another version is an error naming it.
func WriteTerseVersion(w io.Writer, r *Run, ver int) error {
	if ver < 2 || ver > 5 {
		return fmt.Errorf("terse version %d: fio 3.33 writes versions 2 to 5", ver)
	}
	if r == nil {
		r = &Run{}
	}
	bw := bufio.NewWriter(w)
	us := units(r)
	groups := groupsOf(r, us)
	gidx := map[int]*GroupStats{}
	for i := range groups {
		gidx[groups[i].GroupID] = &groups[i]
	}
	for _, u := range us {
		writeTerseJob(bw, r, u.job, gidx[u.job.GroupID], ver)
	}
	return bw.Flush()
}

func writeTerseJob(w *bufio.Writer, r *Run, j *JobStats, g *GroupStats, ver int) {
	if ver == 2 {
		fmt.Fprintf(w, "2;%s;%d;%d", j.Name, j.GroupID, j.Error)
	} else {
		fmt.Fprintf(w, "%d;%s;%s;%d;%d", ver, runVersion(r), j.Name, j.GroupID, j.Error)
	}
	dirs := []Dir{DirRead, DirWrite, DirTrim}
	if ver == 3 {
		dirs = dirs[:2]
	}
	for _, d := range dirs {
		var agg uint64
		if g != nil {
			agg = g.Dirs[d].AggBW
		}
		writeTerseDir(w, j, d, agg, ver)
	}
	fmt.Fprintf(w, ";%f%%;%f%%;%d;%d;%d", fin(j.UsrCPU), fin(j.SysCPU), j.Ctx, j.MajFlt, j.MinFlt)
	for _, v := range depthPercents(j) {
		fmt.Fprintf(w, ";%3.1f%%", v)
	}
	_, us, ms := latBucketPercents(j)
	us[0] += nsShare(j)
	for _, v := range us {
		fmt.Fprintf(w, ";%3.2f%%", v)
	}
	for _, v := range ms {
		fmt.Fprintf(w, ";%3.2f%%", v)
	}
	for _, d := range r.Disks {
		if ver == 2 {
			break
		}
		fmt.Fprintf(w, ";%s;%d;%d;%d;%d;%d;%d;%d;%3.2f%%", d.Name, d.ReadIOs, d.WriteIOs,
			d.ReadMerges, d.WriteMerges, d.ReadTicks, d.WriteTicks, d.InQueue, fin(d.Util))
	}
	if j.ContinueOnError {
		fmt.Fprintf(w, ";%d;%d", j.TotalErr, j.FirstError)
	}
	if j.Description != "" {
		if ver == 2 {
			w.WriteString("\n")
		}
		fmt.Fprintf(w, ";%s", j.Description)
	}
	w.WriteString("\n")
}

// nsShare is the percentage of the job's completions under 1 us, which
// terse adds to its first us bucket (unfloored, as fio adds it).
func nsShare(j *JobStats) float64 {
	var n, total uint64
	for d := Dir(0); d < NumDirs; d++ {
		cn, cu, cm := j.Dir(d).Clat.Buckets()
		for i := range cn {
			n += cn[i]
			total += cn[i] + cu[i]
		}
		for _, c := range cm {
			total += c
		}
	}
	if total == 0 {
		return 0
	}
	return 100 * float64(n) / float64(total)
}

// writeTerseDir writes one direction's fields of terse version ver; agg
// is the group's aggregate bandwidth in d, bytes/s.
func writeTerseDir(w *bufio.Writer, j *JobStats, d Dir, agg uint64, ver int) {
	ds := j.Dir(d)
	rt := dirRuntimeMs(j, d)
	var bw, iops uint64
	if rt > 0 {
		bw = ds.Bytes * 1000 / rt / 1024
		iops = ds.IOs * 1000 / rt
	}
	fmt.Fprintf(w, ";%d;%d;%d;%d", ds.Bytes>>10, bw, iops, rt)
	slat := ds.Slat
	if j.Sync {
		slat = nil // fio measures no submission latency for sync engines
	}
	writeTerseLat(w, slat)
	writeTerseLat(w, ds.Clat)
	po := j.percentileOptions()
	var list []float64
	var vals []uint64
	switch {
	case po.Lat:
		list, vals = terseList(ds.Lat, po)
	case po.Clat:
		list, vals = terseList(ds.Clat, po)
	}
	for i := 0; i < MaxPercentiles; i++ {
		if i >= len(list) {
			w.WriteString(";0%=0")
			continue
		}
		fmt.Fprintf(w, ";%f%%=%d", list[i], vals[i]/1000)
	}
	writeTerseLat(w, ds.Lat)
	if ds.BW.N() > 0 {
		fmt.Fprintf(w, ";%d;%d;%f%%;%f;%f", uint64(max(ds.BW.Min(), 0)), uint64(max(ds.BW.Max(), 0)),
			percentOfAgg(ds.BW.Mean(), agg), fin(ds.BW.Mean()), fin(ds.BW.Stddev()))
	} else {
		w.WriteString(";0;0;0.000000%;0.000000;0.000000")
	}
	if ver == 5 {
		fmt.Fprintf(w, ";%d", ds.BW.N())
		if ds.IOPS.N() > 0 {
			fmt.Fprintf(w, ";%d;%d;%f;%f;%d", uint64(max(ds.IOPS.Min(), 0)), uint64(max(ds.IOPS.Max(), 0)),
				fin(ds.IOPS.Mean()), fin(ds.IOPS.Stddev()), ds.IOPS.N())
		} else {
			w.WriteString(";0;0;0.000000;0.000000;0")
		}
	}
}

// terseList is fio's sorted percentile list and the values for it; with
// no samples fio still prints the list, every value 0.
func terseList(l *Latency, po PercentileOptions) ([]float64, []uint64) {
	list := SortedPercentiles(po.List)
	vals := l.FioPercentiles(list)
	if vals == nil {
		vals = make([]uint64, len(list))
	}
	return list, vals
}

// writeTerseLat writes min, max, mean and stddev in us (min and max
// truncated), zeros when l is empty.
func writeTerseLat(w *bufio.Writer, l *Latency) {
	if l.Count() == 0 {
		w.WriteString(";0;0;0.000000;0.000000")
		return
	}
	fmt.Fprintf(w, ";%d;%d;%f;%f", l.Min()/1000, l.Max()/1000, fin(l.Mean()/1000), fin(l.Stddev()/1000))
}
