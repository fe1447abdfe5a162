package iobench

import (
	"fmt"
	"strings"
	"time"
)

// A Case is one workload, run by every contender.
type Case struct {
	// Name identifies the case ("randread-4k-1job-buffered").
	Name string
	// RW is fio's rw: "randread" or "read".
	RW string
	// Jobs is fio's numjobs: processes (fio) or jobs (blkq) reading at once.
	Jobs int
	// Direct reads with O_DIRECT; false reads through the page cache
	// (the kernel's for fio and the raw loop, blkq's own for blkq).
	Direct bool
	// Engine is fio's ioengine: "psync", "libaio" or "null" (no data
	// moved: fio's null engine, against blkq run on its null device).
	Engine string
	// IODepth and Batch are libaio's iodepth and iodepth_batch_submit
	// (and iodepth_batch_complete_min): a batch of I/Os per io_submit.
	IODepth, Batch int
}

// Cases are the cases blkq bench runs by default (issue 13's list).
var Cases = []Case{
	{Name: "randread-4k-1job-buffered", RW: "randread", Jobs: 1, Engine: "psync"},
	{Name: "randread-4k-4jobs-buffered", RW: "randread", Jobs: 4, Engine: "psync"},
	{Name: "randread-4k-1job-direct", RW: "randread", Jobs: 1, Direct: true, Engine: "psync"},
	{Name: "randread-4k-4jobs-direct", RW: "randread", Jobs: 4, Direct: true, Engine: "psync"},
	{Name: "read-4k-1job-buffered", RW: "read", Jobs: 1, Engine: "psync"},
	{Name: "randread-4k-qd32-batch32-direct", RW: "randread", Jobs: 1, Direct: true, Engine: "libaio", IODepth: 32, Batch: 32},
	{Name: "randread-4k-null", RW: "randread", Jobs: 1, Engine: "null"},
}

// null reports whether c runs fio's null engine: blkq runs it on its null
// device, and there is no raw loop to compare with (nothing is read).
func (c Case) null() bool { return c.Engine == "null" }

// contenders returns who runs c, in the order they run within a round.
func (c Case) contenders() []string {
	if c.null() {
		return []string{Fio, BlkqNone, BlkqMQDeadline}
	}
	return contenders
}

// Lookup returns the cases named in a comma list ("" or "all": every one).
func Lookup(names string) ([]Case, error) {
	if names == "" || names == "all" {
		return Cases, nil
	}
	var out []Case
	for _, n := range strings.Split(names, ",") {
		found := false
		for _, c := range Cases {
			if c.Name == n {
				out, found = append(out, c), true
			}
		}
		if !found {
			var known []string
			for _, c := range Cases {
				known = append(known, c.Name)
			}
			return nil, fmt.Errorf("no case %q (cases: %s)", n, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// jobFile is c as the fio job file fio and blkq both run on path (size
// bytes), ramping for ramp and measuring for runtime.
func (c Case) jobFile(path string, size int64, ramp, runtime time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\nfilename=%s\nsize=%d\nbs=4k\nrw=%s\nioengine=%s\nnumjobs=%d\n",
		c.Name, path, size, c.RW, c.Engine, c.Jobs)
	fmt.Fprintf(&b, "direct=%d\ninvalidate=0\ntime_based=1\nramp_time=%dms\nruntime=%dms\n",
		boolInt(c.Direct), ramp.Milliseconds(), runtime.Milliseconds())
	if c.IODepth > 0 {
		fmt.Fprintf(&b, "iodepth=%d\n", c.IODepth)
	}
	if c.Batch > 0 {
		fmt.Fprintf(&b, "iodepth_batch_submit=%d\niodepth_batch_complete_min=%d\n", c.Batch, c.Batch)
	}
	return b.String()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
