package report

import (
	"bufio"
	"io"
	"strconv"
	"unicode/utf8"
)

// jsonEta is the value fio prints for "eta" once a job has finished.
const jsonEta = 2147483647

// WriteJSON writes r as fio 3.33's --output-format=json, with fio's key
// order and layout (two-space indent, `"key" : value`, floats with six
// decimals), plus blkq's extras:
//
//   - per job, after fio's keys, a "blkq" object when [JobStats.Blkq] is set:
//     alloc_sleeps, alloc_wakeups, alloc_waits, alloc_wait_total_ns,
//     alloc_wait_max_ns, alloc_wait_p99_ns, readahead_dropped, back_merges,
//     front_merges, requests_issued, request_bytes, avg_request_bytes,
//     cpu_measured (false: usr_cpu, sys_cpu, ctx, majf, minf are not
//     measurements, see [JobStats.CPUMeasured]);
//   - after "disk_util", a top-level "blkq_groups" array, one object per
//     group in ascending id order: groupid, jobs, group_reporting,
//     jain_index, job_bw_bytes (each job's throughput, bytes/s);
//   - "blkq_ignored": the [Run.Ignored] notes, when there are any;
//   - "blkq_page_cache": the [Run.PageCache] figures, when there are any:
//     written_flusher, written_throttle, written_sync, throttled,
//     read_hits, max_dirty, background, hard (pages of 4 KiB),
//     readahead_dropped (bios).
//
// As in fio, "global options" and a job's "job options" are left out when
// empty, so is "disk_util" when there are no disks, and "desc" when a job
// has no description; every other key is always present (zeros for a
// direction without I/O). Under group_reporting each group is one job
// object named after its first job. The output never contains NaN or
// infinities and is byte-identical for identical input.
func WriteJSON(w io.Writer, r *Run) error { return writeJSON(w, r, false) }

// WriteJSONPlus writes r as fio 3.33's --output-format=json+: the JSON of
// [WriteJSON] where every latency object that has a "percentile" object
// also has "bins", fio's histogram (see [Latency.Bins]): one key per
// non-empty bin, the bin's value in ns, whose value is the bin's count.
func WriteJSONPlus(w io.Writer, r *Run) error { return writeJSON(w, r, true) }

func writeJSON(w io.Writer, r *Run, plus bool) error {
	if r == nil {
		r = &Run{}
	}
	bw := bufio.NewWriter(w)
	writeJSONValue(bw, runJSON(r, plus), 0)
	bw.WriteString("\n")
	return bw.Flush()
}

// jobj is a JSON object whose keys keep their insertion order.
type jobj struct {
	keys []string
	vals []any
}

func (o *jobj) add(k string, v any) *jobj {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	return o
}

// jfloat is a float printed with six decimals, as fio prints doubles.
type jfloat float64

// jarr is a JSON array.
type jarr []any

