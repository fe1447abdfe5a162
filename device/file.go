package device

// Dispatch. A File serves requests on a fixed pool of Depth worker
// goroutines, started by OpenFile, never a goroutine per request: Issue
// hands the request to the pool through a channel of Depth slots (it
// never blocks, since the queue never has more than Depth in flight), and
// the worker that takes it does the system call and calls the
// completion function.
//
// One case skips the pool: a synchronous submitter alone on the device.
// A read or write with FlagSync (a psync job's; not a flush, nor a write
// with preflush or FUA, whose fdatasync may take milliseconds) whose task
// issued the request before it too, issued while nothing else is in
// flight, is served inline (unless FileOptions.NoInline): Issue sets it aside, and the goroutine that
// issued it serves it as soon as it has let go of the queue lock
// (RunInline, which the queue calls on a device that has that method),
// and completes it there. Such a submitter waits for its I/O anyway, so
// serving it on its own goroutine costs it nothing and saves two
// goroutine hand-offs per I/O (to a worker and back), which cost more CPU
// than a page-cache pread itself: the pread plus little, as fio's psync
// does it. With several submitters, or anything else in flight, the pool
// serves, so that no submitter's I/O waits behind another's on a
// goroutine that is not its own (submitters may share one goroutine: the
// engine's executor, when its jobs share one). The
// in-flight count drops before a worker's completion (so the submitter
// that it lets go finds the device idle) but only after an inline
// completion has returned, so a completion that dispatches the next
// request hands it to the pool rather than serving it nested inside the
// first. Nothing is set aside before the first
// call of RunInline, which tells the File that its queue calls it: a File
// behind a wrapper that does not pass the method on serves everything on
// the pool.
//
// FileOptions.InlineEach widens the case to several submitters at once,
// for callers whose synchronous submitters each run on a goroutine of
// their own (the engine's jobs when each has its executor: four psync
// jobs then do their preads in parallel, as fio's four processes do).
// Every such request is set aside, whatever else is in flight, in one of
// inlineSlots slots, each with its own scratch worker; with every slot
// taken, the pool serves. RunInline serves whichever set-aside request it
// finds first, which is nearly always the caller's own: Issue and the
// RunInline after it are one goroutine's lock hold and its end, and
// another goroutine can come between them only in the few instructions
// after the lock is let go. A request dispatched by a completion (one
// that waited in the scheduler) is set aside too and served by the
// goroutine that completed, nested inside that completion: no deeper
// than the slots, since a slot is taken until its serve has returned.

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/qlimits"
)

// FileOptions configure OpenFile.
type FileOptions struct {
	// Direct opens the file with O_DIRECT, bypassing the page cache.
	// Buffers not aligned to DirectAlign are copied through an aligned
	// one; use AlignedBuffer to avoid the copy.
	Direct bool
	// Depth is the number of requests served at once, by as many worker
	// goroutines (a synchronous submitter alone may be served on its own:
	// see the top of file.go). Default 32, the most commands SATA NCQ can
	// hold (blkq's choice).
	Depth int
	// Size, in bytes, creates the file if it does not exist and extends a
	// regular file that is smaller (sparsely, with ftruncate); a block
	// device smaller than Size is an error. 0 leaves the file as it is.
	Size int64
	// ReadOnly opens the file read-only; writes and discards then fail.
	ReadOnly bool
	// NoInline serves every request on the workers, never a lone
	// synchronous submitter's on its own goroutine (see the top of
	// file.go): for submitters that share one goroutine, where one's
	// device time would hold the others back (the engine's executor, when
	// a run has more than one job).
	NoInline bool
	// InlineEach serves every synchronous read or write inline, on the
	// goroutine that issued it, whatever else is in flight (up to
	// inlineSlots at once; see the top of file.go): for submitters that
	// each have a goroutine of their own and wait for their I/O. Ignored
	// with NoInline.
	InlineEach bool
}

