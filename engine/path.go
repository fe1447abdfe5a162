package engine

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
	if !j.spec.Direct && r.cache != nil {
		return r.newCachePath(j)
	}
	return directPath{j}
}

// directPath submits to the queue.
type directPath struct{ j *job }

func (p directPath) submit(u *ioUnit) bool { return p.j.enqueue(u) }
func (p directPath) bioBuffers() bool      { return true }

// sync sends u's flush.
func (p directPath) sync(u *ioUnit) bool { return p.j.enqueue(u) }
