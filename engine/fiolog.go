package engine

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// fio's per-job logs (write_bw_log, write_iops_log, write_lat_log; the
// histogram log of write_hist_log is in fiohist.go), as
// fio 3.33 names and writes them (HOWTO "Log File Formats"; stat.c,
// iolog.c). A line is
//
//	time, value, direction, block size[, offset], priority
//
// time in milliseconds since the job started (the run's clock: virtual on
// simulated devices, real on files), direction 0 read, 1 write, 2 trim.
// Without log_avg_msec there is one line per completed I/O: latencies in
// ns, bandwidth as fio computes it per I/O (bytes * 10^6 / clat in ns), 1
// for IOPS. With log_avg_msec the latency logs write each direction's mean
// (or max, log_max_value) once a window has passed, at the completion that
// closes it, with block size and offset 0; the bandwidth (KiB/s) and IOPS
// logs write one line per direction and window that moved data, at the
// window's end, block size and offset 0 as well, as fio's periodic
// sampler does; a window the job does not outlive by fio's sampler slack
// (1 ms) is not written: the sampler finds the job gone.
//
// Lines are written as they come through a buffered file, not held in
// memory as fio does until the job ends, so a long run does not grow.
// The cost: with per_job_logs=0, where fio appends each job's whole log
// to the shared file when the job ends, blkq's jobs share one open file
// and their lines interleave in time order.

// runLogs are the run's open log files, by path: jobs of per_job_logs=0
// with the same prefix share one.
type runLogs struct {
	files   map[string]*logFile
	err     error                 // the first write error
	replays map[*job]*iologReplay // read_iolog jobs (iologreplay.go)
}

// logFile is one open log file.
type logFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
}

// open returns the log file at path, opened once: truncated, or appended
// to as fio does for per_job_logs=0 and for iologs.
func (rl *runLogs) open(path string, appendTo bool) (*logFile, error) {
	if lf := rl.files[path]; lf != nil {
		return lf, nil
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	if rl.files == nil {
		rl.files = map[string]*logFile{}
	}
	lf := &logFile{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10)}
	rl.files[path] = lf
	return lf, nil
}

// write adds one line; the first error is kept for close.
func (rl *runLogs) write(lf *logFile, line []byte) {
	if _, err := lf.w.Write(line); err != nil && rl.err == nil {
		rl.err = fmt.Errorf("%s: %w", lf.path, err)
	}
}

// close flushes and closes every file and returns the first error.
func (rl *runLogs) close() error {
	if rl == nil {
		return nil
	}
	err := rl.err
	for _, ir := range rl.replays {
		if ir.rd != nil {
			ir.rd.Close()
			ir.rd = nil
		}
	}
	for _, lf := range rl.files {
		if e := lf.w.Flush(); e != nil && err == nil {
			err = fmt.Errorf("%s: %w", lf.path, e)
		}
		if e := lf.f.Close(); e != nil && err == nil {
			err = fmt.Errorf("%s: %w", lf.path, e)
		}
	}
	rl.files = nil
	return err
}

// logName is fio's file name of a log: PREFIX_KIND.N.log, or
// PREFIX_KIND.log with per_job_logs=0; the prefix is the job's name when
// the option has no value. num is fio's thread number: the job's place in
// the run, from 1, clones counted.
func logName(prefix, jobName, kind string, num int, perJob bool) string {
	if prefix == "" {
		prefix = jobName
	}
	if !perJob {
		return prefix + "_" + kind + ".log"
	}
	return prefix + "_" + kind + "." + strconv.Itoa(num) + ".log"
}

// jobLogs are one job's logs (nil members: not asked for).
type jobLogs struct {
	rl                   *runLogs
	files                []iologFile // the job's files, for offsets within them
	start                blkq.Time
	lat, slat, clat      *sampleLog
	bw, iops             *sampleLog
	hist                 *histLog
	iolog                *iologWriter
	prio                 uint32    // the logged I/O's ioprio value (class << 13 | level)
	win                  blkq.Time // bw/iops: the averaging window, 0: per I/O
	winEnd               blkq.Time // bw/iops: end of the current window
	cur, next            winCount  // bw/iops: the current window's, and after its end
	offsetCol, prioValue bool
}

// sampleLog is one log of values: with avg > 0 its samples are averaged
// over windows of avg (latency logs: fio's add_log_sample).
type sampleLog struct {
	f       *logFile
	avg     int64 // ms, 0: a line per sample
	max     bool
	last    [report.NumDirs]int64 // ms: start of the current window
	n       [report.NumDirs]int64
	sum     [report.NumDirs]float64
	maxVal  [report.NumDirs]uint64
	lineBuf []byte
	logs    *jobLogs
}