// inlineSlots is how many requests may be set aside for RunInline at
// once (FileOptions.InlineEach): one per concurrent synchronous
// submitter; more submitters than that are served by the pool.
const inlineSlots = 8

// inlineSlot is a request set aside for RunInline and the scratch worker
// that serves it. busy is taken by Issue (under the queue lock) and let
// go once the serve has returned, so a slot's worker serves one request
// at a time.
type inlineSlot struct {
	rq   atomic.Pointer[blkq.Request]
	busy atomic.Bool
	w    *worker
}

// defaultFileDepth is FileOptions.Depth's default.
const defaultFileDepth = 32

// File is a blkq.Device (with RunInline) backed by a regular file or a
// block device. Each request is served by one of Depth worker goroutines,
// or inline by the goroutine that issued it (see the top of the file):
// reads and writes with preadv/pwritev of the request's bios at Sector ×
// 512 (one system call for a merged request's contiguous bios), flushes
// with fdatasync, discards by punching a hole in a regular file or with
// BLKDISCARD on a block device. Whoever serves it calls the completion
// function.
type File struct {
	path       string
	f          *os.File
	fd         int
	direct     bool
	readOnly   bool
	noInline   bool // FileOptions.NoInline
	inlineEach bool // FileOptions.InlineEach
	blockDev   bool
	capacity   uint64 // sectors
	depth      int
	complete   func(*blkq.Request, error)

	ch       chan *blkq.Request
	wg       sync.WaitGroup // the workers, and the requests set aside for RunInline
	inflight atomic.Int32   // requests issued whose completion has not returned
	lastTask *blkq.Task     // the task of the request issued last; guarded by the queue lock
	aside    atomic.Int32   // requests set aside and not yet taken by RunInline
	slots    []inlineSlot   // the requests set aside for RunInline (one slot without InlineEach)
	// runsInline: RunInline has been called, so the queue calls it after
	// its holds and a request set aside is served. Until then (a File
	// behind a wrapper that hides the method, a caller of Issue without a
	// queue) nothing is set aside.
	runsInline atomic.Bool
	mu         sync.RWMutex // Close against Issue
	closed     bool
	closeOnce  sync.Once
	closeErr   error
}

// OpenFile opens path as a device. Its capacity is the file's size (or the
// block device's, from BLKGETSIZE64) in whole 512-byte sectors.
//
// The file is locked with flock until Close: exclusively, or shared when
// ReadOnly. A file another process (or another File) holds a conflicting
// lock on is refused at once with an error wrapping ErrInUse and naming
// the path. If OpenFile created the file and then fails (the extension to
// Size is refused, say), it removes the file. A file that refuses O_DIRECT
// (a character device, some file systems) gets an error saying so.
func OpenFile(path string, o FileOptions) (*File, error) {
	if o.Depth <= 0 {
		o.Depth = defaultFileDepth
	}
	if o.Size < 0 {
		return nil, fmt.Errorf("%s: negative size %d", path, o.Size)
	}
	if o.ReadOnly && o.Size > 0 {
		return nil, fmt.Errorf("%s: cannot create or extend a file opened read-only", path)
	}
	flag := os.O_RDWR
	if o.ReadOnly {
		flag = os.O_RDONLY
	}
	if o.Direct {
		flag |= unix.O_DIRECT
	}
	f, created, err := openOrCreate(path, flag, o.Size > 0)
	if err != nil {
		if o.Direct && errors.Is(err, unix.EINVAL) {
			return nil, fmt.Errorf("%s: O_DIRECT (direct=1) refused: the file or its file system does not support direct I/O: %w", path, err)
		}
		return nil, err
	}
	d := &File{path: path, f: f, direct: o.Direct, readOnly: o.ReadOnly, depth: o.Depth, noInline: o.NoInline, inlineEach: o.InlineEach}
	if err := d.lock(); err != nil {
		f.Close() // a file we just created is someone else's now: leave it
		return nil, err
	}
	if err := d.init(o.Size); err != nil {
		f.Close()
		if created {
			// Leave nothing behind: an empty file would pass for a
			// device on the next run.
			os.Remove(path)
		}
		return nil, err
	}
	d.ch = make(chan *blkq.Request, d.depth)
	d.slots = make([]inlineSlot, 1)
	if d.inlineEach {
		d.slots = make([]inlineSlot, inlineSlots)
	}
	for i := range d.slots {
		d.slots[i].w = newWorker(d)
	}
	d.wg.Add(d.depth)
	for range d.depth {
		w := newWorker(d)
		go w.run()
	}
	return d, nil
}

