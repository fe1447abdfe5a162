package fio

import (
	"slices"
	"strings"
)

// Engine options belong to engines. fio 3.33 adds an engine's options to
// a section only once the section's ioengine= is known, so an option of
// another engine is "Bad option" and the job is dropped: hipri with
// ioengine=psync (hipri is io_uring's and pvsync2's), port= in a [global]
// section of the default engine. It checks a section's own options
// against the engine in force at the section's end (its own ioengine= or
// the one it inherits), and an option accepted in [global] under one
// engine stays harmless in a job that picks another (checked with
// Debian's fio 3.33-3). blkq does the same, at the end of each section.
//
// engineOwners lists, for each engine option of fio 3.33, the engines
// whose option tables hold it (fio's engines/*.c, read for the tables;
// uri and the cmdprio options are modelled, the rest are known options
// of knownopts.go).
var engineOwners = map[string][]string{
	"arguments": {"exec"}, "grace_time": {"exec"}, "program": {"exec"}, "std_redirect": {"exec"},
	"bindname": {"rdma"}, "verb": {"rdma"}, "proto": {"net", "netsplice", "rdma"},
	"busy_poll": {"rados", "rbd"}, "clientname": {"rados", "rbd"}, "clustername": {"rados", "rbd"},
	"conf": {"rados"}, "touch_objects": {"rados"}, "rbdname": {"rbd"},
	"pool":       {"dfs", "rados", "rbd"},
	"chunk_size": {"dfs", "libhdfs"}, "chunck_size": {"libhdfs"}, "cont": {"dfs"}, "object_class": {"dfs"}, "svcl": {"dfs"},
	"hdfs_use_direct": {"libhdfs"}, "hdfsdirectory": {"libhdfs"}, "namenode": {"libhdfs"}, "single_instance": {"libhdfs"},
	"cpuchunks": {"cpuio"}, "cpuload": {"cpuio"}, "cpumode": {"cpuio"}, "exit_on_io_done": {"cpuio"},
	"cuda_io": {"libcufile"}, "gpu_dev_ids": {"libcufile"},
	"donorname": {"e4defrag"}, "inplace": {"e4defrag"},
	"hostname":  {"libhdfs", "net", "netsplice", "rdma"},
	"port":      {"libhdfs", "librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client", "librpma_gpspm_server", "net", "netsplice", "rdma"},
	"interface": {"net", "netsplice"}, "listen": {"net", "netsplice"}, "mss": {"net", "netsplice"},
	"nodelay": {"net", "netsplice"}, "pingpong": {"net", "netsplice"}, "protocol": {"net", "netsplice"},
	"ttl": {"net", "netsplice"}, "window_size": {"net", "netsplice"},
	"serverip":             {"librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client", "librpma_gpspm_server"},
	"direct_write_to_pmem": {"librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client", "librpma_gpspm_server"},
	"busy_wait_polling":    {"librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client", "librpma_gpspm_server"},
	"brick":                {"gfapi", "gfapi_async"}, "volume": {"gfapi", "gfapi_async"}, "single-instance": {"gfapi", "gfapi_async"},
	"initiator": {"libiscsi"}, "nfs_url": {"nfs"}, "skip_bad": {"mtd"}, "stat_type": {"filestat"}, "thp": {"mmap"},
	"readfua": {"sg"}, "writefua": {"sg"}, "sg_write_mode": {"sg"}, "stream_id": {"sg"},
	"https": {"http"}, "http_host": {"http"}, "http_mode": {"http"}, "http_pass": {"http"}, "http_s3_key": {"http"},
	"http_s3_keyid": {"http"}, "http_s3_region": {"http"}, "http_s3_sse_customer_algorithm": {"http"},
	"http_s3_sse_customer_key": {"http"}, "http_s3_storage_class": {"http"}, "http_swift_auth_token": {"http"},
	"http_user": {"http"}, "http_verbose": {"http"},
	"xnvme_admin": {"xnvme"}, "xnvme_async": {"xnvme"}, "xnvme_be": {"xnvme"}, "xnvme_dev_nsid": {"xnvme"},
	"xnvme_iovec": {"xnvme"}, "xnvme_sync": {"xnvme"},
	"uri": {"nbd"},
	// The engines blkq emulates.
	"hipri":            {"io_uring", "io_uring_cmd", "pvsync2", "sg", "xnvme"},
	"hipri_percentage": {"pvsync2"},
	"uncached":         {"io_uring", "io_uring_cmd", "pvsync2"},
	"nowait":           {"io_uring", "io_uring_cmd", "libaio", "pvsync2"},
	"userspace_reap":   {"libaio"},
	"fixedbufs":        {"io_uring", "io_uring_cmd"}, "registerfiles": {"io_uring", "io_uring_cmd"},
	"sqthread_poll":     {"io_uring", "io_uring_cmd", "xnvme"},
	"sqthread_poll_cpu": {"io_uring", "io_uring_cmd"}, "nonvectored": {"io_uring", "io_uring_cmd"},
	"force_async": {"io_uring", "io_uring_cmd"}, "cmd_type": {"io_uring", "io_uring_cmd"},
}

// defaultEngine is fio 3.33's ioengine on Linux.
const defaultEngine = "psync"

// lastEngine is the ioengine= in force after opts (def if none sets it).
func lastEngine(def string, opts []rawOpt) string {
	e := def
	for _, r := range opts {
		if r.spec.name == "ioengine" {
			e = strings.TrimSpace(r.value)
		}
	}
	return e
}

// checkEngineOptions rejects the first of a section's own options (own)
// that belongs to engines other than engine, as fio 3.33 does.
func (p *parser) checkEngineOptions(own []rawOpt, engine string) error {
	for _, r := range own {
		owners, ok := engineOwners[r.spec.name]
		if !ok || slices.Contains(owners, engine) {
			continue
		}
		err := p.errorf(r.line, r.name, r.value, "an option of ioengine=%s, not of this section's ioengine=%s (fio: Bad option, the job is dropped)", strings.Join(owners, ", "), engine)
		if r.file != "" {
			err.File = r.file // an included file's line
		}
		return err
	}
	return nil
}
