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
	// fio's own clock: how it reads the time, and how often.
	"clocksource": true, "gtod_reduce": true,
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
	// Deprecated: fio 3.33 takes it and does nothing with it (it says
	// "Option flow_watermark is deprecated" on stdout).
	"flow_watermark": true,
}

// Inert reports whether the ignored option cannot change the I/O blkq
// issues on any of its devices (CPU pinning, fio's clock, ...), so that
// it may be ignored silently. Other ignored options would change what fio
// issues or reports.
func (ig Ignored) Inert() bool {
	return inertOptions[ig.Option]
}
