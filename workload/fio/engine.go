package fio

// EngineKind classifies an ioengine= name by how blkq can emulate it:
//
//	"sync"  one I/O at a time per job: sync, psync, vsync, pvsync, pvsync2
//	"async" queued I/O up to iodepth: libaio, io_uring, posixaio
//	"null"  no data moved: null
//	"nbd"   an NBD client: nbd (needs uri=)
//
// ok is false for engines blkq does not emulate (net, http, rdma, sg, mmap,
// cpuio, exec, falloc, filecreate, io_uring_cmd, external:..., and unknown
// names). Parse accepts any engine name; the caller decides what to refuse.
func EngineKind(name string) (kind string, ok bool) {
	switch name {
	case "sync", "psync", "vsync", "pvsync", "pvsync2":
		return "sync", true
	case "libaio", "io_uring", "posixaio":
		return "async", true
	case "null":
		return "null", true
	case "nbd":
		return "nbd", true
	}
	return "", false
}
