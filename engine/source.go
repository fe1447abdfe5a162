package engine

import (
	"github.com/blkq-dev/blkq/report"
)

// A job's source chooses its I/Os; the job (job.go) issues them, keeps
// its depth and accounts them, the same for every source. There are two:
// fio's offsets under its rate limits (fioSource, below) and a trace's
// records (traceSource, replay.go).
type source interface {
	// begin is called once, when the job starts.
	begin()
	// next returns the I/O to issue now. srcWait: none now (a timer or
	// a wake-up pumps the job again); srcDrain: none until the job's I/O
	// in flight is reaped (verify reads what those writes wrote);
	// srcEnd: the source is done.
	next() (nextIO, srcStatus)
	// failed handles an I/O that ended with err, other than a dropped
	// read-ahead; false leaves it to the job: fio's io_u error, and the
	// job stops.
	failed(u *ioUnit, err error) bool
	// describe fills the job's report header (name, engine, block
	// sizes, ...).
	describe(js *report.JobStats)
}

type srcStatus int

const (
	srcReady srcStatus = iota
	srcWait
	srcDrain
	srcEnd
)

// fioSource is a fio job's source: the offset generator (gen.go) paced by
// rate and rate_iops (rate.go).
type fioSource struct {
	j       *job
	gen     *generator
	held    nextIO // the next I/O, held back by a rate limit, if holding
	holding bool
	passes  int   // passes over the files begun
	passIOs int64 // I/Os generated in the current pass (number_ios counts per pass, as fio's)
	rate    rateState
	// restartDue: the pass has ended and its fsyncs are queued; the next
	// pass begins once they are done.
	restartDue bool
}

func (s *fioSource) begin() { s.passes = 1 }

func (s *fioSource) failed(*ioUnit, error) bool { return false }

// next returns the next I/O, or srcEnd when the generator's pass has
// ended and no other pass follows.
func (s *fioSource) next() (nextIO, srcStatus) {
	if s.rate.checkMin(s.j) {
		return nextIO{}, srcEnd
	}
	return s.paced()
}

// generate returns the generator's next I/O, beginning another pass when
// one ends and fio would go on: time_based, loops left, or io_size beyond
// the region (fio then goes over the region again).
func (s *fioSource) generate() (nextIO, bool) {
	if !s.restartDue {
		if n := s.j.spec.NumberIOs; n == 0 || s.passIOs < n {
			if io, ok := s.gen.next(); ok {
				s.passIOs++
				return io, true
			}
		}
		j := s.j
		again := j.timeBased() || s.passes < max(j.spec.Loops, 1) ||
			(j.spec.IOSize > 0 || j.spec.IOSizePercent > 0) && j.issued < j.limit
		if !again {
			return nextIO{}, false
		}
		if j.vfy == nil && j.queueEndSyncs() {
			s.restartDue = true // the pass's fsyncs first (close.go)
			return nextIO{}, false
		}
	}
	s.restartDue = false
	if !s.j.unlinkBeforePass() {
		return nextIO{}, false // unlink_each_loop: a reading job's files are gone (unlink.go)
	}
	s.passes++
	s.gen.restart()
	io, ok := s.gen.next()
	s.passIOs = 0
	if ok {
		s.passIOs = 1
	}
	return io, ok
}

// paced returns the next I/O that rate and rate_iops allow now. An I/O
// whose direction must wait is held and issued when its time comes; as
// with fio's rate_ddir, a mixed job meanwhile goes on in the direction
// that is not limited (a further draw of the limited direction while one
// is held is dropped). Nothing may be issued now: a timer calls pump
// again.
func (s *fioSource) paced() (nextIO, srcStatus) {
	j := s.j
	if s.holding {
		wait := s.rate.wait(j, s.held.op)
		if wait <= 0 {
			s.holding = false
			s.rate.issued(j, s.held)
			return s.held, srcReady
		}
		if !s.gen.mixed {
			j.rateSleep(wait)
			return nextIO{}, srcWait
		}
	}
	for range 8 {
		io, ok := s.generate()
		if !ok {
			if s.holding {
				break
			}
			if s.restartDue {
				return nextIO{}, srcWait // the job issues the pass's fsyncs, then asks again
			}
			return nextIO{}, srcEnd
		}
		wait := s.rate.wait(j, io.op)
		if wait <= 0 {
			s.rate.issued(j, io)
			return io, srcReady
		}
		if !s.holding {
			s.held, s.holding = io, true
			if !s.gen.mixed {
				j.rateSleep(wait)
				return nextIO{}, srcWait
			}
		}
	}
	j.rateSleep(s.rate.wait(j, s.held.op))
	return nextIO{}, srcWait
}

// describe fills js from the job's section of the job file.
func (s *fioSource) describe(js *report.JobStats) {
	j, spec := s.j, s.j.spec
	js.Name, js.GroupID, js.PID = j.name, spec.GroupID, j.pid
	js.Clone = j.clone > 0
	js.JobOptions = spec.Options[spec.NumInherited:]
	js.Engine, js.IODepth, js.RW, js.Sync = spec.IOEngine, max(spec.IODepth, 1), spec.RW.String(), j.syncIO // the configured depth, as fio prints it, not the depth a sync engine runs at
	js.Uncounted = j.aio.unmarked
	js.LatencyTarget = j.latReport()
	for d := range 3 {
		lo, hi := spec.BS[d].Min, spec.BS[d].Max
		if sp := spec.BSSplit[d]; len(sp) > 0 {
			lo, hi = sp[0].BS, sp[0].BS
			for _, x := range sp {
				lo, hi = min(lo, x.BS), max(hi, x.BS)
			}
		}
		js.BS[d] = report.BSRange{Min: uint64(lo), Max: uint64(hi)}
	}
	if j.err != nil {
		js.Error = int(errnoOf(j.err)) // the errno itself, as fio reports it
		js.ErrorText = errorText(j.errFunc, j.err)
	}
	if j.ss != nil {
		js.SteadyState = j.ss.report()
	}
	if spec.Errors.ContinueOn != 0 {
		js.ContinueOnError, js.TotalErr, js.FirstError = true, j.errCount, int(j.errFirst)
		if j.err == nil && j.errFirst != 0 {
			js.Error, js.ErrorText, js.ErrorContinued = int(j.errFirst), j.errFirstText, true
		}
	}
}
