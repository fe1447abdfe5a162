package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/blkq-dev/blkq"
)

// TestFillDeviceSimWritesToTheEnd: on a simulated disk a fill_device job
// without a size writes from its file's start to the device's end (a
// /dev/ name: the whole device; a file: after the other jobs' files) and
// ends without an error; two growing files are an error naming both.
func TestFillDeviceSimWritesToTheEnd(t *testing.T) {
	res := run(t, "[a]\nrw=write\nbs=1m\nsize=1g\ndirect=1\n[f]\nrw=write\nbs=16m\nfill_device=1\ndirect=1\n", Options{})
	if got, want := res.Run.Jobs[1].Write.Bytes, uint64(DefaultSimCapacity-1<<30); got != want {
		t.Errorf("fill job after a 1 GiB file wrote %d bytes; want the %d to the device's end", got, want)
	}
	res = run(t, "[f]\nfilename=/dev/sdb\nrw=write\nbs=16m\nfill_fs=1\ndirect=1\n", Options{})
	if got := res.Run.Jobs[0].Write.Bytes; got != DefaultSimCapacity {
		t.Errorf("fill job on a whole device wrote %d bytes; want the device's %d", got, uint64(DefaultSimCapacity))
	}
	_, err := Run(parse(t, "[f]\nrw=write\nfill_device=1\n[g]\nrw=write\nfill_device=1\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), `"f.0.0"`) || !strings.Contains(err.Error(), `"g.0.0"`) {
		t.Errorf("two growing files: %v; want an error naming both", err)
	}
}

// TestFillDeviceFileEndsAtENOSPC: on a file in a 1 MiB tmpfs, a
// fill_device job writes until the file system is full and ends without
// an error (err=0), direct or buffered, with a size beyond the room or
// none. With a size its io_u error line is still printed, as fio's is;
// without, the file is as large as the room and its end comes first. A
// buffered job learns of ENOSPC from the write-back (here end_fsync):
// fio 3.33's from write(2) itself, so it may write less;
// direct, fio writes the same megabyte, also with err=0.
func TestFillDeviceFileEndsAtENOSPC(t *testing.T) {
	for _, c := range []struct{ name, job string }{
		{"direct-size", "rw=write\nbs=64k\nsize=4m\ndirect=1\nioengine=libaio\niodepth=4\n"},
		{"direct-no-size", "rw=write\nbs=64k\ndirect=1\n"},
		{"buffered-size", "rw=write\nbs=64k\nsize=4m\nend_fsync=1\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := mountTmpfs(t, "1m")
			res, err := Run(parse(t, "[f]\nfill_device=1\n"+c.job), Options{Device: "file:" + filepath.Join(dir, "dev")})
			if err != nil {
				t.Fatal(err)
			}
			js := res.Run.Jobs[0]
			t.Logf("blkq: wrote %d bytes, err=%d, %q", js.Write.Bytes, js.Error, res.IOErrors)
			if js.Error != 0 {
				t.Errorf("fill job: err=%d (%s); want 0", js.Error, js.ErrorText)
			}
			if js.Write.Bytes < 512<<10 || js.Write.Bytes > 4<<20 {
				t.Errorf("fill job wrote %d bytes; want about the tmpfs's megabyte", js.Write.Bytes)
			}
			if c.name != "direct-no-size" && (len(res.IOErrors) == 0 || !strings.Contains(res.IOErrors[0], "No space left on device")) {
				t.Errorf("io_u error lines %q; want fio's ENOSPC line", res.IOErrors)
			}
			for _, w := range res.Warnings {
				if strings.Contains(w, "No space") {
					t.Errorf("warning %q: a full device is the fill job's end", w)
				}
			}
			// fio 3.33, on a tmpfs of its own.
			bin := needFio(t)
			fdir := mountTmpfs(t, "1m")
			cmd := exec.Command(bin, "--output-format=terse", "--name=f", "--filename="+filepath.Join(fdir, "f"), "--fill_device=1")
			for _, l := range strings.Split(strings.TrimSpace(c.job), "\n") {
				cmd.Args = append(cmd.Args, "--"+l)
			}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("fio: %v\n%s", err, out)
			}
			f := strings.Split(string(out), ";")
			t.Logf("fio 3.33: wrote %s KiB, err=%s", f[46], f[4])
			if f[4] != "0" {
				t.Errorf("fio 3.33 reports err=%s", f[4])
			}
		})
	}
}

// readsFromDisk is the bytes the device read in a run.
func readsFromDisk(res *Result) uint64 { return res.Disk.Sectors[blkq.OpRead] << blkq.SectorShift }

