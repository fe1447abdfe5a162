package engine

import (
	"strconv"

	"github.com/blkq-dev/blkq/report"
)

// write_hist_log: fio's clat histogram log (NAME_clat_hist.N.log), as fio
// 3.33 writes it (stat.c add_clat_sample, iolog.c flush_hist_samples). A
// line is
//
//	time, direction, block size, bin 0, bin 1, ..., bin K
//
// the completions of one direction since that direction's previous line,
// counted in fio's 1856 latency bins, 2^log_hist_coarseness adjacent bins
// summed per column. As in fio, a direction's line is written at the
// completion that finds log_hist_msec passed since its previous one (the
// first completion starts the clock), the window's overrun carried into
// the next, and nothing is written at the job's end or without
// log_hist_msec.

// histLog is one job's clat histogram log.
type histLog struct {
	f      *logFile
	logs   *jobLogs
	msec   int64 // log_hist_msec
	stride int   // bins per column
	counts [report.NumDirs][report.PlatBins]uint64
	last   [report.NumDirs]int64 // ms of the direction's last line (0: not started)
	buf    []byte
}

func newHistLog(f *logFile, jl *jobLogs, msec, coarseness int) *histLog {
	return &histLog{f: f, logs: jl, msec: int64(msec), stride: 1 << coarseness}
}

// add counts a completion's clat and writes the direction's line once
// the window has passed.
func (h *histLog) add(d report.Dir, clat uint64, bs, t int64) {
	if h == nil || h.msec == 0 {
		return
	}
	h.counts[d][report.PlatIndex(clat)]++
	if h.last[d] == 0 {
		h.last[d] = t
	}
	window := t - h.last[d]
	if window < h.msec {
		return
	}
	b := strconv.AppendInt(h.buf[:0], t, 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, int64(d), 10)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, bs, 10)
	c := &h.counts[d]
	for i := 0; i < report.PlatBins; i += h.stride {
		var sum uint64
		for _, n := range c[i : i+h.stride] {
			sum += n
		}
		b = append(b, ", "...)
		b = strconv.AppendUint(b, sum, 10)
	}
	b = append(b, '\n')
	h.buf = b
	h.logs.rl.write(h.f, b)
	*c = [report.PlatBins]uint64{}
	h.last[d] = t - (window - h.msec)
}