// newJobLogs opens the logs j's options ask for; nil when none.
func (r *runner) newJobLogs(j *job) (*jobLogs, error) {
	o := j.spec.Logs
	if !o.BW && !o.IOPS && !o.Lat && !o.Hist && o.WriteIolog == "" {
		return nil, nil
	}
	if r.logs == nil {
		r.logs = &runLogs{}
	}
	jl := &jobLogs{rl: r.logs, offsetCol: o.Offset, prioValue: o.Prio, files: r.iologFiles(j)}
	num := j.index + 1
	mk := func(on bool, prefix, kind string) (*sampleLog, error) {
		if !on {
			return nil, nil
		}
		f, err := r.logs.open(logName(prefix, j.name, kind, num, o.PerJob), !o.PerJob)
		if err != nil {
			return nil, err
		}
		return &sampleLog{f: f, avg: int64(o.AvgMsec), max: o.MaxValue, logs: jl}, nil
	}
	var err error
	// fio opens lat, slat, clat in this order; a bare write_lat_log
	// writes all three.
	if jl.lat, err = mk(o.Lat, o.LatPrefix, "lat"); err != nil {
		return nil, err
	}
	if jl.slat, err = mk(o.Lat, o.LatPrefix, "slat"); err != nil {
		return nil, err
	}
	if jl.clat, err = mk(o.Lat, o.LatPrefix, "clat"); err != nil {
		return nil, err
	}
	if jl.bw, err = mk(o.BW, o.BWPrefix, "bw"); err != nil {
		return nil, err
	}
	if jl.iops, err = mk(o.IOPS, o.IOPSPrefix, "iops"); err != nil {
		return nil, err
	}
	if o.Hist {
		f, err := r.logs.open(logName(o.HistPrefix, j.name, "clat_hist", num, o.PerJob), !o.PerJob)
		if err != nil {
			return nil, err
		}
		jl.hist = newHistLog(f, jl, o.HistMsec, o.HistCoarseness)
	}
	if (o.BW || o.IOPS) && o.AvgMsec > 0 {
		jl.win = blkq.Time(o.AvgMsec) * blkq.Time(time.Millisecond)
	}
	if o.WriteIolog != "" {
		f, err := r.logs.open(o.WriteIolog, true)
		if err != nil {
			return nil, err
		}
		jl.iolog = &iologWriter{f: f, logs: jl, files: jl.files}
	}
	return jl, nil
}

// begin notes the job's start: time 0 of every line.
func (jl *jobLogs) begin(start blkq.Time) {
	jl.start = start
	jl.winEnd = start + jl.win
	if jl.iolog != nil {
		jl.iolog.begin()
	}
}

// ms is fio's time of a line: whole milliseconds since the job started.
func (jl *jobLogs) ms(now blkq.Time) int64 { return int64(now-jl.start) / int64(time.Millisecond) }

// completed logs a completed read, write or trim: its latencies in ns
// (slat < 0: none, as for fio's sync engines).
//
// A latency of -1 is not kept (disable_slat, disable_clat, disable_lat:
// stats.go's statsOff) and has no entry; the per-I/O bandwidth is of
// bwClat, the completion latency whether kept or not, and noBW leaves it
// out (disable_bw).
func (jl *jobLogs) completed(u *ioUnit, now blkq.Time, slat, clat, lat, bwClat int64, noBW bool) {
	d := rwt(u.bio.Op)
	bytes := int64(u.bio.Sectors) << blkq.SectorShift
	_, off := jl.fileOf(int64(u.bio.Sector) << blkq.SectorShift)
	jl.prio = uint32(u.bio.Prio)
	t := jl.ms(now)
	jl.sampleWindows(now)
	if lat >= 0 {
		jl.lat.add(d, uint64(lat), bytes, off, t)
	}
	if slat >= 0 {
		jl.slat.add(d, uint64(slat), bytes, off, t)
	}
	if clat >= 0 {
		jl.clat.add(d, uint64(clat), bytes, off, t)
	}
	if jl.win == 0 {
		if !noBW {
			var bw uint64
			if bwClat > 0 {
				bw = uint64(bytes) * 1_000_000 / uint64(bwClat)
			}
			jl.bw.add(d, bw, bytes, off, t)
		}
		jl.iops.add(d, 1, bytes, off, t)
	} else {
		w := &jl.cur
		if now >= jl.winEnd {
			w = &jl.next // the window ended, its sampler has not come yet
		}
		w.bytes[d] += bytes
		w.ios[d]++
	}
	if clat >= 0 {
		jl.hist.add(d, uint64(clat), bytes, t)
	}
}

// winCount is what completed in an averaging window.
type winCount struct{ bytes, ios [report.NumDirs]int64 }

// samplerSlack is how long after a window's end fio's sampler takes it
// (LOG_MSEC_SLACK, 1 ms on Linux): a job that ends within it loses the
// window.
const samplerSlack = blkq.Time(time.Millisecond)

