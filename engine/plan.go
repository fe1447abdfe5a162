package engine

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/blkq-dev/blkq/internal/satmath"
	"github.com/blkq-dev/blkq/workload/fio"
)

// Planning a run: the job file's sections become jobs (numjobs clones
// included), each with its files laid out on the device (layout.go), its
// size, its source, and the jobs it waits for (wait_for, stonewall).

// plan expands numjobs, lays the jobs' files out and links dependencies.
func (r *runner) plan() (*layout, error) {
	lay := r.newLayout()
	type region struct {
		name  string
		known int64 // the file's size if filesize= gives it
	}
	var regions [][]region
	pid := 1000
	// A stonewall waits for every job before it. Each segment (the jobs
	// from one stonewall to the next) waits on one gate, which opens when
	// the previous gate has opened and the previous segment's jobs have
	// finished: one edge per job, where waiting on each earlier job
	// directly cost jobs x jobs edges (7.4 GB for 30,000 sections).
	var cur *gate // the gate of the current segment (nil: the first)
	var segJobs []*job
	var all []*job
	byName := map[string][]*job{}
	segment := 0
	nfiles := 0 // the run's files so far (checkFiles)
	for _, spec := range r.jf.Jobs {
		if r.jf.Jobs[0] != spec && spec.Stonewall {
			g := &gate{pending: len(segJobs)}
			if cur != nil {
				g.pending++
				cur.next = g
			}
			for _, d := range segJobs {
				d.after = g
			}
			cur, segJobs = g, nil
			segment++
		}
		if len(all)+max(spec.NumJobs, 1) > fio.MaxJobs {
			return nil, fmt.Errorf("%s:%d: job %q: maximum number of jobs reached: more than fio's limit of %d jobs (numjobs clones included)", r.jf.Path, spec.Line, spec.Name, fio.MaxJobs)
		}
		for c := range max(spec.NumJobs, 1) {
			j := &job{r: r, spec: spec, name: spec.Name, clone: c, pid: pid, index: len(all), segment: segment}
			pid++
			j.newSubmitter(&j.main, j.pid, j.name)
			r.joinFlow(j)
			j.sync = spec.IsSync()
			j.syncIO = j.sync || spec.IOEngine == "null" && spec.IODepth <= 1
			j.depth = max(spec.IODepth, 1)
			if j.sync || bufferedLibaio(spec) {
				j.depth = 1
			}
			j.low = j.depth
			if spec.IODepthLow > 0 {
				j.low = min(spec.IODepthLow, j.depth) // fio: 0, or more than iodepth, is iodepth
			}
			if err := checkBlockSizes(r.jf.Path, spec); err != nil {
				return nil, err
			}
			if err := r.checkFiles(spec, c, &nfiles); err != nil {
				return nil, err
			}
			names := r.fileNames(spec, c)
			if names == nil {
				return nil, ErrInterrupted // fileNames saw a stop
			}
			names = r.cloneFiles(spec, c, names)
			replay, err := r.planIologReplay(j)
			if err != nil {
				return nil, err
			}
			if replay != nil {
				names = replay.names // read_iolog: the iolog's files (iologreplay.go)
			}
			j.names = names
			var rs []region
			for k, n := range names {
				if k > 0 && k%setupCheckEvery == 0 && r.setupStopped() {
					return nil, ErrInterrupted
				}
				known := r.capSize(spec.FileSize[1])
				if replay != nil {
					known = max(known, replay.ends[n])
				}
				var host int64 // an existing file's size, without filesize= (filesetup.go)
				if known == 0 && replay == nil {
					host = r.capSize(r.existingSize(spec, n))
				}
				off, size := r.resolve(spec, c, len(names), max(known, host))
				if host > 0 && spec.Size > 0 {
					// An absolute size= may ask more than the file has:
					// fio extends the file.
					_, size = r.resolve(spec, c, len(names), 0)
				}
				if off > math.MaxInt64-max(size, r.capSize(spec.IOSize)) {
					return nil, fmt.Errorf("%s:%d: job %q: offset=%d plus the job's %d bytes ends past byte 2^63", r.jf.Path, spec.Line, spec.Name, off, max(size, r.capSize(spec.IOSize)))
				}
				rs = append(rs, region{n, known})
				switch {
				case lay.isDevice(n) && !(nullNoSize(spec) && size == 0):
					// A device is as large as its jobs reach; the
					// device size is at least the default. (fio's null
					// engine looks at no file, a device's neither: a
					// job on it needs a size, below.)
					lay.need(n, satmath.Add(off, max(size, r.capSize(spec.IOSize))))
				case known > 0:
					lay.need(n, known)
				case host > 0:
					lay.need(n, max(host, satmath.Add(off, size)))
				case size == 0 && spec.Files.FillDevice:
					if err := lay.needFill(n, off); err != nil {
						return nil, fmt.Errorf("%s:%d: job %q: %w", r.jf.Path, spec.Line, spec.Name, err)
					}
				case size == 0 && spec.Size > 0:
					return nil, fmt.Errorf("%s:%d: job %q: size=%d over %d files leaves less than a 512-byte sector per file", r.jf.Path, spec.Line, spec.Name, spec.Size, len(names))
				case size == 0:
					return nil, fmt.Errorf("%s:%d: job %q: file %q has no size: set size= or filesize=%s", r.jf.Path, spec.Line, spec.Name, n, r.noSizeHint(spec))
				default:
					lay.need(n, satmath.Add(off, size))
				}
			}
			regions = append(regions, rs)
			if cur != nil {
				cur.jobs = append(cur.jobs, j)
				j.deps++
			}
			segJobs = append(segJobs, j)
			if spec.WaitFor != "" {
				for _, d := range byName[spec.WaitFor] {
					d.waiters = append(d.waiters, j)
					j.deps++
				}
			}
			all = append(all, j)
		}
		byName[spec.Name] = append(byName[spec.Name], all[len(all)-max(spec.NumJobs, 1):]...)
	}
	r.jobs = all
	r.left = len(all)
	r.planSteadyState()
	need := lay.place()
	for _, j := range all {
		if nullNoSize(j.spec) {
			// Its last I/O may end past its file (nullNoSize): the
			// device holds it, after the last file too.
			need = satmath.Add(need, maxBlockSize(j.spec))
		}
	}
	capacity, err := r.capacity(need, lay)
	if err != nil {
		return nil, err
	}
	if err := lay.finish(capacity); err != nil {
		return nil, fmt.Errorf("%s: %w", r.jf.Path, err)
	}
	for i, j := range all {
		var files []*fileRegion
		for k, rg := range regions[i] {
			if k > 0 && k%setupCheckEvery == 0 && r.setupStopped() {
				return nil, ErrInterrupted
			}
			e := lay.byName[rg.name]
			off, size := r.resolve(j.spec, j.clone, len(regions[i]), e.size)
			if off >= e.size {
				return nil, fmt.Errorf("%s:%d: job %q: offset %d is beyond the end of %q (%d bytes)", r.jf.Path, j.spec.Line, j.name, off, rg.name, e.size)
			}
			if size < j.spec.BS[0].Min && size < j.spec.BS[1].Min {
				return nil, fmt.Errorf("%s:%d: job %q: its region of %q is %d bytes, smaller than a block (size over %d files, --size-cap)", r.jf.Path, j.spec.Line, j.name, rg.name, size, len(regions[i]))
			}
			if z := maxZonedAbs(j.spec.RandomDistribution.Zones); z > size {
				return nil, fmt.Errorf("%s:%d: job %q: random_distribution=zoned_abs spans %d bytes, more than its region of %q (%d bytes) (fio: zoned_abs sizes exceed file size)", r.jf.Path, j.spec.Line, j.name, z, rg.name, size)
			}
			end := e.size
			if nullNoSize(j.spec) {
				end = noEnd
			}
			files = append(files, &fileRegion{base: e.base + off, size: size, fileBase: e.base, fileSize: e.size, ext: e, end: end})
		}
		// Each job draws from a stream of its own, by its place in the
		// run: what one job draws does not move another's. randseed=
		// picks another stream for the job, still one per --seed.
		// randrepeat needs nothing more: fio's default (the same offsets
		// on every run) is what a seed gives, and randrepeat=0 (fio
		// seeds from the clock) stays repeatable per --seed, as every
		// blkq run is.
		stream := r.rng.Split(fmt.Sprintf("job %d", i))
		if j.spec.RandSeedSet {
			stream = stream.Split(fmt.Sprintf("randseed %d", j.spec.RandSeed))
		}
		j.gen = newGenerator(j.spec, stream.Rand(), files)
		j.src = &fioSource{j: j, gen: j.gen, rate: rateState{rng: stream.Split("rate").Rand()}}
		j.prio.rng = stream.Split("prio").Rand() // newPrioState's, once j has its stats
		j.setupAIO(j.spec)
		j.setupOverlap()
		j.setupLatency()
		j.reapFunc = j.reapLoop
		var total int64
		for _, f := range files {
			total += f.size
		}
		io := total
		switch {
		case j.spec.IOSizePercent > 0:
			io = pct(total, j.spec.IOSizePercent)
		case j.spec.IOSize > 0:
			io = r.capSize(j.spec.IOSize)
		}
		j.limit = satmath.Mul(io, int64(max(j.spec.Loops, 1)))
		if err := r.setupVerify(j); err != nil {
			return nil, err
		}
	}
	return lay, nil
}

