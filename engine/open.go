package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// DefaultSimCapacity is the simulated disk's size when the jobs need less:
// 500 GiB.
const DefaultSimCapacity = 500 << 30

// capacity returns the device size in bytes for a run whose files need
// need bytes; with fill, a file grows to the device's end (fill_device):
// on a file that is as far as its file system has room (fillCapacity).
func (r *runner) capacity(need int64, lay *layout) (int64, error) {
	fill := lay.fills()
	kind, path, _ := strings.Cut(r.opt.Device, ":")
	switch kind {
	case "sim", "null":
		if need > maxDevice {
			return 0, fmt.Errorf("the jobs need a device of %d bytes; a simulated device is at most 1 PiB", need)
		}
		return max(need, int64(DefaultSimCapacity)), nil
	case "file":
		if path == "" {
			return 0, fmt.Errorf("--device=file:PATH needs a path")
		}
		// The file is created or extended to what the jobs need, in
		// whole 4 KiB pages (the page cache's unit), as fio makes a
		// job's file its size.
		if need > maxDevice {
			return 0, fmt.Errorf("the jobs need %d bytes of %s; use --size-cap", need, path)
		}
		if fill {
			return fillCapacity(path, need)
		}
		c := max(need+4095, 4096) &^ 4095
		if lay.hasWhole() {
			// A job on the whole device (filename=/dev/..., or the
			// device's own file): the device is as large as it is.
			n, err := deviceBytes(path)
			if err != nil {
				return 0, err
			}
			if n == 0 && need == 0 {
				return 0, fmt.Errorf("a job works on the whole device, but %s is missing or empty: give the job a size= (the file is made that large)", path)
			}
			c = max(c, n&^(blkq.SectorSize-1))
		}
		return c, nil
	}
	return 0, fmt.Errorf("unknown device %q: want sim:hdd, sim:ssd, null or file:PATH", r.opt.Device)
}

// open makes the executor, the device and the queue, the page cache of
// buffered jobs, and the jobs' stats. A file is opened once, with the
// first job's direct=: its jobs are buffered through the cache only if
// that one is (the cache's pages are not aligned for O_DIRECT).
func (r *runner) open(lay *layout) error {
	direct := len(r.jf.Jobs) > 0 && r.jf.Jobs[0].Direct
	if err := r.openQueue(lay.capacity, direct, true); err != nil {
		return err
	}
	if err := r.openCPUs(); err != nil {
		r.dev.Close()
		return err
	}
	if file := strings.HasPrefix(r.opt.Device, "file:"); !file || !direct {
		if err := r.openCache(lay, file); err != nil {
			r.dev.Close()
			return err
		}
	}
	r.openStats()
	return nil
}

// openQueue makes the executor, a device of capacity bytes and the queue
// in front of it, with the run's tunables and tracers (OpenQueue). On a
// file, fioJobs has the data the jobs write checked (data.go); a replay's
// I/O goes to the queue.
func (r *runner) openQueue(capacity int64, direct, fioJobs bool) error {
	kind, arg, _ := strings.Cut(r.opt.Device, ":")
	setup := r.opt.queueSetup(capacity)
	var clk blkq.Clock // nil: a simulated device's own event loop
	if kind == "null" || kind == "file" {
		// The null device costs no device time, so its run is measured
		// on the wall clock: IOPS are the request layer's own speed, as
		// fio's null engine measures fio's.
		ex := newRealExec(blkq.NewRealClock())
		r.exec, clk = ex, ex
		r.nullDevice = kind == "null"
	}
	readOnly := false
	if kind == "file" {
		setup.Direct = direct
		// Jobs that only read open the file read-only, so that they run
		// on a read-only file system (and share the file's lock with
		// other readers).
		readOnly = r.readsOnly()
		setup.ReadOnly = readOnly && largeEnough(arg, capacity)
		// A lone psync job's I/O is served on the executor itself (a
		// pread and little else, as fio's psync does it: device/file.go).
		// With more jobs, or a replay's tasks, the executor is shared:
		// one job's device time there would hold the others' I/O and
		// timers back, so the device's workers serve everything.
		// Jobs that each have an executor (parallel.go) are each
		// served on theirs.
		r.parallel = fioJobs && r.parallelOK()
		if parallelChosen != nil {
			parallelChosen(r.parallel)
		}
		setup.NoInline = !fioJobs || len(r.jobs) > 1 && !r.parallel
		setup.InlineEach = r.parallel
	}
	r.disk = &blkq.DiskStats{}
	setup.Tracers = append(append(setup.Tracers, r.disk), r.opt.Tracers...)
	st, err := OpenQueue(setup, clk)
	if err != nil {
		if readOnly && !setup.ReadOnly && errors.Is(err, syscall.EROFS) {
			return fmt.Errorf("%s: the jobs only read, but the file is missing or smaller than the %d bytes they need, and cannot be created or extended: %w", arg, capacity, err)
		}
		return err
	}
	r.q, r.dev = st.Queue, st.Device
	if st.Loop != nil && r.exec == nil {
		r.exec = simExec{loop: st.Loop}
		r.simulated = true
	}
	r.giveExecutors()
	if kind == "file" && fioJobs {
		// A file run checks the data it wrote (data.go).
		r.data = newDataCheck(r.opt.Seed, r.dev.Capacity())
		r.q.AddTracer(r.data.refusals(r.exec))
		r.sizeBufPool()
		for _, j := range r.jobs {
			j.wdata = r.newWriteData(j)
		}
	}
	return nil
}