// openOrCreate opens path with flag; with create, it creates the file if
// it does not exist and reports whether it did (O_EXCL first, so that a
// file someone else created is never taken for ours).
func openOrCreate(path string, flag int, create bool) (f *os.File, created bool, err error) {
	if !create {
		f, err = os.OpenFile(path, flag, 0)
		return f, false, err
	}
	for {
		f, err = os.OpenFile(path, flag|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, false, err
		}
		f, err = os.OpenFile(path, flag, 0)
		if !errors.Is(err, os.ErrNotExist) {
			return f, false, err
		}
		// Removed between the two opens: try again.
	}
}

// lock takes an advisory lock on the file (flock, released when the file
// is closed): exclusive for a device opened for writing, shared for a
// read-only one, so that two runs never write one file at once while
// any number may read it. On a file system that has no locks the file is
// used without one.
func (d *File) lock() error {
	how := unix.LOCK_EX
	if d.readOnly {
		how = unix.LOCK_SH
	}
	rc, err := d.f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if lerr = unix.Flock(int(fd), how|unix.LOCK_NB); lerr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	switch {
	case lerr == unix.EWOULDBLOCK:
		return fmt.Errorf("%s: %w: another process holds a lock on it (flock; another blkq run?)", d.path, ErrInUse)
	case lerr == unix.EOPNOTSUPP || lerr == unix.ENOLCK:
		// A file system without locks (some FUSE ones): run unguarded
		// rather than not at all.
		return nil
	case lerr != nil:
		return &os.PathError{Op: "flock", Path: d.path, Err: lerr}
	}
	return nil
}

// init finds the descriptor and the size, extending a regular file to size.
func (d *File) init(size int64) error {
	rc, err := d.f.SyscallConn()
	if err != nil {
		return err
	}
	if err := rc.Control(func(fd uintptr) { d.fd = int(fd) }); err != nil {
		return err
	}
	fi, err := d.f.Stat()
	if err != nil {
		return err
	}
	var bytes int64
	switch m := fi.Mode(); {
	case m.IsRegular():
		bytes = fi.Size()
		if size > bytes {
			if err := d.f.Truncate(size); err != nil {
				return err
			}
			bytes = size
		}
	case m&os.ModeDevice != 0 && m&os.ModeCharDevice == 0:
		d.blockDev = true
		n, err := unix.IoctlGetUint64(d.fd, unix.BLKGETSIZE64)
		if err != nil {
			return &os.PathError{Op: "ioctl BLKGETSIZE64", Path: d.path, Err: err}
		}
		bytes = int64(n)
		if size > bytes {
			return fmt.Errorf("%s: block device has %d bytes, fewer than the %d requested", d.path, bytes, size)
		}
	default:
		return fmt.Errorf("%s: not a regular file or block device (%v)", d.path, m.Type())
	}
	d.capacity = uint64(bytes) / blkq.SectorSize
	return nil
}

// Name returns the path the file was opened with.
func (d *File) Name() string { return d.path }

// Capacity returns the file's size in whole 512-byte sectors.
func (d *File) Capacity() uint64 { return d.capacity }

// Depth returns the number of requests served at once.
func (d *File) Depth() int { return d.depth }

