// Package report turns plain run statistics into fio-compatible reports.
//
// The package knows nothing about the request layer: a runner fills a [Run]
// (jobs, their per-direction statistics, disks) and calls [WriteNormal] for
// fio 3.33's human output, [WriteJSON] for its --output-format=json,
// [WriteJSONPlus] for json+ (with fio's histogram bins), [WriteTerse] for
// its terse (--minimal) format, or [Write] for a list of them in fio's
// order, each extended with blkq's own measurements (request allocation
// waits, merges, Jain's fairness index of per-group throughput).
//
// Layout and number formatting follow the output of fio 3.33 as observed
// (see docs/formats.md, "fio's output", and testdata/samples/); the
// percentiles follow fio's histogram (plat.go) and the terse fields fio's
// HOWTO, read for behaviour in fio's stat.c; the code is blkq's own, and
// tests compare it with fio's output for the same histograms.
//
// Units, unless a name says otherwise: latencies and runtimes are recorded in
// nanoseconds; the reports print them the way fio does (msec runtimes,
// nsec/usec/msec latencies chosen adaptively); bandwidth samples are KiB/s,
// IOPS samples operations/s; byte counts are bytes.
//
// Nothing in this package reads the wall clock: the only time fields of a
// report are [Run.Timestamp], [Run.TimestampMs] and [Run.Time]. The same Run
// always produces byte-identical output.
package report
