package device

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
)

// open opens a fresh file of size bytes in a temporary directory.
func open(t *testing.T, size int64, o FileOptions) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dev")
	o.Size = size
	d, err := OpenFile(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

// result is one completion, received from the workers.
type result struct {
	rq  *blkq.Request
	err error
}

func attachChan(d *File) chan result {
	c := make(chan result, 64)
	d.Attach(func(rq *blkq.Request, err error) { c <- result{rq, err} })
	return c
}

// do issues rq and waits for its completion.
func do(t *testing.T, d *File, c chan result, rq *blkq.Request) error {
	t.Helper()
	d.Issue(rq)
	select {
	case r := <-c:
		if r.rq != rq {
			t.Fatal("completed another request")
		}
		return r.err
	case <-time.After(10 * time.Second):
		t.Fatal("no completion")
	}
	return nil
}

// bios yields the given bios, as Request.Bios does.
func bios(bs ...*blkq.Bio) func(func(*blkq.Bio)) {
	return func(f func(*blkq.Bio)) {
		for _, b := range bs {
			f(b)
		}
	}
}

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7) + byte(i>>9)
	}
	return b
}

func TestOpenFile(t *testing.T) {
	d, path := open(t, 1<<20+100, FileOptions{})
	if d.Name() != path || d.Capacity() != 2048 || d.Depth() != 32 {
		t.Fatalf("name %q capacity %d depth %d", d.Name(), d.Capacity(), d.Depth())
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 1<<20+100 {
		t.Fatalf("file size %v %v", fi, err)
	}
	// Reopening with a smaller Size leaves the file; a larger one extends.
	d.Close()
	d2, err := OpenFile(path, FileOptions{Size: 4096, Depth: 2})
	if err != nil || d2.Capacity() != 2048 || d2.Depth() != 2 {
		t.Fatalf("reopen: %v, capacity %d", err, d2.Capacity())
	}
	d2.Close()
	d3, err := OpenFile(path, FileOptions{Size: 4 << 20, ReadOnly: true})
	if err == nil {
		d3.Close()
		t.Fatal("read-only open extended the file")
	}
	d3, err = OpenFile(path, FileOptions{Size: 4 << 20})
	if err != nil || d3.Capacity() != 8192 {
		t.Fatalf("extend: %v", err)
	}
	d3.Close()
	if _, err := OpenFile(filepath.Join(t.TempDir(), "missing"), FileOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file without Size: %v", err)
	}
	if _, err := OpenFile("/dev/null", FileOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file or block device") {
		t.Fatalf("/dev/null: %v", err)
	}
	if _, err := OpenFile(path, FileOptions{Size: -1}); err == nil {
		t.Fatal("negative size accepted")
	}
}

// TestFileReadWriteCore writes and reads back through the worker's I/O
// core, with single buffers and with runs of bios, contiguous or not.
func TestFileReadWriteCore(t *testing.T) {
	d, path := open(t, 1<<20, FileOptions{Depth: 1})
	w := newWorker(d)

	data := pattern(8192, 1)
	if err := w.rw(blkq.OpWrite, 0, 4096, [][]byte{data}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 8192)
	if err := w.rw(blkq.OpRead, 0, 4096, [][]byte{got}); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back: %v, equal %v", err, bytes.Equal(got, data))
	}

	// Three bios: two contiguous (one pwritev) and one elsewhere.
	a := &blkq.Bio{Op: blkq.OpWrite, Sector: 100, Sectors: 2, Buf: pattern(1024, 2)}
	b := &blkq.Bio{Op: blkq.OpWrite, Sector: 102, Sectors: 1, Buf: pattern(512, 3)}
	c := &blkq.Bio{Op: blkq.OpWrite, Sector: 500, Sectors: 1, Buf: pattern(512, 4)}
	if err := w.serveData(blkq.OpWrite, blkq.FlagFUA, 100, 4, bios(a, b, c)); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*blkq.Bio{a, b, c} {
		if off := x.Sector * 512; !bytes.Equal(file[off:off+uint64(len(x.Buf))], x.Buf) {
			t.Fatalf("bio at sector %d not in the file", x.Sector)
		}
	}
	// Read them back into fresh bios, with a preflush flag (ignored for
	// reads) and a buffer longer than the bio (only its first bytes used).
	ra := &blkq.Bio{Op: blkq.OpRead, Sector: 100, Sectors: 2, Buf: make([]byte, 1024)}
	rb := &blkq.Bio{Op: blkq.OpRead, Sector: 102, Sectors: 1, Buf: make([]byte, 600)}
	if err := w.serveData(blkq.OpRead, blkq.FlagPreflush, 100, 3, bios(ra, rb)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ra.Buf, a.Buf) || !bytes.Equal(rb.Buf[:512], b.Buf) {
		t.Fatal("multi-bio read differs")
	}
	if len(w.iov) != 0 || w.iov[:1][0] != nil {
		t.Fatal("worker keeps references to the request's buffers")
	}

	// A preflushed write goes through fdatasync first.
	if err := w.serveData(blkq.OpWrite, blkq.FlagPreflush, 100, 2, bios(a)); err != nil {
		t.Fatal(err)
	}

	// Bios that do not cover the request, or a short buffer, fail.
	if err := w.serveData(blkq.OpRead, 0, 100, 4, bios(ra)); err == nil || !strings.Contains(err.Error(), "carry 1024 bytes of its 2048") {
		t.Fatalf("bios short of the request: %v", err)
	}
	short := &blkq.Bio{Sector: 0, Sectors: 2, Buf: make([]byte, 512)}
	if err := w.serveData(blkq.OpRead, 0, 0, 2, bios(short)); err == nil || !strings.Contains(err.Error(), "2 sectors has a 512-byte buffer") {
		t.Fatalf("short buffer: %v", err)
	}
}