func writeJSONValue(w *bufio.Writer, v any, indent int) {
	switch x := v.(type) {
	case *jobj:
		if len(x.keys) == 0 {
			w.WriteString("{}")
			return
		}
		w.WriteString("{\n")
		for i, k := range x.keys {
			pad(w, indent+2)
			writeJSONString(w, k)
			w.WriteString(" : ")
			writeJSONValue(w, x.vals[i], indent+2)
			if i < len(x.keys)-1 {
				w.WriteString(",")
			}
			w.WriteString("\n")
		}
		pad(w, indent)
		w.WriteString("}")
	case jarr:
		if len(x) == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[\n")
		for i, e := range x {
			pad(w, indent+2)
			writeJSONValue(w, e, indent+2)
			if i < len(x)-1 {
				w.WriteString(",")
			}
			w.WriteString("\n")
		}
		pad(w, indent)
		w.WriteString("]")
	case string:
		writeJSONString(w, x)
	case bool:
		w.WriteString(strconv.FormatBool(x))
	case int:
		w.WriteString(strconv.Itoa(x))
	case int64:
		w.WriteString(strconv.FormatInt(x, 10))
	case uint64:
		w.WriteString(strconv.FormatUint(x, 10))
	case jfloat:
		w.WriteString(strconv.FormatFloat(fin(float64(x)), 'f', 6, 64))
	default:
		panic("report: unexpected JSON value type")
	}
}

func pad(w *bufio.Writer, n int) {
	for i := 0; i < n; i++ {
		w.WriteByte(' ')
	}
}

// writeJSONString writes s quoted, escaping quotes, backslashes, control
// characters and invalid UTF-8 (as U+FFFD).
func writeJSONString(w *bufio.Writer, s string) {
	const hex = "0123456789abcdef"
	w.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				w.WriteByte('\\')
				w.WriteByte(c)
			case c == '\n':
				w.WriteString(`\n`)
			case c == '\r':
				w.WriteString(`\r`)
			case c == '\t':
				w.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				w.WriteString(`\u00`)
				w.WriteByte(hex[c>>4])
				w.WriteByte(hex[c&0xf])
			default:
				w.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			w.WriteString(`\ufffd`)
		} else {
			w.WriteString(s[i : i+size])
		}
		i += size
	}
	w.WriteByte('"')
}

// options returns an object of string options in order.
func options(opts [][2]string) *jobj {
	o := &jobj{}
	for _, kv := range opts {
		o.add(kv[0], kv[1])
	}
	return o
}

func runJSON(r *Run, plus bool) *jobj {
	root := &jobj{}
	root.add("fio version", runVersion(r))
	root.add("timestamp", r.Timestamp)
	root.add("timestamp_ms", r.TimestampMs)
	root.add("time", runTime(r))
	if len(r.GlobalOptions) > 0 {
		root.add("global options", options(r.GlobalOptions))
	}
	us := units(r)
	groups := groupsOf(r, us)
	gidx := map[int]*GroupStats{}
	for i := range groups {
		gidx[groups[i].GroupID] = &groups[i]
	}
	jobs := jarr{}
	for _, u := range us {
		jobs = append(jobs, jobJSON(u.job, gidx[u.job.GroupID], plus))
	}
	root.add("jobs", jobs)
	if len(r.Disks) > 0 {
		disks := jarr{}
		for _, d := range r.Disks {
			o := &jobj{}
			o.add("name", d.Name)
			o.add("read_ios", d.ReadIOs)
			o.add("write_ios", d.WriteIOs)
			o.add("read_merges", d.ReadMerges)
			o.add("write_merges", d.WriteMerges)
			o.add("read_ticks", d.ReadTicks)
			o.add("write_ticks", d.WriteTicks)
			o.add("in_queue", d.InQueue)
			o.add("util", jfloat(d.Util))
			disks = append(disks, o)
		}
		root.add("disk_util", disks)
	}
	bg := jarr{}
	for _, g := range groups {
		o := &jobj{}
		o.add("groupid", g.GroupID)
		o.add("jobs", g.Jobs)
		o.add("group_reporting", g.GroupReporting)
		o.add("jain_index", jfloat(g.JainIndex))
		bws := jarr{}
		for _, b := range g.JobBW {
			bws = append(bws, jfloat(b))
		}
		o.add("job_bw_bytes", bws)
		bg = append(bg, o)
	}
	root.add("blkq_groups", bg)
	if len(r.Ignored) > 0 {
		ig := jarr{}
		for _, s := range r.Ignored {
			ig = append(ig, s)
		}
		root.add("blkq_ignored", ig)
	}
	if pc := r.PageCache; pc != nil {
		o := &jobj{}
		o.add("written_flusher", pc.WrittenFlusher)
		o.add("written_throttle", pc.WrittenThrottle)
		o.add("written_sync", pc.WrittenSync)
		o.add("throttled", pc.Throttled)
		o.add("read_hits", pc.ReadHits)
		o.add("max_dirty", pc.MaxDirty)
		o.add("background", pc.Background)
		o.add("hard", pc.Hard)
		o.add("readahead_dropped", pc.ReadAheadDropped)
		root.add("blkq_page_cache", o)
	}
	return root
}