// TestInvalidateDropsTheJobsPages: a buffered read job run twice over one
// file reads it from the disk both times with invalidate=1 (fio's
// default: the second drops what the first left in blkq's page cache), and
// the second time from the cache with invalidate=0: on a simulated disk
// and on a file.
func TestInvalidateDropsTheJobsPages(t *testing.T) {
	const reader = "[r%d]\nfilename=f\nrw=read\nbs=64k\nsize=1m\nstonewall\ninvalidate=%d\n"
	for _, dev := range []string{"sim:hdd", "file"} {
		t.Run(dev, func(t *testing.T) {
			opt := Options{Device: dev, CachePages: 4096}
			if dev == "file" {
				path := filepath.Join(t.TempDir(), "dev")
				if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
					t.Fatal(err)
				}
				opt.Device = "file:" + path
			}
			once := readsFromDisk(run(t, fmt.Sprintf(reader, 1, 1), opt))
			if once < 1<<20 {
				t.Fatalf("one reader read %d bytes from the disk; want at least the 1 MiB file", once)
			}
			for _, c := range []struct {
				invalidate int
				want       uint64
			}{{1, 2 * once}, {0, once}} {
				res := run(t, fmt.Sprintf(reader, 1, 1)+fmt.Sprintf(reader, 2, c.invalidate), opt)
				if got := readsFromDisk(res); got != c.want {
					t.Errorf("second reader with invalidate=%d: the disk read %d bytes in all; want %d (one reader: %d)", c.invalidate, got, c.want, once)
				}
			}
		})
	}
}

// resident is how many pages of path are in the kernel's page cache.
func resident(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatal(e)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestInvalidateDropsTheKernelsPages: on a file device, a job with
// invalidate=1 drops its region of the file from the kernel's page cache
// as it starts (POSIX_FADV_DONTNEED), even one that reads with O_DIRECT;
// with invalidate=0 the pages stay.
func TestInvalidateDropsTheKernelsPages(t *testing.T) {
	for _, c := range []struct {
		invalidate int
		cached     bool
	}{{1, false}, {0, true}} {
		path := filepath.Join(t.TempDir(), "dev")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(make([]byte, 1<<20))
		f.Sync()
		f.Close()
		before := resident(t, path)
		run(t, fmt.Sprintf("[r]\nrw=read\nbs=64k\nsize=1m\ndirect=1\ninvalidate=%d\n", c.invalidate), Options{Device: "file:" + path})
		after := resident(t, path)
		t.Logf("invalidate=%d: %d pages cached before the run, %d after", c.invalidate, before, after)
		if before < 200 {
			t.Skipf("only %d of the file's 256 pages were cached after writing it", before)
		}
		if c.cached && after < before || !c.cached && after != 0 {
			t.Errorf("invalidate=%d: %d of the file's pages cached after the run (%d before)", c.invalidate, after, before)
		}
	}
}

// allocated is the bytes of path's blocks.
func allocated(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Blocks * 512
}

// TestFallocateAllocatesTheFile: a job that writes 4 KiB of its 1 MiB
// file leaves the file allocated with fallocate's default (native) and
// with posix and keep, sparse with none and truncate, and with
// create_on_open (its file is not laid out); fio 3.33's file for the same
// job has the same allocation.
func TestFallocateAllocatesTheFile(t *testing.T) {
	for _, c := range []struct {
		opts string
		full bool
	}{{"", true}, {"fallocate=posix", true}, {"fallocate=keep", true}, {"fallocate=1", true},
		{"fallocate=none", false}, {"fallocate=0", false}, {"fallocate=truncate", false}, {"create_on_open=1", false}} {
		t.Run(c.opts, func(t *testing.T) {
			job := fmt.Sprintf("[w]\nfilename=f\nrw=write\nbs=4k\nsize=1m\nnumber_ios=1\ndirect=1\n%s\n", c.opts)
			path := filepath.Join(t.TempDir(), "dev")
			run(t, job, Options{Device: "file:" + path})
			got := allocated(t, path)
			if full := got >= 1<<20; full != c.full {
				t.Errorf("blkq: %d bytes allocated of the 1 MiB file; want all: %v", got, c.full)
			}
			bin := needFio(t)
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "j.fio"), []byte(job), 0o644)
			cmd := exec.Command(bin, "--output-format=terse", "j.fio")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("fio: %v\n%s", err, out)
			}
			fioGot := allocated(t, filepath.Join(dir, "f"))
			t.Logf("allocated: blkq %d bytes, fio 3.33 %d", got, fioGot)
			if full := fioGot >= 1<<20; full != c.full {
				t.Errorf("fio 3.33: %d bytes allocated; want all: %v", fioGot, c.full)
			}
		})
	}
	// A file the run does not lay out (it is large enough) is left as it is.
	path := filepath.Join(t.TempDir(), "dev")
	os.WriteFile(path, nil, 0o644)
	os.Truncate(path, 1<<20)
	run(t, "[w]\nrw=write\nbs=4k\nsize=1m\nnumber_ios=1\ndirect=1\n", Options{Device: "file:" + path})
	if got := allocated(t, path); got >= 1<<20 {
		t.Errorf("an existing 1 MiB sparse file: %d bytes allocated after the run; want it left sparse", got)
	}
}