// TestFileIovMax writes a request of more bios than one pwritev takes.
func TestFileIovMax(t *testing.T) {
	d, path := open(t, 2<<20, FileOptions{Depth: 1})
	w := newWorker(d)
	var bs []*blkq.Bio
	want := pattern(3000*512, 5)
	for i := range 3000 {
		bs = append(bs, &blkq.Bio{Sector: uint64(i), Sectors: 1, Buf: want[i*512 : (i+1)*512]})
	}
	if err := w.serveData(blkq.OpWrite, 0, 0, 3000, bios(bs...)); err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(path)
	if !bytes.Equal(file[:len(want)], want) {
		t.Fatal("file differs")
	}
}

func TestFileIssue(t *testing.T) {
	d, path := open(t, 1<<20, FileOptions{Depth: 4})
	c := attachChan(d)
	w := newWorker(d)
	data := pattern(1<<20, 9)
	if err := w.rw(blkq.OpWrite, 0, 0, [][]byte{data}); err != nil {
		t.Fatal(err)
	}

	if err := do(t, d, c, &blkq.Request{Op: blkq.OpFlush}); err != nil {
		t.Fatalf("flush: %v", err)
	}
	// Discard punches a hole that reads back as zeros (where the file
	// system can punch holes; elsewhere the data stays).
	if err := do(t, d, c, &blkq.Request{Op: blkq.OpDiscard, Sector: 8, Sectors: 16}); err != nil {
		t.Fatalf("discard: %v", err)
	}
	got := make([]byte, 16*512)
	if err := w.rw(blkq.OpRead, 0, 8*512, [][]byte{got}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, make([]byte, len(got))) && !bytes.Equal(got, data[8*512:24*512]) {
		t.Fatal("discarded range is neither zeros nor the old data")
	}

	// Out of range: an error naming path, op and byte offset.
	for _, rq := range []*blkq.Request{
		{Op: blkq.OpRead, Sector: 2048, Sectors: 1},
		{Op: blkq.OpWrite, Sector: 2040, Sectors: 9},
		{Op: blkq.OpDiscard, Sector: 1 << 62, Sectors: 8},
	} {
		err := do(t, d, c, rq)
		var ioe *IOError
		if !errors.Is(err, ErrOutOfRange) || !errors.As(err, &ioe) || ioe.Path != path || ioe.Op != rq.Op {
			t.Fatalf("%s at %d: %v", rq.Op, rq.Sector, err)
		}
		if want := fmt.Sprintf("%s: %s at byte offset %d: ", path, rq.Op, rq.Sector*512); rq.Sector < 1<<40 && !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("message %q, want prefix %q", err, want)
		}
	}
	// A read request without bios has nowhere to put the data.
	if err := do(t, d, c, &blkq.Request{Op: blkq.OpRead, Sector: 0, Sectors: 8}); err == nil {
		t.Fatal("read without buffers succeeded")
	}
	if err := do(t, d, c, &blkq.Request{Op: blkq.Op(9)}); err == nil {
		t.Fatal("unknown op succeeded")
	}

	// Close waits for work in flight; a request issued after Close fails.
	for range 4 {
		d.Issue(&blkq.Request{Op: blkq.OpFlush})
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(c) != 4 {
		t.Fatalf("Close returned with %d of 4 completions delivered", len(c))
	}
	for range 4 {
		if r := <-c; r.err != nil {
			t.Fatal(r.err)
		}
	}
	if err := do(t, d, c, &blkq.Request{Op: blkq.OpFlush}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestFileReadOnly(t *testing.T) {
	rw, path := open(t, 64<<10, FileOptions{})
	rw.Close()
	d, err := OpenFile(path, FileOptions{ReadOnly: true, Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c := attachChan(d)
	w := newWorker(d)
	if err := w.rw(blkq.OpRead, 0, 0, [][]byte{make([]byte, 512)}); err != nil {
		t.Fatal(err)
	}
	if err := w.serveData(blkq.OpWrite, 0, 0, 1, bios(&blkq.Bio{Sectors: 1, Buf: make([]byte, 512)})); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write: %v", err)
	}
	if err := do(t, d, c, &blkq.Request{Op: blkq.OpDiscard, Sector: 0, Sectors: 1}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("discard: %v", err)
	}
	if err := do(t, d, c, &blkq.Request{Op: blkq.OpFlush}); err != nil {
		t.Fatalf("flush: %v", err)
	}
}

// TestFileShortRead reads past the end of a file that shrank after it was
// opened: the error says how far it got.
func TestFileShortRead(t *testing.T) {
	d, path := open(t, 64<<10, FileOptions{Depth: 1})
	if err := os.Truncate(path, 32<<10+100); err != nil {
		t.Fatal(err)
	}
	w := newWorker(d)
	err := w.rw(blkq.OpRead, 0, 32<<10, [][]byte{make([]byte, 4096)})
	var ioe *IOError
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &ioe) || ioe.Offset != 32<<10+100 {
		t.Fatalf("short read: %v", err)
	}
	if !strings.Contains(err.Error(), "short read: 100 of 4096 bytes") {
		t.Fatalf("message: %v", err)
	}
}

// TestFileDirect writes and reads with O_DIRECT, from aligned buffers and
// from unaligned ones (which go through a bounce buffer).
func TestFileDirect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "direct")
	d, err := OpenFile(path, FileOptions{Direct: true, Size: 1 << 20, Depth: 1})
	if errors.Is(err, unix.EINVAL) {
		t.Skipf("the file system of %s refuses O_DIRECT: %v", os.TempDir(), err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := newWorker(d)

	buf := AlignedBuffer(8192)
	copy(buf, pattern(8192, 11))
	if err := w.rw(blkq.OpWrite, 0, 4096, [][]byte{buf}); errors.Is(err, unix.EINVAL) {
		t.Skipf("the file system of %s refuses O_DIRECT I/O: %v", os.TempDir(), err)
	} else if err != nil {
		t.Fatal(err)
	}
	got := AlignedBuffer(8192)
	if err := w.rw(blkq.OpRead, 0, 4096, [][]byte{got}); err != nil || !bytes.Equal(got, buf) {
		t.Fatalf("aligned read back: %v", err)
	}
	if w.bounce != nil {
		t.Fatal("aligned buffers were bounced")
	}

	// Unaligned: a buffer starting 1 byte past an aligned one, split over
	// two bios.
	raw := AlignedBuffer(8192 + 1)[1:]
	copy(raw, pattern(8192, 12))
	a := &blkq.Bio{Sector: 16, Sectors: 8, Buf: raw[:4096]}
	b := &blkq.Bio{Sector: 24, Sectors: 8, Buf: raw[4096:]}
	if err := w.serveData(blkq.OpWrite, 0, 16, 16, bios(a, b)); err != nil {
		t.Fatal(err)
	}
	back := AlignedBuffer(8192 + 512)[512:]
	ra := &blkq.Bio{Sector: 16, Sectors: 8, Buf: back[:4096]}
	rb := &blkq.Bio{Sector: 24, Sectors: 8, Buf: back[4096:]}
	if err := w.serveData(blkq.OpRead, 0, 16, 16, bios(ra, rb)); err != nil || !bytes.Equal(back, raw) {
		t.Fatalf("unaligned read back: %v", err)
	}
	if w.bounce == nil {
		t.Fatal("unaligned buffers were not bounced")
	}
	// The data is in the file, as a buffered reader sees it.
	file, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(file[4096:8192], buf[:4096]) || !bytes.Equal(file[8192:16384], raw) {
		t.Fatalf("file contents: %v", err)
	}
}

func TestAlignedBuffer(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 4096, 4097, 1 << 20} {
		b := AlignedBuffer(n)
		if len(b) != n || cap(b) != n || !aligned(b) || b == nil {
			t.Fatalf("AlignedBuffer(%d): len %d cap %d aligned %v", n, len(b), cap(b), aligned(b))
		}
	}
}

// TestFileConcurrent runs the workers, the I/O core on several goroutines
// and Close together, for the race detector.
func TestFileConcurrent(t *testing.T) {
	const g, per = 8, 64
	const half = g * per * 4096 // written by the goroutines; then discarded
	d, path := open(t, 2*half, FileOptions{Depth: 8})
	var mu sync.Mutex
	completions := 0
	d.Attach(func(rq *blkq.Request, err error) {
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		completions++
		mu.Unlock()
	})
	var wg sync.WaitGroup
	slots := make(chan struct{}, d.Depth())
	var issueMu sync.Mutex
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(d)
			for j := range per {
				off := int64(i*per+j) * 4096
				data := pattern(4096, byte(i*per+j))
				b := &blkq.Bio{Sector: uint64(off / 512), Sectors: 8, Buf: data}
				if err := w.serveData(blkq.OpWrite, 0, b.Sector, 8, bios(b)); err != nil {
					t.Error(err)
					return
				}
				// Meanwhile, flushes and discards of the other half go
				// through the device's own workers.
				slots <- struct{}{}
				issueMu.Lock()
				op := blkq.OpFlush
				if j%2 == 1 {
					op = blkq.OpDiscard
				}
				d.Issue(&blkq.Request{Op: op, Sector: uint64((half + off) / 512), Sectors: 8})
				issueMu.Unlock()
				<-slots
			}
		}()
	}
	wg.Wait()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if completions != g*per {
		t.Fatalf("%d completions, want %d", completions, g*per)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for k := range g * per {
		if !bytes.Equal(file[k*4096:(k+1)*4096], pattern(4096, byte(k))) {
			t.Fatalf("block %d differs", k)
		}
	}
}

