// Command blkq-soak runs the blkq library under load for a given time and
// checks it: 256 goroutines reading, writing and discarding through the
// buffer cache over a queue on a file device with read-ahead on, 16 more
// using the queue's blocking API with contexts that end at random, a
// tunable flipped every millisecond and every statistic polled. Every read
// is checked against a model of the data and every bio must complete
// exactly once. It prints the counts and exits 1 on any failure (2 on a
// usage error). It is not a CI test (a 10-second version is: TestSoak10s);
// run it under the race detector:
//
//	go run -race ./cmd/blkq-soak --duration 10m
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"
)

func main() {
	os.Exit(soakMain(os.Args[1:], os.Stdout, os.Stderr))
}

func soakMain(args []string, stdout, stderr io.Writer) int {
	cfg := defaultConfig()
	fs := pflag.NewFlagSet("blkq-soak", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, in one line
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long the workers run")
	fs.StringVar(&cfg.Dir, "dir", cfg.Dir, "directory for the device file (removed at the end)")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "goroutines reading, writing and discarding through the cache")
	fs.IntVar(&cfg.Direct, "direct", cfg.Direct, "goroutines using the queue's blocking API")
	fs.IntVar(&cfg.Pages, "pages", cfg.Pages, "4 KiB pages each goroutine owns")
	fs.IntVar(&cfg.CachePages, "cache-pages", cfg.CachePages, "the cache's capacity in pages")
	fs.DurationVar(&cfg.FlipEvery, "flip", cfg.FlipEvery, "tunable flip interval")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the workers' random choices")
	fs.DurationVar(&cfg.ProgressEvery, "progress", cfg.ProgressEvery, "progress line interval (on stderr)")
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "blkq-soak: "+format+"; see 'blkq-soak --help'\n", a...)
		return 2
	}
	switch err := fs.Parse(args); {
	case errors.Is(err, pflag.ErrHelp):
		fmt.Fprintf(stdout, "usage: blkq-soak [flags]\n\nRuns the blkq library under load and checks it.\n\nflags:\n%s", fs.FlagUsages())
		return 0
	case err != nil:
		return usageErr("%v", err)
	case fs.NArg() > 0:
		return usageErr("unexpected argument %q", fs.Arg(0))
	case cfg.Duration <= 0 || cfg.Workers < 1 || cfg.Direct < 0 || cfg.Pages < 1 || cfg.CachePages < 1 || cfg.FlipEvery <= 0 || cfg.ProgressEvery <= 0:
		return usageErr("--duration, --flip and --progress must be positive, --workers, --pages and --cache-pages at least 1, --direct at least 0")
	}
	cfg.Progress = stderr
	fmt.Fprintf(stdout, "blkq-soak: %v, %d cache workers + %d direct, %d pages each, cache %d pages, flip every %v, seed %d\n",
		cfg.Duration, cfg.Workers, cfg.Direct, cfg.Pages, cfg.CachePages, cfg.FlipEvery, cfg.Seed)
	r, err := run(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "blkq-soak: %v\n", err)
		return 1
	}
	r.print(stdout)
	if len(r.Failures) > 0 {
		return 1
	}
	return 0
}

func (r *result) print(w io.Writer) {
	fmt.Fprintf(w, "ran %v; close (write-back) %v; device read-back %v\n", r.Elapsed.Round(time.Millisecond),
		r.Closing.Round(time.Millisecond), r.Verifying.Round(time.Millisecond))
	fmt.Fprintf(w, "cache workers: reads=%d writes=%d discards=%d syncs=%d invalidates=%d\n", r.Reads, r.Writes, r.Discards, r.Syncs, r.Invalidates)
	fmt.Fprintf(w, "direct workers: ReadAt=%d WriteAt=%d Submit=%d (taken back by their context=%d) flushes=%d\n", r.DReads, r.DWrites, r.DSubmits, r.DCancelled, r.DFlushes)
	fmt.Fprintf(w, "data: %d bytes checked, mismatches=%d\n", r.BytesChecked, r.Mismatches)
	fmt.Fprintf(w, "bios: queued=%d completed=%d read-ahead dropped=%d taken back=%d refused before queueing=%d lost=%d duplicated=%d\n",
		r.BiosQueued, r.BiosCompleted, r.BiosDropped, r.BiosTakenBack, r.BiosNotQueued, r.Lost, r.Duplicated)
	fmt.Fprintf(w, "direct bios: submitted=%d EndIO calls=%d\n", r.DirectBios, r.DirectEnds)
	fmt.Fprintf(w, "requests: issued=%d completed=%d ended off the device=%d\n", r.RequestsIssued, r.RequestsCompleted, r.RequestsEndedOff)
	fmt.Fprintf(w, "cache: hits=%d misses=%d read-ahead pages=%d dropped=%d evictions=%d discarded=%d written back=%d\n",
		r.Cache.Hits, r.Cache.Misses, r.Cache.ReadAheadPages, r.Cache.ReadAheadDropped, r.Cache.Evictions, r.Cache.Discarded,
		r.Cache.WrittenFlusher+r.Cache.WrittenThrottle+r.Cache.WrittenSync)
	fmt.Fprintf(w, "disk: %v\n", r.Disk.Stat())
	fmt.Fprintf(w, "tunables: flips=%d (skipped, other scheduler's=%d); statistic polls=%d\n", r.Flips, r.FlipsSkipped, r.Polls)
	if len(r.Failures) == 0 {
		fmt.Fprintln(w, "PASS")
		return
	}
	fmt.Fprintf(w, "FAIL: %d problems\n", len(r.Failures))
	for _, f := range r.Failures {
		fmt.Fprintf(w, "  %s\n", f)
	}
}
