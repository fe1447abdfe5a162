package fio

// Options that cannot mean anything on blkq's devices: fio's CPU and NUMA
// placement, its memory and process settings, its clock source, who checks
// the I/O (verify_async), and the polling knobs of io_uring. They tune fio
// the program, not the I/O it issues, and blkq issues the same I/O with or
// without them; so, unlike the other options blkq does not model (which
// change what fio would issue or report), they are ignored without a word
// unless the user asks (blkq run --warnings). So is flow_watermark, which
// fio 3.33 itself accepts and ignores. README "Options blkq ignores" lists
// them. (io_submit_mode, which is as inert, is parsed, so that a bad value
// is an error as in fio: queueopts.go.)
var inertOptions = map[string]bool{
	// CPU and NUMA placement.
	"cpus_allowed": true, "cpumask": true, "cpus_allowed_policy": true,
	"numa_cpu_nodes": true, "numa_mem_policy": true, "gtod_cpu": true,
	"verify_async_cpus": true, "log_compression_cpus": true, "sqthread_poll_cpu": true,
	// The process: priority, identity, control group, memory.
	"uid": true, "gid": true, "cgroup": true, "cgroup_weight": true,
	"cgroup_nodelete": true, "lockmem": true, "hugepage-size": true,
	"iomem": true, "mem": true, "iomem_align": true, "mem_align": true,
	// fio's own clock: how it reads the time. (gtod_reduce, which turns
	// fio's latencies off, is modelled: statopts.go.)
	"clocksource": true,
	// Who verifies the I/O: the same I/O either way.
	"verify_async": true,
	// The tiobench and act profiles' own options: fio 3.33 takes them in
	// any job but they act only with profile= (itself not modelled, so
	// reported), which blkq's I/O then does not follow. threads=1 (in
	// fio's steadystate.fio) is one of them, not the thread option.
	"threads": true, "block": true, "numruns": true, "dir": true, "device-names": true,
	"load": true, "test-duration": true, "threads-per-queue": true,
	"read-req-num-512-blocks": true, "large-block-op-kbytes": true, "prep": true,
	// io_uring's and the NVMe engines' polling and buffer registration.
	"hipri": true, "fixedbufs": true, "registerfiles": true, "sqthread_poll": true,
	"userspace_reap": true, "nonvectored": true,
	// Deprecated: fio 3.33 takes them and does nothing with them (it says
	// "Option flow_watermark is deprecated" on stdout). rwmixcycle and
	// percentage_sequential are deprecated harder: fio refuses the job
	// (refused.go).
	"flow_watermark": true, "verifysort": true, "verifysort_nr": true,
	// No I/O of fio's changes with them on blkq's devices:
	//  - allrandrepeat: every blkq draw is repeatable for a --seed already;
	//  - create_serialize, create_fsync, overwrite: they order, sync or
	//    skip fio's lay-out writes, and blkq lays files out without
	//    writing them (filesetup.go);
	//  - allow_mounted_write: blkq's devices are never mounted;
	//  - softrandommap: blkq's random map is never refused memory;
	//  - unique_filename: names for fio's client/server mode;
	//  - write_barrier: fio 3.33 marks barrier writes only for the
	//    libpmem engine (its FIO_BARRIER flag), so with the engines blkq
	//    runs the I/O is the same (checked with Debian's fio: the same
	//    iolog, no sync);
	//  - write_hint: the lifetime hint rides on the file; blkq's devices
	//    have no write streams to place data by it;
	//  - gpu_dev_id: GPU memory for the rdma and cuda engines, which blkq
	//    does not run;
	//  - log_entries, log_compression, read_iolog_chunked: how fio keeps a
	//    log in memory or reads an iolog, not what it writes or replays;
	//  - log_alternate_epoch_clock_id: acts only with log_unix_epoch or
	//    log_alternate_epoch, which blkq refuses.
	"allrandrepeat": true, "create_serialize": true, "create_fsync": true, "overwrite": true,
	"allow_mounted_write": true, "softrandommap": true, "unique_filename": true,
	"write_barrier": true, "write_hint": true, "gpu_dev_id": true,
	"log_entries": true, "log_compression": true, "read_iolog_chunked": true,
	"log_alternate_epoch_clock_id": true,
	// io_uring's and pvsync2's knobs that leave the I/O as it is:
	// cmd_type acts only for io_uring_cmd, force_async punts submissions
	// to io_uring's workers, hipri_percentage polls some completions.
	"cmd_type": true, "force_async": true, "hipri_percentage": true,
}

// The options of engines blkq does not emulate are inert too: fio
// refuses them under any other engine (engineopts.go) and blkq refuses
// to run those engines (engine.CheckEngines), so they can only sit in a
// [global] section that a job's own ioengine= overrides, where they do
// nothing in fio either.
func init() {
	for name, owners := range engineOwners {
		emulated := false
		for _, e := range owners {
			if _, ok := EngineKind(e); ok {
				emulated = true
			}
		}
		if !emulated {
			inertOptions[name] = true
		}
	}
}

// Inert reports whether the ignored option cannot change the I/O blkq
// issues on any of its devices (CPU pinning, fio's clock, ...), so that
// it may be ignored silently. Other ignored options would change what fio
// issues or reports.
func (ig Ignored) Inert() bool {
	return inertOptions[ig.Option]
}