// sizeBufPool bounds the buffers a file run keeps for reuse by what can
// be outstanding (bufpool.go): every request of both directions at its
// largest (max_sectors_kb, or the largest block if bios are larger), and
// one parked bio per job. The buffer cache's goroutines get as many slots
// as there are requests.
func (r *runner) sizeBufPool() {
	v, _ := r.q.Attr("nr_requests")
	nr, _ := strconv.Atoi(v)
	largest := int64(0)
	for _, j := range r.jobs {
		for d := range 3 {
			largest = max(largest, int64(j.spec.BS[d].Max))
			for _, x := range j.spec.BSSplit[d] {
				largest = max(largest, int64(x.BS))
			}
		}
	}
	largest = int64(1) << bufClass(int(max(largest, 1)))
	rq := largest
	if kb, err := r.q.Attr("max_sectors_kb"); err == nil {
		if n, err := strconv.ParseInt(kb, 10, 64); err == nil {
			rq = max(rq, n<<10)
		}
	}
	r.data.bufs = newBufPool(int64(2*nr)*rq+int64(len(r.jobs))*largest, 2*nr)
}

// readsOnly reports whether every job of the run only reads (rw=read or
// randread): the file device can then be opened read-only.
func (r *runner) readsOnly() bool {
	if r.jf == nil || len(r.jf.Jobs) == 0 {
		return false
	}
	for _, j := range r.jf.Jobs {
		if j.RW != fio.RWRead && j.RW != fio.RWRandRead || j.Logs.ReadIolog != "" {
			return false // a replayed iolog may write
		}
	}
	return true
}

// largeEnough reports whether path is a regular file of at least size
// bytes or a block device (whose size OpenFile checks).
func largeEnough(path string, size int64) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m.IsRegular() && fi.Size() >= size || m&os.ModeDevice != 0 && m&os.ModeCharDevice == 0
}

// openStats gives every job its statistics and the per-pid tracer.
func (r *runner) openStats() {
	r.pids = &pidStats{}
	cpu := r.newCPUMeter() // nil on simulated devices
	for i, j := range r.jobs {
		js := &report.JobStats{}
		j.st = newJobStats(js)
		j.st.cpu = cpu
		if _, fioSrc := j.src.(*fioSource); fioSrc || j.vfy != nil {
			rw := j.spec.RW
			j.st.mode = [3]bool{rw.Reads(), rw.Writes(), rw.Trims()}
		}
		if j.spec != nil {
			st := j.spec.Stats
			j.st.off = statsOff{lat: st.DisableLat, clat: st.DisableClat, slat: st.DisableSlat, bw: st.DisableBW}
		}
		if j.gen != nil {
			j.prio = newPrioState(j, j.prio.rng)
		}
		if i == 0 {
			r.pids.base = j.pid
		}
		r.pids.byPID = append(r.pids.byPID, js.Blkq)
	}
	r.q.AddTracer(r.pids)
}

// deviceBytes is the size of the file or block device at path, 0 if it
// is missing.
func deviceBytes(path string) (int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// Seeking to the end gives a block device's size too (its Stat has 0).
	return f.Seek(0, io.SeekEnd)
}