// sampleWindows writes the bandwidth and IOPS lines of every averaging
// window (log_avg_msec) that the sampler has taken by now: one that ended
// samplerSlack ago, each at its end.
func (jl *jobLogs) sampleWindows(now blkq.Time) {
	if jl.win == 0 {
		return
	}
	for now >= jl.winEnd+samplerSlack {
		t := jl.ms(jl.winEnd)
		winMs := int64(jl.win / blkq.Time(time.Millisecond))
		for d := report.DirRead; d < report.NumDirs; d++ {
			if jl.cur.ios[d] == 0 {
				continue
			}
			jl.bw.line(d, uint64(jl.cur.bytes[d]*1000/winMs/1024), 0, 0, t, 0)
			jl.iops.line(d, uint64(jl.cur.ios[d]*1000/winMs), 0, 0, t, 0)
		}
		jl.cur, jl.next = jl.next, winCount{}
		if jl.cur == (winCount{}) {
			// Idle windows write nothing: skip them at once.
			jl.winEnd += (now - samplerSlack - jl.winEnd) / jl.win * jl.win
		}
		jl.winEnd += jl.win
	}
}

// finish writes what the averaging windows of the latency logs hold, at
// the job's end (fio's finalize_logs), and the iolog's close lines.
func (jl *jobLogs) finish(end blkq.Time) {
	jl.sampleWindows(end)
	t := jl.ms(end)
	for _, l := range []*sampleLog{jl.lat, jl.slat, jl.clat} {
		l.flushAll(t)
	}
	if jl.iolog != nil {
		jl.iolog.finish(end)
	}
}

// add logs one sample: a line, or into the direction's window, written
// once the window has passed.
func (l *sampleLog) add(d report.Dir, v uint64, bs, off, t int64) {
	if l == nil {
		return
	}
	if l.avg == 0 {
		l.line(d, v, bs, off, t, l.logs.prio)
		return
	}
	l.n[d]++
	l.sum[d] += float64(v)
	l.maxVal[d] = max(l.maxVal[d], v)
	if t < l.last[d] || t-l.last[d] < l.avg {
		return
	}
	l.flush(d, t)
	l.last[d] = t - t%l.avg
}

// flush writes direction d's window, if it holds samples, at time t.
func (l *sampleLog) flush(d report.Dir, t int64) {
	if l.n[d] == 0 {
		return
	}
	v := uint64(l.sum[d]/float64(l.n[d]) + 0.5)
	if l.max {
		v = l.maxVal[d]
	}
	l.line(d, v, 0, 0, t, 0)
	l.n[d], l.sum[d], l.maxVal[d] = 0, 0, 0
}

// flushAll writes every direction's window at time t.
func (l *sampleLog) flushAll(t int64) {
	if l == nil || l.avg == 0 {
		return
	}
	for d := report.DirRead; d < report.NumDirs; d++ {
		l.flush(d, t)
	}
}

// line writes "t, v, d, bs[, off], prio" in fio's format.
func (l *sampleLog) line(d report.Dir, v uint64, bs, off, t int64, prio uint32) {
	if l == nil {
		return
	}
	b := l.lineBuf[:0]
	b = strconv.AppendInt(b, t, 10)
	b = append(b, ", "...)
	b = strconv.AppendUint(b, v, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, bs, 10)
	b = append(b, ", "...)
	if l.logs.offsetCol {
		b = strconv.AppendInt(b, off, 10)
		b = append(b, ", "...)
	}
	if l.logs.prioValue {
		b = fmt.Appendf(b, "0x%04x", prio)
	} else {
		// Without log_prio fio writes 1 for the real-time class, else 0.
		b = strconv.AppendInt(b, int64(b2i(prio>>13 == 1)), 10)
	}
	b = append(b, '\n')
	l.lineBuf = b
	l.logs.rl.write(l.f, b)
}

// openLogs opens every job's logs before the run starts.
func (r *runner) openLogs() error {
	for _, j := range r.jobs {
		jl, err := r.newJobLogs(j)
		if err != nil {
			return fmt.Errorf("%s: job %q: %w", jobPlace(r.jf, j.spec), j.name, err)
		}
		j.st.logs = jl
	}
	return nil
}

// closeLogs flushes and closes the run's log files.
func (r *runner) closeLogs() error {
	err := r.logs.close()
	r.logs = nil
	if err != nil {
		return errors.Join(errors.New("writing the logs"), err)
	}
	return nil
}

// logIssue writes u to the job's iolog, if it has one, as it is issued;
// datasync names a flush fdatasync.
func (s *jobStats) logIssue(u *ioUnit, now blkq.Time, datasync bool) {
	if s.logs == nil || s.logs.iolog == nil {
		return
	}
	b := &u.bio
	syncFile := int64(-1)
	if f := u.syncOne; f != nil {
		syncFile = f.fileBase
	}
	s.logs.iolog.issued(now, b.Op, datasync, int64(b.Sector)<<blkq.SectorShift, int64(b.Sectors)<<blkq.SectorShift, syncFile)
}
