package device

import (
	"fmt"
	"io"
	"math"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
)

// iovMax is the most buffers one preadv/pwritev takes (IOV_MAX on Linux).
const iovMax = 1024

// A worker serves one request at a time for a File. Its scratch state (the
// run of contiguous buffers being gathered, the O_DIRECT bounce buffer) is
// reused from request to request.
type worker struct {
	d   *File
	add func(*blkq.Bio) // w.addBio, bound once

	// The request being served.
	op    blkq.Op
	flags blkq.Flags
	off   int64    // byte offset of the run in iov
	n     int      // bytes in iov
	iov   [][]byte // contiguous buffers not yet transferred
	total int64    // bytes gathered from the request's bios
	err   error

	bounce []byte    // aligned copy buffer for unaligned O_DIRECT I/O
	one    [1][]byte // backing for a one-buffer iovec
}

func newWorker(d *File) *worker {
	w := &worker{d: d}
	w.add = w.addBio
	return w
}

func (w *worker) run() {
	defer w.d.wg.Done()
	for rq := range w.d.ch {
		err := w.serve(rq)
		w.d.inflight.Add(-1) // before the completion: see the top of file.go
		w.d.complete(rq, err)
	}
}

// serve carries out rq and returns its outcome.
func (w *worker) serve(rq *blkq.Request) error {
	d := w.d
	switch rq.Op {
	case blkq.OpFlush:
		return d.flush()
	case blkq.OpDiscard:
		return d.discard(rq.Sector, rq.Sectors)
	case blkq.OpRead, blkq.OpWrite:
	default:
		return d.errorf(rq.Op, rq.Sector, "unsupported operation")
	}
	return w.serveData(rq.Op, rq.Flags, rq.Sector, rq.Sectors, rq.Bios)
}

// serveData reads or writes sectors at sector through the buffers of the
// bios that bios enumerates (a Request's Bios method), transferring each
// run of contiguous bios with one system call.
func (w *worker) serveData(op blkq.Op, flags blkq.Flags, sector uint64, sectors uint32, bios func(func(*blkq.Bio))) error {
	d := w.d
	if err := d.check(op, sector, sectors); err != nil {
		return err
	}
	if op == blkq.OpWrite && d.readOnly {
		return &IOError{Path: d.path, Op: op, Offset: byteOffset(sector), Err: ErrReadOnly}
	}
	if op == blkq.OpWrite && flags&blkq.FlagPreflush != 0 {
		if err := d.flush(); err != nil {
			return err
		}
	}
	w.op, w.flags, w.n, w.total, w.err = op, flags, 0, 0, nil
	w.iov = w.iov[:0]
	bios(w.add)
	if w.err == nil {
		w.err = w.flushRun()
	}
	clear(w.iov)
	w.iov = w.iov[:0]
	if want := int64(sectors) << blkq.SectorShift; w.err == nil && w.total != want {
		w.err = d.errorf(op, sector, "the request's bios carry %d bytes of its %d", w.total, want)
	}
	return w.err
}

// addBio adds b's buffer to the run being gathered, transferring the run
// first if b does not continue it.
func (w *worker) addBio(b *blkq.Bio) {
	if w.err != nil {
		return
	}
	n := int(b.Sectors) << blkq.SectorShift
	if len(b.Buf) < n {
		w.err = w.d.errorf(w.op, b.Sector, "bio of %d sectors has a %d-byte buffer", b.Sectors, len(b.Buf))
		return
	}
	if w.err = w.d.check(w.op, b.Sector, b.Sectors); w.err != nil || n == 0 {
		return
	}
	off := int64(b.Sector) << blkq.SectorShift
	if len(w.iov) > 0 && (off != w.off+int64(w.n) || len(w.iov) == iovMax) {
		if w.err = w.flushRun(); w.err != nil {
			return
		}
	}
	if len(w.iov) == 0 {
		w.off, w.n = off, 0
	}
	w.iov = append(w.iov, b.Buf[:n])
	w.n += n
	w.total += int64(n)
}

// flushRun transfers the gathered run, if any, and empties it.
func (w *worker) flushRun() error {
	if len(w.iov) == 0 {
		return nil
	}
	err := w.rw(w.op, w.flags, w.off, w.iov)
	clear(w.iov)
	w.iov = w.iov[:0]
	return err
}

