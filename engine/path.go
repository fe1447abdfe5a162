package engine

import "github.com/blkq-dev/blkq/workload/fio"

// A job's I/O path takes its I/Os from the job to the device, and is
// chosen once, when the job is made (pathFor): straight to the queue
// (direct I/O), or through the run's page cache, bcache's core, on every
// device (buffered I/O: cache.go). The job issues, counts and completes
// I/Os the same way on each.
type ioPath interface {
	// submit starts u. false: u's task sleeps for a request, and u is
	// parked on it until it wakes (job.enqueue).
	submit(u *ioUnit) bool
	// sync starts u, an fsync of the job's files. false as for submit.
	sync(u *ioUnit) bool
	// bioBuffers reports whether u's bio carries the data buffer on a
	// file run (false: the path takes a buffer of its own).
	bioBuffers() bool
}

// pathFor chooses j's path.
func (r *runner) pathFor(j *job) ioPath {
	if buffered(j.spec) && r.cache != nil {
		return r.newCachePath(j)
	}
	return directPath{j}
}

// setPath gives j its path (pathFor, or the one a replay takes). A bio's
// completion arrives on the executor when the run is simulated (the
// event loop is the executor) or when the device is the null device,
// whose completions are posted to the executor, and the job takes it
// straight to the queue; then endIO needs no second hop. Through the
// page cache a completion may come inside the cache's own call, which
// endIO's post keeps from re-entering the job (cachePath.ended).
func (j *job) setPath(p ioPath) {
	j.path = p
	_, direct := p.(directPath)
	j.endsOnExec = j.r.simulated || j.r.nullDevice && direct
	j.shareClock = j.endsOnExec && !j.r.simulated
}

// buffered reports whether a job's I/O goes through the page cache:
// direct=0, on any engine but fio's null engine, which moves no data and
// so has no page cache to go through (fio's null engine ignores direct=
// and never enters the kernel): its I/Os go straight to the queue.
func buffered(spec *fio.Job) bool {
	if spec.Direct {
		return false
	}
	kind, _ := fio.EngineKind(spec.IOEngine)
	return kind != "null"
}

// directPath submits to the queue.
type directPath struct{ j *job }

func (p directPath) submit(u *ioUnit) bool { return p.j.enqueue(u) }
func (p directPath) bioBuffers() bool      { return true }

// sync sends u's flush.
func (p directPath) sync(u *ioUnit) bool { return p.j.enqueue(u) }