func BenchmarkFileWrite4K(b *testing.B) {
	d, err := OpenFile(filepath.Join(b.TempDir(), "bench"), FileOptions{Size: 64 << 20, Depth: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	w := newWorker(d)
	buf := AlignedBuffer(4096)
	bio := &blkq.Bio{Sectors: 8, Buf: buf}
	each := bios(bio)
	b.ReportAllocs()
	b.SetBytes(4096)
	for i := range b.N {
		bio.Sector = uint64(i%16384) * 8
		if err := w.serveData(blkq.OpWrite, 0, bio.Sector, 8, each); err != nil {
			b.Fatal(err)
		}
	}
}

// goid returns the calling goroutine's id, from its stack's header line
// ("goroutine 7 [running]:"): the inline tests tell the submitter's
// goroutine from a worker's with it.
func goid() string {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	return s[:strings.IndexByte(s, ' ')]
}

// inlineQueue returns a queue (scheduler none) on a fresh file of size
// bytes holding pattern(size, 1).
func inlineQueue(t *testing.T, size int64, o FileOptions) (*blkq.Queue, *File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dev")
	if err := os.WriteFile(path, pattern(int(size), 1), 0o666); err != nil {
		t.Fatal(err)
	}
	d, err := OpenFile(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	q, err := blkq.New(d, blkq.NewRealClock(), blkq.Config{Scheduler: "none"})
	if err != nil {
		t.Fatal(err)
	}
	return q, d
}

// syncIO submits one bio as task and waits for it; inline reports whether
// its completion ran on the calling goroutine.
func syncIO(t *testing.T, q *blkq.Queue, task *blkq.Task, op blkq.Op, flags blkq.Flags, sector uint64, buf []byte) (inline bool) {
	t.Helper()
	me := goid()
	done := make(chan bool, 1)
	b := &blkq.Bio{Op: op, Flags: flags, Sector: sector, Sectors: uint32(len(buf) / 512), Buf: buf,
		EndIO: func(_ *blkq.Bio, err error) {
			if err != nil {
				t.Error(err)
			}
			done <- goid() == me
		}}
	if !q.Enqueue(task, b) {
		t.Fatal("the submitter sleeps for a request")
	}
	select {
	case inline = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no completion")
	}
	return inline
}

// TestFileServesALoneSyncSubmitterInline: a synchronous submitter alone
// on the device (FlagSync, the same task, nothing else in flight) is
// served on its own goroutine, from its second request on, and reads the
// right data.
func TestFileServesALoneSyncSubmitterInline(t *testing.T) {
	const size = 1 << 20
	q, _ := inlineQueue(t, size, FileOptions{})
	want := pattern(size, 1)
	task := blkq.NewTask(100, "psync")
	buf := AlignedBuffer(4096)
	for i := range 64 {
		off := int64(i*37%256) * 4096
		inline := syncIO(t, q, task, blkq.OpRead, blkq.FlagSync, uint64(off/512), buf)
		if i > 0 && !inline {
			t.Errorf("read %d: served by a worker; want inline", i)
		}
		if !bytes.Equal(buf, want[off:off+4096]) {
			t.Fatalf("read %d at %d: wrong data", i, off)
		}
	}
	data := pattern(4096, 9)
	if !syncIO(t, q, task, blkq.OpWrite, blkq.FlagSync, 8, data) {
		t.Error("a synchronous write of the same task: served by a worker; want inline")
	}
	syncIO(t, q, task, blkq.OpRead, blkq.FlagSync, 8, buf)
	if !bytes.Equal(buf, data) {
		t.Error("the inline write did not reach the file")
	}
}

// TestFileServesOthersOnTheWorkers: requests of alternating tasks, or
// without FlagSync, go to the workers, even one at a time.
func TestFileServesOthersOnTheWorkers(t *testing.T) {
	q, _ := inlineQueue(t, 1<<20, FileOptions{})
	a, b := blkq.NewTask(100, "a"), blkq.NewTask(101, "b")
	buf := AlignedBuffer(4096)
	for i := range 32 {
		task := a
		if i%2 == 1 {
			task = b
		}
		if syncIO(t, q, task, blkq.OpRead, blkq.FlagSync, uint64(i)*8, buf) {
			t.Errorf("read %d, alternating tasks: served inline; want a worker", i)
		}
	}
	for i := range 8 {
		if syncIO(t, q, a, blkq.OpRead, 0, uint64(i)*8, buf) {
			t.Errorf("read %d without FlagSync: served inline; want a worker", i)
		}
	}
	// Flushes and writes that sync, which may take milliseconds.
	for i := range 4 {
		syncIO(t, q, a, blkq.OpRead, blkq.FlagSync, 0, buf) // a's, inline from the second on
		if syncIO(t, q, a, blkq.OpFlush, blkq.FlagSync, 0, nil) {
			t.Errorf("flush %d: served inline; want a worker", i)
		}
		for _, f := range []blkq.Flags{blkq.FlagFUA, blkq.FlagPreflush} {
			syncIO(t, q, a, blkq.OpRead, blkq.FlagSync, 0, buf)
			if syncIO(t, q, a, blkq.OpWrite, blkq.FlagSync|f, 8, buf) {
				t.Errorf("write %d with %v: served inline; want a worker", i, f)
			}
		}
	}
}

// TestFileNoInlineServesOnTheWorkers: with FileOptions.NoInline a lone
// synchronous submitter is served by the workers too.
func TestFileNoInlineServesOnTheWorkers(t *testing.T) {
	q, _ := inlineQueue(t, 1<<20, FileOptions{NoInline: true})
	task := blkq.NewTask(100, "psync")
	buf := AlignedBuffer(4096)
	for i := range 16 {
		if syncIO(t, q, task, blkq.OpRead, blkq.FlagSync, uint64(i)*8, buf) {
			t.Errorf("read %d: served inline with NoInline", i)
		}
	}
}

// TestFileInlineConcurrent: submitters that share the device, some alone
// with one task each (served inline when nothing else is in flight), the
// others with a task per I/O (the workers), read and write their own
// blocks, and every block holds what was last written to it; then Close
// returns with nothing in flight. Run with -race.
func TestFileInlineConcurrent(t *testing.T) {
	const g, per = 4, 200
	q, d := inlineQueue(t, g*16*4096, FileOptions{Depth: 4})
	var wg sync.WaitGroup
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := blkq.NewTask(200+i, "own")
			buf, got := AlignedBuffer(4096), AlignedBuffer(4096)
			for j := range per {
				task := own
				if i%2 == 1 {
					task = blkq.NewTask(300+i*per+j, "each")
				}
				block := int64(i*16 + j%16)
				copy(buf, pattern(4096, byte(i+j)))
				syncIO(t, q, task, blkq.OpWrite, blkq.FlagSync, uint64(block*8), buf)
				syncIO(t, q, task, blkq.OpRead, blkq.FlagSync, uint64(block*8), got)
				if !bytes.Equal(got, buf) {
					t.Errorf("goroutine %d, I/O %d: block %d reads back wrong", i, j, block)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if n := d.inflight.Load(); n != 0 {
		t.Fatalf("%d requests in flight after Close", n)
	}
}

// TestFileBehindAWrapperServesOnTheWorkers: a File behind a wrapper that
// does not pass RunInline on (the queue never calls it) sets nothing
// aside: a lone synchronous submitter's requests all complete, on the
// workers.
func TestFileBehindAWrapperServesOnTheWorkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev")
	d, err := OpenFile(path, FileOptions{Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	wrapped := struct{ blkq.Device }{d}
	q, err := blkq.New(wrapped, blkq.NewRealClock(), blkq.Config{Scheduler: "none"})
	if err != nil {
		t.Fatal(err)
	}
	task := blkq.NewTask(100, "psync")
	buf := AlignedBuffer(4096)
	for i := range 16 {
		if syncIO(t, q, task, blkq.OpRead, blkq.FlagSync, uint64(i)*8, buf) {
			t.Errorf("read %d: served inline behind a wrapper", i)
		}
	}
}

// TestFileInlineEachServesConcurrentSubmitters: with
// FileOptions.InlineEach, synchronous submitters on goroutines of their
// own are served inline although the others' I/O is in flight (without
// it such reads all go to the workers), and read the right data. Run
// with -race.
func TestFileInlineEachServesConcurrentSubmitters(t *testing.T) {
	const size, g, per = 1 << 20, 4, 300
	want := pattern(size, 1)
	for _, each := range []bool{false, true} {
		q, _ := inlineQueue(t, size, FileOptions{InlineEach: each})
		var inline, total atomic.Int64
		var wg sync.WaitGroup
		for i := range g {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, b := blkq.NewTask(100+2*i, "a"), blkq.NewTask(101+2*i, "b")
				buf := AlignedBuffer(4096)
				for j := range per {
					task := a // alternating tasks: never alone, so inline only with InlineEach
					if j%2 == 1 {
						task = b
					}
					off := int64((i*per+j)*37%256) * 4096
					if syncIO(t, q, task, blkq.OpRead, blkq.FlagSync, uint64(off/512), buf) {
						inline.Add(1)
					}
					total.Add(1)
					if !bytes.Equal(buf, want[off:off+4096]) {
						t.Errorf("InlineEach %v: goroutine %d, read %d at %d: wrong data", each, i, j, off)
						return
					}
				}
			}()
		}
		wg.Wait()
		switch n, all := inline.Load(), total.Load(); {
		case !each && n != 0:
			t.Errorf("without InlineEach: %d of %d reads of alternating tasks served inline; want none", n, all)
		case each && n*2 < all:
			// A read is another goroutine's only if that one takes it in
			// the instructions between the lock's release and RunInline.
			t.Errorf("InlineEach: %d of %d reads served inline; want nearly all", n, all)
		}
	}
}