// latJSON is a latency object; with percentiles, its "percentile"
// object at po's list, and with plus too, its "bins".
func latJSON(l *Latency, percentiles bool, po PercentileOptions, plus bool) *jobj {
	o := &jobj{}
	o.add("min", l.Min())
	o.add("max", l.Max())
	o.add("mean", jfloat(l.Mean()))
	o.add("stddev", jfloat(l.Stddev()))
	o.add("N", l.Count())
	if percentiles && l.Count() > 0 {
		p := &jobj{}
		list := SortedPercentiles(po.List)
		for i, v := range l.FioPercentiles(list) {
			p.add(strconv.FormatFloat(list[i], 'f', 6, 64), v)
		}
		o.add("percentile", p)
		if plus {
			b := &jobj{}
			for _, bin := range l.Bins() {
				b.add(strconv.FormatUint(bin.Value, 10), bin.Count)
			}
			o.add("bins", b)
		}
	}
	return o
}

func dirJSON(j *JobStats, d Dir, g *GroupStats, plus bool) *jobj {
	ds := j.Dir(d)
	rt := dirRuntimeMs(j, d)
	var bwBytes uint64
	var iops float64
	if rt > 0 {
		bwBytes = ds.Bytes * 1000 / rt
		iops = float64(ds.IOs) * 1000 / float64(rt)
	}
	o := &jobj{}
	o.add("io_bytes", ds.Bytes)
	o.add("io_kbytes", ds.Bytes>>10)
	o.add("bw_bytes", bwBytes)
	o.add("bw", bwBytes/1024)
	o.add("iops", jfloat(iops))
	o.add("runtime", rt)
	o.add("total_ios", ds.IOs)
	o.add("short_ios", ds.Short)
	o.add("drop_ios", ds.Dropped)
	slat := ds.Slat
	if j.Sync {
		slat = nil // fio measures no submission latency for sync engines: all zeros
	}
	po := j.percentileOptions()
	o.add("slat_ns", latJSON(slat, po.Slat, po, plus))
	o.add("clat_ns", latJSON(ds.Clat, po.Clat, po, plus))
	o.add("lat_ns", latJSON(ds.Lat, po.Lat, po, plus))
	if a := priosJSON(ds, po, plus); a != nil {
		o.add("prios", a)
	}
	var agg float64
	if ds.BW.N() > 0 {
		var a uint64
		if g != nil {
			a = g.Dirs[d].AggBW
		}
		agg = percentOfAgg(ds.BW.Mean(), a)
	}
	o.add("bw_min", uint64(max(ds.BW.Min(), 0)))
	o.add("bw_max", uint64(max(ds.BW.Max(), 0)))
	o.add("bw_agg", jfloat(agg))
	o.add("bw_mean", jfloat(ds.BW.Mean()))
	o.add("bw_dev", jfloat(ds.BW.Stddev()))
	o.add("bw_samples", ds.BW.N())
	o.add("iops_min", uint64(max(ds.IOPS.Min(), 0)))
	o.add("iops_max", uint64(max(ds.IOPS.Max(), 0)))
	o.add("iops_mean", jfloat(ds.IOPS.Mean()))
	o.add("iops_stddev", jfloat(ds.IOPS.Stddev()))
	o.add("iops_samples", ds.IOPS.N())
	return o
}

// percentMap returns an object label → percentage.
func percentMap(labels []string, vals []float64) *jobj {
	o := &jobj{}
	for i, l := range labels {
		o.add(l, jfloat(vals[i]))
	}
	return o
}

