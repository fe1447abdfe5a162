package engine

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
)

// failWritesFrom fails, with errno, every write request that ends past
// byte from of the device: a disk that is full from there on. As a file
// device's pwritev does, a request that starts before from fails at from,
// the part before it written.
func failWritesFrom(from int64, errno unix.Errno) func(*blkq.Request) error {
	return func(rq *blkq.Request) error {
		start := int64(rq.Sector) << blkq.SectorShift
		end := start + int64(rq.Sectors)<<blkq.SectorShift
		if rq.Op == blkq.OpWrite && end > from {
			return &device.IOError{Path: "sim", Op: rq.Op, Offset: max(start, from), Err: errno}
		}
		return nil
	}
}

// TestWritebackErrorLeavesLostBytesUncounted: a buffered job writes 8
// MiB into the page cache on a disk whose writes fail past 2 MiB; its
// end_fsync writes everything back. The pages that failed (2 MiB to 8 MiB)
// are not in the job's figures (2 MiB written, not 8), its 128 writes are
// still counted as issued, and the job reports the disk's ENOSPC.
func TestWritebackErrorLeavesLostBytesUncounted(t *testing.T) {
	job := "[w]\nrw=write\nbs=64k\nsize=8m\ndirect=0\nend_fsync=1\n"
	res, err := Run(parse(t, job), Options{Device: "sim:hdd", FailRequest: failWritesFrom(2<<20, unix.ENOSPC)})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if js.Write.Bytes != 2<<20 || js.Write.IOs != 128 || js.Error != int(unix.ENOSPC) {
		t.Fatalf("%d bytes in %d writes, err=%d (%s): want 2 MiB written of 128 writes and err=28", js.Write.Bytes, js.Write.IOs, js.Error, js.ErrorText)
	}
}

// TestWritebackErrorReportedAtClose: with no fsync, the pages a job wrote
// that the flusher failed to write back are its error when it closes its
// files (err=28, func=buffered write-back), and are not in its figures.
// 24 MiB of writes into a 64 MiB cache pass the background threshold, so
// the flusher writes back during the run, onto a disk full past 4 MiB.
func TestWritebackErrorReportedAtClose(t *testing.T) {
	job := "[w]\nrw=write\nbs=64k\nsize=24m\ndirect=0\n"
	res, err := Run(parse(t, job), Options{Device: "sim:hdd", FailRequest: failWritesFrom(4<<20, unix.ENOSPC)})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if js.Error != int(unix.ENOSPC) || !strings.Contains(js.ErrorText, "func=buffered write-back") {
		t.Fatalf("err=%d (%s): want 28, func=buffered write-back", js.Error, js.ErrorText)
	}
	// What it counts: the 4 MiB on the disk, and the pages still dirty at
	// the end (a simulated run leaves them so, as fio leaves them); not
	// the pages whose write-back failed.
	dirty := uint64(res.PageCache.DirtyAtEnd) * 4096
	if res.PageCache.WriteErrors == 0 || js.Write.Bytes != 4<<20+dirty {
		t.Fatalf("%d bytes counted, %d still dirty, %d pages' write-back failed: want 4 MiB plus the dirty ones", js.Write.Bytes, dirty, res.PageCache.WriteErrors)
	}
	t.Logf("%d bytes counted (%d of them still dirty), %d pages lost at write-back", js.Write.Bytes, dirty, res.PageCache.WriteErrors)
}

// TestFillDeviceStopsAtWritebackENOSPC: a buffered fill_device job on a
// disk that is full past 4 MiB stops at the first ENOSPC of its
// write-back (without an error: a full device is its end), long before
// the 500 GiB device's end, and its figures, once end_fsync has written
// the rest back, count the 4 MiB that reached the disk.
func TestFillDeviceStopsAtWritebackENOSPC(t *testing.T) {
	job := "[f]\nrw=write\nbs=64k\nfill_device=1\ndirect=0\nend_fsync=1\n"
	res, err := Run(parse(t, job), Options{Device: "sim:hdd", FailRequest: failWritesFrom(4<<20, unix.ENOSPC)})
	if err != nil {
		t.Fatal(err)
	}
	js := res.Run.Jobs[0]
	if js.Error != 0 || js.Write.Bytes != 4<<20 || js.Write.IOs >= 1024 {
		t.Fatalf("err=%d (%s), %d bytes in %d writes: want no error, 4 MiB counted, and a stop within the first 64 MiB", js.Error, js.ErrorText, js.Write.Bytes, js.Write.IOs)
	}
	t.Logf("%d writes issued before the write-back's ENOSPC stopped it", js.Write.IOs)
}
