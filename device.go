package blkq

// A Device serves requests: a simulated disk, a null device or a real file.
// The queue issues at most Depth requests at a time and the device reports
// each completion exactly once through the function passed to Attach.
type Device interface {
	// Name is the device's name in reports ("sim:hdd", "null", a path).
	Name() string
	// Capacity is the device's size in 512-byte sectors.
	Capacity() uint64
	// Depth is the device's queue depth: requests it serves at once.
	Depth() int
	// Attach gives the device the function it calls when a request
	// completes. It is called once, before the first Issue.
	Attach(complete func(rq *Request, err error))
	// Issue starts a request. The device calls complete for it later,
	// never from inside Issue (which runs under the queue lock); a device
	// with a RunInline method may set it aside for RunInline instead
	// (inlineDevice).
	Issue(rq *Request)
	// Close releases the device; requests in flight complete first.
	Close() error
}

// inlineDevice is a Device that may serve a request on the goroutine that
// issued it, once that goroutine has let go of the queue lock: a
// synchronous submitter waits for its I/O anyway, so doing the I/O on its
// own goroutine saves the hand-off to a device goroutine and back (two
// wake-ups per I/O), as a psync job in fio does its pread itself. Its
// Issue sets such a request aside instead of starting it, and the queue
// calls RunInline at the end of every hold of its lock that may have
// issued (after the callbacks deferred under it), on the goroutine that
// held it. RunInline serves the request set aside, if any (whichever
// goroutine calls it first does), and calls complete for it before it
// returns; it is called with no queue lock held. An optional method,
// found by type assertion (package device's File has it, and its Null on
// a real clock, which completes every request this way).
type inlineDevice interface {
	RunInline()
}