func jobJSON(j *JobStats, g *GroupStats, plus bool) *jobj {
	o := &jobj{}
	o.add("jobname", j.Name)
	o.add("groupid", j.GroupID)
	o.add("error", j.Error)
	o.add("eta", jsonEta)
	o.add("elapsed", j.Elapsed)
	if len(j.JobOptions) > 0 {
		o.add("job options", options(j.JobOptions))
	}
	for d := Dir(0); d < NumDirs; d++ {
		o.add(d.String(), dirJSON(j, d, g, plus))
	}
	sync := &jobj{}
	var syncLat *Latency
	var syncIOs uint64
	if j.SyncOps != nil {
		syncLat, syncIOs = j.SyncOps.Lat, j.SyncOps.IOs
	}
	sync.add("total_ios", syncIOs)
	po := j.percentileOptions()
	sync.add("lat_ns", latJSON(syncLat, po.Clat || po.Lat, po, plus))
	o.add("sync", sync)
	o.add("job_runtime", msOf(jobRuntimeNs(j)))
	o.add("usr_cpu", jfloat(j.UsrCPU))
	o.add("sys_cpu", jfloat(j.SysCPU))
	o.add("ctx", j.Ctx)
	o.add("majf", j.MajFlt)
	o.add("minf", j.MinFlt)
	depth := depthPercents(j)
	o.add("iodepth_level", percentMap(depthLabels[:], depth[:]))
	sub, comp := batchPercents(j)
	o.add("iodepth_submit", percentMap(batchLabels[:], sub[:]))
	o.add("iodepth_complete", percentMap(batchLabels[:], comp[:]))
	ns, us, ms := latBucketPercents(j)
	o.add("latency_ns", percentMap(int64Labels(latBoundsNs[:]), ns[:]))
	o.add("latency_us", percentMap(int64Labels(latBoundsNs[:]), us[:]))
	o.add("latency_ms", percentMap(append(int64Labels(latBoundsMs[:]), ">=2000"), ms[:]))
	if j.ContinueOnError {
		o.add("total_err", j.TotalErr)
		o.add("first_error", j.FirstError)
	}
	lt := j.latencyTarget()
	o.add("latency_depth", lt.Depth)
	o.add("latency_target", lt.TargetNs)
	o.add("latency_percentile", jfloat(lt.Percentile))
	o.add("latency_window", lt.WindowUs)
	if j.Description != "" {
		o.add("desc", j.Description)
	}
	if j.SteadyState != nil {
		o.add("steadystate", steadyStateJSON(j.SteadyState))
	}
	if j.Blkq != nil {
		b := j.Blkq.effective()
		x := &jobj{}
		x.add("alloc_sleeps", b.Sleeps)
		x.add("alloc_wakeups", b.Wakeups)
		x.add("alloc_waits", b.Waits)
		x.add("alloc_wait_total_ns", b.WaitTotal)
		x.add("alloc_wait_max_ns", b.WaitMax)
		x.add("alloc_wait_p99_ns", b.WaitP99)
		x.add("readahead_dropped", b.DroppedReadAhead)
		x.add("back_merges", b.BackMerges)
		x.add("front_merges", b.FrontMerges)
		x.add("requests_issued", b.RequestsIssued)
		x.add("request_bytes", b.RequestBytes)
		x.add("avg_request_bytes", jfloat(b.AvgRequestBytes()))
		x.add("cpu_measured", j.CPUMeasured)
		if c := b.CPU; c != nil {
			dmax, d99 := c.RunDelay.Max(), c.RunDelay.Percentile(99) // nil-safe
			x.add("cpu_modelled_cpus", c.CPUs)
			x.add("task_wakeups", c.Wakeups)
			x.add("wakeup_latency_max_ns", dmax)
			x.add("wakeup_latency_p99_ns", d99)
		}
		o.add("blkq", x)
	}
	return o
}

func int64Labels(v []int64) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatInt(x, 10)
	}
	return out
}
