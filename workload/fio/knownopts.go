package fio

// The names fio 3.33 accepts that blkq does not model. Using one is not an
// error: Parse records it in JobFile.Ignored. The lists were drawn from
// Debian's fio 3.33-3 binary (every name `fio --parse-only` accepts, core and
// per engine) and, for engines Debian does not build, from fio's HOWTO.
// Modelled options and their aliases live in options.go. Beware: "threads"
// is not an alias of "thread" in fio 3.33; it belongs to the tiobench profile
// (like "dir", "block", "numruns") and fio accepts it without effect.

// knownBareFlags may be written without "=value".
var knownBareFlags = []string{
	"blocksize_unaligned", "bs_unaligned", "cpus_allowed", "exitall_on_error",
	"log_compression_cpus", "numa_cpu_nodes", "numa_mem_policy", "prep",
	"replay_skip", "verify_async_cpus", "verify_only", "verify_pattern", "write_bw_log", "write_hist_log",
	"write_iops_log", "write_lat_log",
}

// knownOptions take a value. Aliases are listed as names of their own; the
// act and tiobench profile options ("device-names", "threads", ...) are
// accepted by fio 3.33 even without profile=.
var knownOptions = []string{
	"allow_file_create", "allow_mounted_write", "allrandrepeat", "atomic", "ba", "block",
	"block_error_percentiles", "blockalign", "bs_is_seq_rand",
	"bwavgtime", "cgroup", "cgroup_nodelete", "cgroup_weight",
	"clat_percentiles", "clocksource", "cpumask", "cpus_allowed_policy",
	"create_fsync", "create_only", "create_serialize",
	"description", "device-names", "dir",
	"disable_bw", "disable_bw_measurement", "disable_clat", "disable_lat", "disable_slat", "disk_util",
	"do_verify", "exec_postrun", "exec_prerun", "experimental_verify", "fadvise_hint",
	"file_append", "file_service_type", "flow_watermark",
	"fsync_on_close", "gid", "gtod_cpu", "gtod_reduce", "hugepage-size",
	"ignore_zone_limits",
	"iomem", "iomem_align", "iopsavgtime", "ioscheduler", "job_max_open_zones", "large-block-op-kbytes",
	"lat_percentiles", "load",
	"lockfile", "lockmem", "log_alternate_epoch", "log_alternate_epoch_clock_id", "log_avg_msec",
	"log_compression", "log_entries", "log_hist_coarseness", "log_hist_msec", "log_max_value",
	"log_offset", "log_prio", "log_store_compressed", "log_unix_epoch", "max_latency", "max_open_zones",
	"mem", "mem_align", "merge_blktrace_file", "merge_blktrace_iters", "merge_blktrace_scalars",
	"numruns", "opendir", "openfiles", "overwrite", "per_job_logs", "percentage_random",
	"percentage_sequential", "percentile_list", "pre_read", "profile",
	"read-req-num-512-blocks", "read_beyond_wp", "read_iolog",
	"read_iolog_chunked", "replay_align", "replay_no_stall", "replay_redirect", "replay_scale",
	"replay_time_scale", "rw_sequencer", "rwmixcycle",
	"significant_figures", "slat_percentiles", "softrandommap", "stats", "sync", "sync_file_range",
	"test-duration", "threads",
	"threads-per-queue", "trim_backlog", "trim_backlog_batch", "trim_percentage", "trim_verify_zero", "uid",
	"unified_rw_reporting", "unique_filename", "unit_base", "unlink", "unlink_each_loop", "verify_async",
	"verify_backlog", "verify_backlog_batch", "verify_dump", "verify_fatal", "verify_interval",
	"verify_offset", "verify_state_load", "verify_state_save", "verifysort", "verifysort_nr",
	"write_barrier", "write_hint", "write_iolog", "zone_reset_frequency", "zone_reset_threshold",
	"zonecapacity", "zonerange",
}

// knownEngineFlags are engine options that may be bare (io_uring, libaio,
// net, ...).
var knownEngineFlags = []string{
	"fixedbufs", "hipri", "listen", "pingpong", "registerfiles", "sqthread_poll", "userspace_reap",
}

// knownEngineOptions are the options of the engines in Debian's build
// (uri, of nbd, is modelled).
var knownEngineOptions = []string{
	"arguments", "bindname", "brick", "busy_poll", "clientname", "clustername", "cmd_type", "conf", "cpuchunks", "cpuload", "cpumode",
	"donorname", "exit_on_io_done", "force_async", "grace_time", "hipri_percentage", "hostname", "inplace",
	"interface", "mss", "nodelay", "nonvectored", "nowait", "pool", "port", "program", "proto", "protocol", "rbdname",
	"readfua", "sg_write_mode", "single-instance", "skip_bad", "sqthread_poll_cpu", "stat_type", "std_redirect",
	"stream_id", "thp", "touch_objects", "ttl", "uncached", "verb", "volume", "window_size", "writefua",
}

// knownUncheckedEngineOptions belong to engines (and a CUDA option) that
// Debian's fio is built without: http, librpma, dfs, libcufile, libhdfs,
// nfs, libiscsi, xnvme. Whether fio takes them bare was not checked.
var knownUncheckedEngineOptions = []string{
	"https", "http_host", "http_mode", "http_pass", "http_s3_key", "http_s3_keyid", "http_s3_region",
	"http_s3_sse_customer_algorithm", "http_s3_sse_customer_key", "http_s3_storage_class",
	"http_swift_auth_token", "http_user", "http_verbose", "busy_wait_polling", "direct_write_to_pmem",
	"serverip", "chunk_size", "chunck_size", "cont", "object_class", "svcl", "cuda_io", "gpu_dev_ids", "gpu_dev_id",
	"hdfsdirectory", "hdfs_use_direct", "namenode", "single_instance", "nfs_url", "initiator", "xnvme_admin",
	"xnvme_async", "xnvme_be", "xnvme_dev_nsid", "xnvme_iovec", "xnvme_sync",
}
