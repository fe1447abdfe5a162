package bcache

import "github.com/blkq-dev/blkq"

// The blocking API, for real goroutines: each call runs the core's
// operation as a client of its own and waits on a channel for its
// continuation, as package blkq's api.go wraps the queue.

// goClient returns a client for one blocking call; the calls share the
// cache's read-ahead streams.
func (c *Cache) goClient() *Client { return c.newClient(blkq.NewGoroutineTask("bcache")) }

type rwResult struct {
	n   int
	err error
}

// ReadAt reads len(p) bytes at byte offset off through the cache
// (io.ReaderAt). Pages not cached are read from the device, one 8-sector
// bio each, merged under a plug. Reading past the cache's end (the device's
// last whole page) returns the bytes before it and io.EOF.
func (c *Cache) ReadAt(p []byte, off int64) (int, error) {
	if off >= 0 && c.readHit(nil, p, int64(len(p)), off) {
		return len(p), nil // a hit: no client, no channel (rw.go)
	}
	ch := make(chan rwResult, 1)
	c.StartRead(c.goClient(), p, off, func(n int, err error) { ch <- rwResult{n, err} })
	r := <-ch
	return r.n, r.err
}

// WriteAt copies len(p) bytes into the cache at byte offset off and marks
// the pages dirty (io.WriterAt); write-back happens later (background
// flusher, throttling, Sync). A partial page not cached is read first. A
// writer that finds the cache above its dirty ratio does write-back itself
// before returning. Writing past the cache's end writes the bytes before
// it and returns an error wrapping blkq.ErrBeyondEnd.
func (c *Cache) WriteAt(p []byte, off int64) (int, error) {
	ch := make(chan rwResult, 1)
	c.StartWrite(c.goClient(), p, off, func(n int, err error) { ch <- rwResult{n, err} })
	r := <-ch
	return r.n, r.err
}

// Sync writes back every buffer that was dirty when it was called, waits
// for those writes and for any write-back already in flight, flushes the
// device and returns the first write-back error no Sync has returned yet,
// as StartSync does for the whole cache.
func (c *Cache) Sync() error {
	_, err := c.sync()
	return err
}

// SyncFile is Sync limited to f's pages, as fsync is to one file.
func (c *Cache) SyncFile(f *File) error {
	_, err := c.syncFile(f)
	return err
}

func (c *Cache) sync() (SyncResult, error) { return c.syncFile(nil) }

func (c *Cache) syncFile(f *File) (SyncResult, error) {
	type out struct {
		r   SyncResult
		err error
	}
	ch := make(chan out, 1)
	c.StartSync(c.goClient(), f, func(r SyncResult, err error) { ch <- out{r, err} })
	o := <-ch
	return o.r, o.err
}

// Invalidate drops the clean buffers, as StartInvalidate does, and returns
// once it has.
func (c *Cache) Invalidate() {
	c.invalidate()
}

func (c *Cache) invalidate() InvalidateResult {
	ch := make(chan InvalidateResult, 1)
	c.StartInvalidate(func(r InvalidateResult) { ch <- r })
	return <-ch
}

// Discard discards the bytes [off, off+n) of the device through the cache
// and returns once the device has done it, as StartDiscard does.
func (c *Cache) Discard(off, n int64) error {
	ch := make(chan error, 1)
	c.StartDiscard(c.goClient(), off, n, func(err error) { ch <- err })
	return <-ch
}

// Close stops the background flusher, writes back every dirty buffer and
// waits for read-ahead and discards in progress, returning Sync's error,
// as StartClose does.
func (c *Cache) Close() error {
	ch := make(chan error, 1)
	c.StartClose(c.goClient(), func(err error) { ch <- err })
	return <-ch
}
