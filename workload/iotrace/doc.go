// Package iotrace reads block I/O traces written by other tools, so that they
// can be replayed through blkq's request layer: each reader turns one line of
// a trace into a Record (arrival time, submitter, op, flags and the sector
// range [Sector, Sector+Sectors) in 512-byte sectors).
//
// Formats (one file each):
//
//   - "blkparse" (blkparse.go): blkparse's default text output; Q (queued)
//     events become records.
//   - "ftrace" (ftrace.go): the kernel's ftrace "blk" tracer, both the
//     default lines ("task-pid [cpu] flags secs.usecs: 7,0 Q WS 8 + 8 [fio]")
//     and blk_classic lines ("7,0 0 385.069815948 11078 Q WS 8 + 8 [fio]"),
//     plus the block_* tracepoints (block_bio_queue and friends); Q events
//     become records.
//   - "disksim" (disksim.go): DiskSim/MQSim ASCII, "arrival_time device
//     start_sector size_in_sectors type".
//   - "msr" (msr.go): MSR Cambridge CSV (SNIA IOTTA set 388).
//   - "spc" (spc.go): SPC/UMass CSV ("Financial1", "WebSearch1" ...).
//   - "fio-iolog" (iolog.go): fio's read_iolog/write_iolog text, versions 2
//     and 3.
//   - "blktrace" (blktrace.go): blktrace's binary format (package trace
//     reads its records; blkq run --trace writes it); Q events become
//     records, with the process names of its notes. Detect reads text
//     only; FileFormat and Open recognise this one by its magic.
//
// Open (file.go) gives a trace file as an Opener that reads it from the
// start on each call, as a replay needs (it reads its trace several
// times), and refuses a pipe, which could not be read twice.
//
// For blkparse and ftrace the kernel's own decisions are available too: an
// EventReader returns every action (Q, G, M, F, I, D, C, P, U ...), and
// KernelMerges says, for each Q record, whether the kernel back- or
// front-merged that bio, KernelDispatched what requests it dispatched and
// KernelServiceTimes how long each took from D to C (merges.go);
// CompareEvents sets a replay's M, F, X and D events against the kernel's,
// event for event (agreement.go). That is the oracle against which blkq's
// request layer can be compared (blkq replay --kernel-merges; the kernel's
// traces in testdata/ktrace). Their records carry the kernel's plugs, from
// the P, U and UT events (Record.Plug, plugs.go), for a replay to plug as
// the kernel did.
//
// # Errors
//
// Errors still begin "trace:" (the package's name before it was
// iotrace), so that messages users and tests match stay as they were.
//
// A malformed line stops a reader with a *ParseError naming the source, the
// 1-based line and, where there is one, the field:
//
//	trace.csv:17: field "Offset": invalid number "12x"
//
// When the last line of the input has no newline and does not parse, the
// trace was cut short: the error says "truncated final record" and matches
// ErrTruncated with errors.Is. ReadAll returns every record read before an
// error together with the error. No input makes a reader panic.
//
// # Time
//
// Record.Time is a time.Duration (nanoseconds). Where a format has its own
// relative clock (blkparse, DiskSim/MQSim, SPC, fio) Time is that clock;
// where its clock is absolute (ftrace: seconds since boot; MSR: Windows
// FILETIME) Time is measured from the first record or event of the trace.
// Each reader's doc says which. Traces are not required to be in time order,
// so Time may go backwards (and, for MSR, be negative); a replayer that
// needs order must sort.
package iotrace
