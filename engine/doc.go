// Package engine runs fio job files and block traces through a blkq
// request queue: on a simulated disk in virtual time (deterministic for a
// seed), on the null device, or on a real file, and returns fio-style
// statistics.
//
// One I/O goes runner → job → source → path → queue:
//
//   - The runner (run.go) is the one orchestrator of a run (Run: the jobs
//     of a job file, laid out by plan) and of a replay (ReplayStream,
//     replay.go: one job for the whole trace). It opens the queue through
//     the queue factory (queue.go: OpenQueue, which the experiments and
//     blkq latency use too), starts the jobs as their dependencies allow,
//     runs the executor (exec.go: the event loop, or a goroutine-safe
//     queue of callbacks on real devices) until the last job has
//     finished, checks the run's invariants and reports (results.go).
//     A file run of readers that share nothing else gives each job an
//     executor of its own (parallel.go).
//   - A job (job.go) keeps up to its depth of I/Os in flight and accounts
//     them (stats.go). Its state, and every change of it, is jobState
//     (jobstate.go). Its tasks are submitters: its own, or one per pid of
//     a trace. Its engine's queue (batch.go) submits its I/O in fio's
//     batches, plugged where Linux plugs an io_submit, and reaps the
//     completions when fio would; serialize_overlap (overlap.go) and
//     latency_target's depth search (latency_target.go) act there.
//   - Its source (source.go) chooses what it issues: fio's offsets
//     (gen.go; random ones in randgen.go, with randmap.go, lfsr.go and
//     distrib.go; the file of each I/O in fileservice.go, the files'
//     names in filenames.go) under rate limits (rate.go), or a trace's records
//     (replay.go, read as a stream within a bounded window by
//     replaysource.go; each task's bios plugged as the trace's kernel
//     plugged them, replayplug.go). Its thinktime is think.go, its flow
//     control (flow=, flow_id) flow.go.
//   - Its path (path.go), chosen once when the job is made, takes each
//     I/O to the device: straight to the queue, or, buffered, through the
//     run's page cache, bcache's core, on every device (cache.go).
//   - A job with verify= (verify.go) writes fio's verify blocks
//     (verifyhdr.go) and reads them back through its path, checking
//     each, as fio does. On a file, what other writes hold is the buffer
//     options' (bufdata.go) or the run's checked pattern (data.go).
//   - A job's files are set up as fio's are (filesetup.go): allocated
//     (fallocate) when the run lays them out, dropped from the page
//     caches (invalidate) or read into them (pre_read, preread.go) when
//     the job starts; fill_device ends at ENOSPC. Its writes are durable
//     at completion with sync= (osync.go); a pass's end fsyncs its files
//     and fsync_on_close a file as it closes (close.go); unlink deletes
//     them (unlink.go). ioscheduler= switches the queue's elevator when
//     the job starts (iosched.go). The options blkq refuses before a run
//     (an unknown ioscheduler, verify trims) are checked there and in
//     trimverify.go.
//     A buffered write on a full file system fails at once (its space is
//     taken as it enters the page cache, reserve.go); a write-back that
//     fails later is the writing job's: its error at fsync or close, its
//     lost bytes out of its figures (writeback.go).
//   - The queue (package blkq) completes the bio; its EndIO (job.go)
//     brings the completion back to the job on the executor.
//   - A job's stats (stats.go) feed its fio logs: bw, iops, lat, slat,
//     clat (fiolog.go), the clat histogram (fiohist.go) and the iolog of
//     what it issued (iologwrite.go). A job with read_iolog replays the
//     iolog through the trace source (iologreplay.go).
//
// With Options.CPU (cpus.go) a simulated run also models the machine's
// CPUs: each job's task is a thread of sim/cpu that needs a CPU for its
// work, and its submissions, context switches and sections cost CPU time.
//
// Random choices draw from streams split off one sim.RNG per run, so a
// seed gives the same run, byte for byte.
package engine
