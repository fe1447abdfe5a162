// Package trace reads and writes block traces in the blktrace binary
// format (struct blk_io_trace, version 7) and prints them as blkparse does,
// so that Debian's blkparse and btt read what blkq records and blkq reads
// what they (and the kernel) record.
//
//   - Writer is a blkq.Tracer: it turns the queue's event stream into the
//     48-byte records the kernel's blktrace would have written for the same
//     I/O (Q M F G S R I D C P U), with a process note the first time each
//     pid appears.
//   - Reader reads records back, in either byte order, versions 6 and 7.
//   - Print and PrintSummary write blkparse's default text output.
//   - Stats is a blkq.Tracer that computes btt's latency metrics (Q2C, D2C,
//     I2D, Q2G, G2I, ...) from the event stream, the way btt pairs events.
//
// The layout and the meaning of the fields follow the kernel's uapi header
// blktrace_api.h and the behaviour of blkparse and btt (blktrace 1.2.0);
// see docs/linux-block-layer.md ("blktrace") and docs/formats.md ("blkparse
// and btt").
package trace
