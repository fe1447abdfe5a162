package engine

// fio's status line, printed every second of wall time while the run
// lasts (fio's eta line, on stdout when it is a terminal or
// --eta=always):
//
//	Jobs: 1 (f=1): [r(1)][40.0%][r=95.7MiB/s][r=24.5k IOPS][eta 00m:03s]
//
// The running jobs and their files; each job's state as one letter, run
// together as fio condenses them (R/r sequential/random read, W/w write,
// M/m mixed, D/d trim, / in ramp time, P not started, _ done); the share
// of the run done, as elapsed/(elapsed+eta); the rates and IOPS of the
// last interval per direction; the eta. As fio, the brackets appear only
// once the run is 3 s old (before, fio has no estimate), "-.-%" stands
// for a share not known yet, and the line ends with a carriage return,
// padded to overwrite a longer previous line. A simulated run's rates
// are in wall time too, the rates at which the run's I/O goes by.

import (
	"fmt"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

// statusPoint is what one status line counts from: when, and the bytes
// and I/Os done per direction by then.
type statusPoint struct {
	wall  time.Duration
	bytes [report.NumDirs]int64
	ios   [report.NumDirs]int64
}

// flushProgress adds every job's completions held back (progressBatch)
// to the counters statusNow reads. Call it on the executor only.
func (r *runner) flushProgress() {
	for _, j := range r.jobs {
		j.st.pend.flush(&j.st.eta)
	}
}

// statusNow reads the jobs' counters at wall time wall: off the executor
// (the progress line) they lag by fewer than progressBatchSize
// completions a job; on it, flushProgress first makes them exact.
func (r *runner) statusNow(wall time.Duration) statusPoint {
	p := statusPoint{wall: wall}
	for _, j := range r.jobs {
		for d := range p.bytes {
			p.bytes[d] += j.st.eta.dirBytes[d].Load()
			p.ios[d] += j.st.eta.dirIOs[d].Load()
		}
	}
	return p
}

// statusLine returns fio's status line at now on the run's clock, wall
// time into the run, with the rates since prev; last is the length of
// the previous line, which a shorter one pads over.
func (r *runner) statusLine(now blkq.Time, prev, cur statusPoint, last int) string {
	running, files := 0, 0
	states := make([]byte, 0, len(r.jobs))
	for _, j := range r.jobs {
		c := j.stateLetter(now)
		if c != 'P' && c != '_' {
			running++
			files += max(j.spec.NrFiles, 1)
		}
		states = append(states, c)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Jobs: %d (f=%d)", running, files)
	elapsed := int64((cur.wall + time.Second - 1) / time.Second)
	if running > 0 && elapsed >= 3 {
		perc, eta := "-.-%", "--"
		if rem, ok := r.etaRemaining(now); ok {
			left := int64(etaWall(rem, now, cur.wall, r.simulated) / time.Second)
			perc = fmt.Sprintf("%3.1f%%", float64(elapsed)/float64(elapsed+left)*100)
			eta = fioETA(time.Duration(left) * time.Second)
		}
		fmt.Fprintf(&b, ": [%s][%s]%s[eta %s]", condenseStates(states), perc, statusRates(prev, cur), eta)
	}
	line := b.String()
	if pad := last - len(line); pad > 0 {
		line += strings.Repeat(" ", pad)
	}
	return line + "\r"
}

// statusRates is "[r=95.7MiB/s,w=...][r=24.5k,w=... IOPS]" for the
// directions that moved data since prev, "" when none did.
func statusRates(prev, cur statusPoint) string {
	ms := int64((cur.wall - prev.wall) / time.Millisecond)
	if ms <= 0 {
		return ""
	}
	var rates, iops []string
	for d, c := range [report.NumDirs]byte{'r', 'w', 't'} {
		kib := (1000 * (cur.bytes[d] - prev.bytes[d]) / ms) / 1024
		n := 1000 * (cur.ios[d] - prev.ios[d]) / ms
		if kib <= 0 && n <= 0 {
			continue
		}
		rates = append(rates, fmt.Sprintf("%c=%s", c, report.Num2Str(uint64(max(kib, 0))*1024, 4, true, report.UnitBytesPerS)))
		iops = append(iops, fmt.Sprintf("%c=%s", c, report.Num2Str(uint64(max(n, 0)), 4, false, report.UnitNone)))
	}
	if len(rates) == 0 {
		return ""
	}
	return "[" + strings.Join(rates, ",") + "][" + strings.Join(iops, ",") + " IOPS]"
}

// stateLetter is fio's letter for the job's state at now.
func (j *job) stateLetter(now blkq.Time) byte {
	e := &j.st.eta
	switch {
	case e.finished.Load():
		return '_'
	case !e.started.Load():
		return 'P'
	case now < blkq.Time(e.start.Load())+blkq.Time(j.spec.RampTime):
		return '/'
	}
	rw := j.spec.RW
	var c byte
	switch {
	case rw.Reads() && rw.Writes():
		switch j.spec.RWMixRead {
		case 100:
			c = 'R'
		case 0:
			c = 'W'
		default:
			c = 'M'
		}
	case rw.Reads():
		c = 'R'
	case rw.Writes():
		c = 'W'
	default:
		c = 'D'
	}
	if rw.Random() {
		c += 'a' - 'A'
	}
	return c
}

// condenseStates writes runs of the same letter as fio does: "R(2),_(1)".
func condenseStates(s []byte) string {
	var parts []string
	for i := 0; i < len(s); {
		k := i
		for k < len(s) && s[k] == s[i] {
			k++
		}
		parts = append(parts, fmt.Sprintf("%c(%d)", s[i], k-i))
		i = k
	}
	return strings.Join(parts, ",")
}