// rw reads or writes the buffers iov, in order, at byte offset off: the
// file I/O at the core of File. It retries partial transfers and fails on
// end of file. On an O_DIRECT file, buffers not aligned to DirectAlign go
// through the worker's aligned bounce buffer. A write with FlagFUA is
// written with RWF_DSYNC (or followed by fdatasync where the kernel lacks
// it). rw may change the buffer slices in iov.
func (w *worker) rw(op blkq.Op, flags blkq.Flags, off int64, iov [][]byte) error {
	d := w.d
	total := 0
	direct := true
	for _, b := range iov {
		total += len(b)
		direct = direct && aligned(b)
	}
	if d.direct && !direct {
		if cap(w.bounce) < total {
			w.bounce = AlignedBuffer(total)
		}
		buf := w.bounce[:total]
		if op == blkq.OpWrite {
			copyIn(buf, iov)
		}
		w.one[0] = buf
		err := w.rw(op, flags, off, w.one[:])
		w.one[0] = nil
		if op == blkq.OpRead && err == nil {
			copyOut(iov, buf)
		}
		return err
	}
	if op == blkq.OpWrite && d.readOnly {
		return &IOError{Path: d.path, Op: op, Offset: off, Err: ErrReadOnly}
	}
	sync := op == blkq.OpWrite && flags&blkq.FlagFUA != 0
	done := 0
	for done < total {
		var n int
		var err error
		pos := off + int64(done)
		switch {
		case op == blkq.OpRead:
			n, err = unix.Preadv(d.fd, iov, pos)
		case sync:
			n, err = unix.Pwritev2(d.fd, iov, pos, unix.RWF_DSYNC)
			if err == unix.ENOSYS || err == unix.EOPNOTSUPP {
				// No per-write sync: write, then sync the file.
				if n, err = unix.Pwritev(d.fd, iov, pos); err == nil {
					err = fdatasync(d.fd)
				}
			}
		default:
			n, err = unix.Pwritev(d.fd, iov, pos)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &IOError{Path: d.path, Op: op, Offset: pos, Err: err}
		}
		if n <= 0 {
			cause := io.ErrUnexpectedEOF
			if op == blkq.OpWrite {
				cause = io.ErrShortWrite
			}
			return &IOError{Path: d.path, Op: op, Offset: pos,
				Err: fmt.Errorf("short %s: %d of %d bytes: %w", op, done, total, cause)}
		}
		done += n
		iov = advance(iov, n)
	}
	return nil
}

// advance drops the first n bytes from iov.
func advance(iov [][]byte, n int) [][]byte {
	for n > 0 && len(iov) > 0 {
		if n < len(iov[0]) {
			iov[0] = iov[0][n:]
			return iov
		}
		n -= len(iov[0])
		iov = iov[1:]
	}
	for len(iov) > 0 && len(iov[0]) == 0 {
		iov = iov[1:]
	}
	return iov
}

func copyIn(dst []byte, iov [][]byte) {
	for _, b := range iov {
		dst = dst[copy(dst, b):]
	}
}

func copyOut(iov [][]byte, src []byte) {
	for _, b := range iov {
		src = src[copy(b, src):]
	}
}

// flush makes the file's written data durable (fdatasync).
func (d *File) flush() error {
	if err := fdatasync(d.fd); err != nil {
		return &IOError{Path: d.path, Op: blkq.OpFlush, Offset: 0, Err: err}
	}
	return nil
}

func fdatasync(fd int) error {
	for {
		if err := unix.Fdatasync(fd); err != unix.EINTR {
			return err
		}
	}
}

// discard deallocates sectors at sector: a hole punched in a regular file
// (a file system that cannot punch holes ignores it), BLKDISCARD on a block
// device (whose errors other than a bad range are ignored: a discard is
// advice).
func (d *File) discard(sector uint64, sectors uint32) error {
	if err := d.check(blkq.OpDiscard, sector, sectors); err != nil {
		return err
	}
	off := int64(sector) << blkq.SectorShift
	if d.readOnly {
		return &IOError{Path: d.path, Op: blkq.OpDiscard, Offset: off, Err: ErrReadOnly}
	}
	if sectors == 0 {
		return nil
	}
	n := int64(sectors) << blkq.SectorShift
	var err error
	if d.blockDev {
		r := [2]uint64{uint64(off), uint64(n)}
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(d.fd), unix.BLKDISCARD, uintptr(unsafe.Pointer(&r)))
		if e == unix.EINVAL {
			err = e
		}
	} else {
		for {
			err = unix.Fallocate(d.fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, n)
			if err != unix.EINTR {
				break
			}
		}
		if err == unix.EOPNOTSUPP {
			err = nil
		}
	}
	if err != nil {
		return &IOError{Path: d.path, Op: blkq.OpDiscard, Offset: off, Err: err}
	}
	return nil
}

// check returns an error if sectors at sector reach beyond the file.
func (d *File) check(op blkq.Op, sector uint64, sectors uint32) error {
	c := d.capacity
	if sector <= c && uint64(sectors) <= c-sector {
		return nil
	}
	return &IOError{Path: d.path, Op: op, Offset: byteOffset(sector),
		Err: fmt.Errorf("%w: %d sectors at sector %d, capacity %d sectors", ErrOutOfRange, sectors, sector, c)}
}

// errorf returns an IOError at sector's byte offset with a formatted cause.
func (d *File) errorf(op blkq.Op, sector uint64, format string, args ...any) error {
	return &IOError{Path: d.path, Op: op, Offset: byteOffset(sector), Err: fmt.Errorf(format, args...)}
}

// byteOffset is sector × 512, saturating at the largest int64.
func byteOffset(sector uint64) int64 {
	if sector > math.MaxInt64>>blkq.SectorShift {
		return math.MaxInt64
	}
	return int64(sector) << blkq.SectorShift
}
