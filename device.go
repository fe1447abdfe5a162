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
	// never from inside Issue (which runs under the queue lock).
	Issue(rq *Request)
	// Close releases the device; requests in flight complete first.
	Close() error
}