// Attach sets the function the workers call for each completed request.
func (d *File) Attach(complete func(rq *blkq.Request, err error)) { d.complete = complete }

// Issue hands rq to a worker, or sets it aside for RunInline when it is
// a synchronous submitter's alone on the device (see the top of the
// file). It never blocks as long as no more than Depth requests are in
// flight, which the queue guarantees. A request issued after Close
// completes with ErrClosed. Called under the queue lock.
func (d *File) Issue(rq *blkq.Request) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		go d.complete(rq, &IOError{Path: d.path, Op: rq.Op, Offset: int64(rq.Sector) * blkq.SectorSize, Err: ErrClosed})
		return
	}
	sync := rq.Flags&blkq.FlagSync != 0 && (rq.Op == blkq.OpRead || rq.Op == blkq.OpWrite) &&
		rq.Flags&(blkq.FlagPreflush|blkq.FlagFUA) == 0 && rq.Task != nil && !d.noInline && d.runsInline.Load()
	alone := sync && (d.inlineEach || rq.Task == d.lastTask && d.inflight.Load() == 0)
	d.lastTask = rq.Task
	d.inflight.Add(1)
	if alone {
		for i := range d.slots {
			s := &d.slots[i]
			if s.busy.Load() || !s.busy.CompareAndSwap(false, true) {
				continue
			}
			d.wg.Add(1) // Close waits for it as for the workers
			s.rq.Store(rq)
			d.aside.Add(1)
			return
		}
	}
	d.ch <- rq
}

// RunInline serves a request Issue set aside, if any, on the calling
// goroutine, and completes it: the optional device method the queue calls
// after each hold of its lock, with no lock held (blkq's device.go).
func (d *File) RunInline() {
	if d.aside.Load() == 0 {
		if !d.runsInline.Load() {
			d.runsInline.Store(true)
		}
		return
	}
	for i := range d.slots {
		s := &d.slots[i]
		if s.rq.Load() == nil {
			continue
		}
		rq := s.rq.Swap(nil)
		if rq == nil {
			continue // another goroutine took it
		}
		d.aside.Add(-1)
		d.complete(rq, s.w.serve(rq))
		s.busy.Store(false) // (before the count: a lone submitter's next request finds the slot free)
		d.inflight.Add(-1)
		d.wg.Done()
		return
	}
}

// Close waits for the requests in flight to complete, stops the workers
// and closes the file. Later calls wait for the first and return its
// result.
func (d *File) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		close(d.ch)
		d.mu.Unlock()
		d.wg.Wait()
		d.closeErr = d.f.Close()
	})
	return d.closeErr
}

// fileLimits are a file device's limits as /sys/block/<dev>/queue/ shows
// them, after a loop device on Linux 6.18 (checked on this project's
// machine): not rotational, 512-byte blocks, 128 segments of 64 KiB, one
// discard range of up to 4294966784 bytes, and a volatile write cache
// (write_cache "write back": the host's page cache and disk), so flushes
// reach the file as fdatasync. Where it differs from loop: fua is 1, as
// the file device writes a FUA write with RWF_DSYNC itself (loop shows 0
// and gets a flush after it), and max_hw_sectors_kb is 32767 (loop's is
// 1280), as a file takes any transfer.
var fileLimits = qlimits.Limits{Rotational: false, LogicalBlockSize: 512, PhysicalBlockSize: 512, MaxHWSectorsKB: 32767,
	MaxSegments: qlimits.DefaultMaxSegments, MaxSegmentSize: qlimits.DefaultMaxSegmentSize,
	MaxDiscardSegments: 1, DiscardMaxBytes: qlimits.MaxDiscardBytes, WriteCache: true, FUA: true}

// QueueLimit returns the file device's limit name as
// /sys/block/<dev>/queue/name shows it (see fileLimits), for the request
// queue.
func (d *File) QueueLimit(name string) (string, bool) { return fileLimits.Value(name) }
