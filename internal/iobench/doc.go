// Package iobench is blkq bench: blkq's cost per I/O on a real file, next
// to fio's and a bare pread loop's, measured side by side in one
// invocation.
//
// A case (random 4 KiB reads with 1 or 4 jobs, sequential reads, libaio
// at iodepth 32 in batches of 32; through the page cache or O_DIRECT) is
// one fio job file. Each contender runs it as a child process of its own:
// fio itself (Debian's /usr/bin/fio), blkq run on a file: device under
// scheduler none and mq-deadline (the same job file), and a bare loop of
// pread(2) calls in Go (blkq bench's hidden raw worker, the floor any Go
// program pays). The contenders of a case run in turn, round after round,
// so that a change in the machine's load falls on all of them; the
// figures are the medians over the rounds.
//
// Every contender ramps for RampTime before it measures, so that blkq's
// own page cache (which starts empty in each process, where fio's reads
// find the kernel's warm) is warm too, and the figures are the
// contenders' own: fio's and blkq's JSON (I/Os and runtime after the
// ramp; usr_cpu and sys_cpu, the process's getrusage over the same
// window), the raw worker's count and getrusage over its window. CPU per
// I/O is (user + system time) / I/Os; for blkq it includes the Go
// runtime's and the device workers' time, which are part of its cost.
// fio is told invalidate=0, so that its page-cache runs read a warm
// cache as the others do.
//
// One case moves no data: fio's null engine against blkq run on its null
// device with the same job (ioengine=null), with no raw loop; its ratio
// is blkq's CPU per I/O over fio's (issue 13: at most 2).
package iobench
