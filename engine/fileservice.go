package engine

import (
	"math"
	"math/rand/v2"

	"github.com/blkq-dev/blkq/workload/fio"
)

// Which of a job's files its next I/O goes to, as fio 3.33 picks it
// (file_service_type, openfiles; io_u.c's get_next_file read for
// behaviour):
//
//   - roundrobin (fio's default) takes the files in turn, sequential
//     stays on one file until its pass ends, random draws one uniformly;
//     with ":N" each pick serves N I/Os in a row (fio's
//     file_service_nr), and a file whose pass has ended is passed over;
//   - zipf, pareto and normal draw the file from the law over
//     files×1024 ranges without fio's hash, so the hot files are
//     neighbours (from a random first file, or the center); a file whose
//     pass ends starts again at once instead of being passed over, so
//     such a job ends by its size, never by running out of files;
//   - openfiles caps how many files are open at once: a file opens when
//     it is first picked, if there is room, and closes when its pass
//     ends (or, with every other file, at a new pass: fio closes them
//     between loops). A pick that finds no room passes the file over,
//     as fio's pick does (its -EBUSY, after which fio reaps and picks
//     again from the next file).
//
// A file that closes calls the generator's onClose (fsync_on_close's
// fsync, close.go).
type fileService struct {
	kind    string
	perFile int // I/Os per pick; math.MaxInt for fio's ":0" (its unsigned count never runs out)
	left    int // I/Os left on cur before the next pick (fio's file_service_left)
	cur     int // the file being served, -1 none
	rr      int // the next file in turn (fio's next_file)
	limit   int // files open at once
	open    []bool
	nOpen   int
	fresh   []bool // reset since its last I/O (a nonuniform pick that still finds nothing ends it)
	rng     *rand.Rand
	skew    *skewed
	onClose func(i int, newPass bool)
}

// fileServiceRanges is fio's FIO_FSERVICE_SHIFT: each file is 2^10
// ranges of the skewed laws.
const fileServiceRanges = 1 << 10

// init sets the service up for job j's n files. Only the random kinds
// take a stream from rng, after the files' own: a job with the default
// draws as it always did.
func (s *fileService) init(j *fio.Job, rng *rand.Rand, n int) {
	fs := j.Files.Service
	s.kind, s.perFile, s.cur = fs.Kind, fs.N, -1
	if s.perFile <= 0 {
		s.perFile = math.MaxInt
	}
	s.limit = n
	if o := j.Files.OpenFiles; o > 0 && o < n {
		s.limit = o
	}
	s.open, s.fresh = make([]bool, n), make([]bool, n)
	if s.kind == "random" || fs.Nonuniform() {
		s.rng = rand.New(rand.NewPCG(rng.Uint64(), 0xf11e5))
	}
	if fs.Nonuniform() {
		s.skew = newSkewed(fio.Distribution{Kind: fs.Kind, Param: fs.Param, Center: fs.Center}, uint64(n)*fileServiceRanges, s.rng)
		s.skew.noHash = true
	}
}

// restart closes every open file for a new pass, as fio's clear_io_state
// does; the turn goes on from where it was.
func (s *fileService) restart() {
	for i := range s.open {
		s.close(i, true)
	}
	s.cur = -1
	clear(s.fresh)
}

// close closes file i, if open; newPass says a new pass closes it.
func (s *fileService) close(i int, newPass bool) {
	if !s.open[i] {
		return
	}
	s.open[i] = false
	s.nOpen--
	if s.onClose != nil {
		s.onClose(i, newPass)
	}
}

// usable reports whether file i can take the next I/O: its pass has not
// ended and it is open or can be opened; it opens it if need be.
func (s *fileService) usable(files []*fileRegion, i int) bool {
	if files[i].done {
		return false
	}
	if !s.open[i] {
		if s.nOpen >= s.limit {
			return false // fio's -EBUSY
		}
		s.open[i] = true
		s.nOpen++
	}
	return true
}

// next returns the file of the next I/O; false when every file's pass
// has ended.
func (s *fileService) next(files []*fileRegion) (int, bool) {
	live := 0
	for _, f := range files {
		if !f.done {
			live++
		}
	}
	if live == 0 {
		return 0, false
	}
	if c := s.cur; c >= 0 && s.open[c] && !files[c].done {
		if s.kind == "sequential" {
			return c, true
		}
		if s.left > 0 {
			s.left--
			return c, true
		}
	}
	i := s.pick(files)
	s.cur, s.left = i, s.perFile-1
	return i, true
}

// pick chooses a file afresh by the service's kind.
func (s *fileService) pick(files []*fileRegion) int {
	n := len(files)
	if s.rng != nil {
		// A draw that lands on a finished or unopenable file is drawn
		// again, as fio does; the bound only guards a pathological law.
		for range 1 << 16 {
			var i int
			if s.skew != nil {
				i = int(s.skew.next() / fileServiceRanges)
			} else {
				i = int(float64(n) * (float64(s.rng.Uint32()) / (1 << 32)))
			}
			if i < n && s.usable(files, i) {
				return i
			}
		}
	}
	for range 2 * n {
		i := s.rr
		s.rr = (s.rr + 1) % n
		if s.usable(files, i) {
			return i
		}
	}
	// Every file not done is closed and there is no room: cannot be (a
	// file closes when its pass ends), but never spin.
	for i, f := range files {
		if !f.done {
			return i
		}
	}
	return 0
}

// used notes that file i issued an I/O.
func (s *fileService) used(i int) { s.fresh[i] = false }

// ended handles the end of file i's pass: it closes, and is passed over
// from now on, or, under a nonuniform law, starts again (unless it was
// just started again and still had nothing to issue).
func (s *fileService) ended(g *generator, i int) {
	s.close(i, false)
	f := g.files[i]
	if s.skew != nil && !s.fresh[i] {
		g.resetFile(f)
		s.fresh[i] = true
		return
	}
	f.done = true
}