func (r *runner) capSize(n int64) int64 {
	if c := r.opt.SizeCap; c > 0 && n > c {
		return c
	}
	return n
}

// fileNames returns the paths of a job clone's files, as fio names them;
// nil if Options.Stop closes while it names them.
func (r *runner) fileNames(spec *fio.Job, clone int) []string {
	var names []string
	if len(spec.Filenames) > 0 {
		names = append(names, spec.Filenames...)
	} else {
		for f := range max(spec.NrFiles, 1) {
			if f > 0 && f%setupCheckEvery == 0 && r.setupStopped() {
				return nil
			}
			names = append(names, fioFileName(spec.FilenameFormat, spec.Name, clone, f))
		}
	}
	if spec.Directory != "" {
		for i, n := range names {
			if !filepath.IsAbs(n) {
				names[i] = filepath.Join(spec.Directory, n)
			}
		}
	}
	return names
}

// gate is the start of a stonewall segment: its jobs start once every job
// before them has finished.
type gate struct {
	pending int    // jobs of the previous segment not finished, +1 while the previous gate is shut
	jobs    []*job // the segment's jobs
	next    *gate  // the next segment's gate, which counts this one's opening
}

// nullNoSize reports a job whose files have no end, as fio 3.33 sees
// them: on the null engine (a diskless engine: fio gives its files no
// size, filesetup.c) without size=, which would give them one. fio then
// ends a sequential pass only at the region's end (get_next_offset), so
// the last I/O of a region that is not a whole number of blocks runs
// past it.
func nullNoSize(spec *fio.Job) bool {
	return spec.IOEngine == "null" && spec.Size == 0 && spec.SizePercent == 0
}

// maxBlockSize is the largest block size of any direction of spec.
func maxBlockSize(spec *fio.Job) int64 {
	var m int64
	for d := range 3 {
		_, hi := bsBounds(spec, d)
		m = max(m, hi)
	}
	return m
}
