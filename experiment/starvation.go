package experiment

import (
	"fmt"
	"strings"
	"time"

	"github.com/blkq-dev/blkq/engine"
)

// dbenchJobs is the dbench-like load of the 2002 report: 64 tasks, each
// writing bursts of 256 contiguous 4 KiB blocks without waiting for them
// (libaio, no depth limit), thinking 50 ms between bursts, with 5% reads,
// on the simulated disk. Requests are limited to 64 KiB, as 2.4's IDE
// driver limited them (128 sectors, ide-probe.c), so a burst needs 16 requests and 64
// tasks want far more than the 64 a direction has (dbenchOptions).
func dbenchJobs(scale float64) string {
	return fmt.Sprintf(`; dbench-like: 64 tasks writing bursts of contiguous 4 KiB blocks
[global]
ioengine=libaio
direct=1
%sbs=4k
rw=rw
rwmixread=5
size=256m
iodepth=4096
thinktime=50ms
thinktime_blocks=256
runtime=%.0fms
time_based

[dbench]
numjobs=64
`, "", scaled(60000, scale, 1000))
}

// dbenchBufferedJobs is the same load written through the page cache, as
// dbench's writes were: each write dirties a page and returns; the flusher
// writes back in the background, and a task that finds the cache over its
// hard dirty threshold writes back 32 of the oldest dirty pages itself,
// sleeping in request allocation like the 2002 dbench processes did.
// Buffered writes are synchronous calls (psync, so no iodepth); the 5%
// reads go through the page cache too (they hit only dirty pages).
func dbenchBufferedJobs(scale float64) string {
	src := dbenchJobs(scale)
	src = strings.Replace(src, "ioengine=libaio\ndirect=1\n", "ioengine=psync\ndirect=0\n", 1)
	src = strings.Replace(src, "iodepth=4096\n", "", 1)
	return strings.Replace(src, "; dbench-like:", "; dbench-like, buffered:", 1)
}

// dbenchOptions are the queue settings of the 2002 loads under policy: a
// 2.4.18 queue, whose queue_nr_requests (128) was divided in half between
// reads and writes while batch_requests was a quarter of the whole (32),
// so 64 requests per direction with a batch of 32.
func dbenchOptions(policy string) engine.Options {
	return engine.Options{
		Alloc:         policy,
		NrRequests:    64,
		BatchRequests: 32,
		Attrs:         [][2]string{{"max_sectors_kb", "64"}},
		// Woken tasks run in an order the scheduler picks: 0-2 ms.
		WakeJitter: 2 * time.Millisecond,
	}
}

func init() {
	base := []Config{
		{Name: "legacy", Options: dbenchOptions("legacy")},
		{Name: "fair", Options: dbenchOptions("fair")},
		{Name: "legacy, buffered", Options: dbenchOptions("legacy"), Jobs: dbenchBufferedJobs},
		{Name: "fair, buffered", Options: dbenchOptions("fair"), Jobs: dbenchBufferedJobs},
	}
	// Two more runs of legacy, direct, for the order woken tasks run in:
	// in the order they were woken without the CPU model (no jitter), and
	// on the CPU model with CPU time free.
	noJitter := dbenchOptions("legacy")
	noJitter.WakeJitter = 0
	free := withCPUs(base[:1], cpus2002)[0]
	free.Name += ", CPU time free"
	free.Options.CPU.ContextSwitch, free.Options.CPU.Submit = 0, 0
	register(&Experiment{
		Name:    "starvation",
		Title:   "get_request starvation: legacy (2.4.18-pre9) vs fair (the 2002 fix) allocation",
		Source:  source2002,
		Jobs:    dbenchJobs,
		Configs: append(append(base, withCPUs(base, cpus2002)...), Config{Name: "legacy, no jitter", Options: noJitter}, free),
		Analyze: analyzeStarvation,
	})
}

// starvationPairs names the legacy/fair pairs of the starvation
// experiment's configurations, in order; the two runs after them are
// legacy's without jitter and with free CPU time.
var starvationPairs = []string{"direct writes", "buffered writes", "direct writes" + cpuSuffix(cpus2002), "buffered writes" + cpuSuffix(cpus2002)}

func analyzeStarvation(out []*Outcome) *Table {
	t := &Table{Columns: append([]string{"config", "max sleep ms", "p50 ms", "p99 ms", "max/median", "Jain", "sleeps", "wake-ups", "MB/s"}, append(cpuColumns, "reported (2002)")...)}
	var fig []allocFigures
	for _, o := range out {
		f := figures(o)
		fig = append(fig, f)
		rep := "max 8 s, all similar; 29,000"
		if o.Config.Options.Alloc == "legacy" {
			rep = "max 37 s; 57,000 ctx switches"
		}
		t.Rows = append(t.Rows, append(append([]string{o.Config.Name, ms(f.maxWait), ms(f.p50), ms(f.p99), f2(f.maxOverMedian), f3(f.jain), num(f.sleeps), num(f.wakeups), f2(f.mbps)}, cpuCells(o)...), rep))
	}
	for i := 0; i+1 < len(fig) && i/2 < len(starvationPairs); i += 2 {
		l, f := fig[i], fig[i+1]
		how := starvationPairs[i/2]
		t.Notes = append(t.Notes,
			fmt.Sprintf("%s: longest sleep, fair / legacy = %.2f (2002: 8 s / 37 s = 0.22; target <= 1/3): %s", how, f.maxWait/max(l.maxWait, 1e-9), yesNo(f.maxWait <= l.maxWait/3)),
			fmt.Sprintf("%s: fair's max/median sleep = %.2f (2002: every task slept similar durations; target <= 3): %s", how, f.maxOverMedian, yesNo(f.maxOverMedian <= 3)),
			fmt.Sprintf("%s: wake-ups, fair / legacy = %.2f (2002: 29,000 / 57,000 = 0.51, but counting every context switch of the run; here only allocation wake-ups, so only the direction compares): %s", how, float64(f.wakeups)/float64(max(l.wakeups, 1)), yesNo(f.wakeups < l.wakeups)),
		)
		if out[i].Result.CPU == nil {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: legacy's longest sleep is %.0f%% of the run (%.0f s), fair's %.0f%%. A legacy sleeper can lose every race for as long as the load lasts, so its longest sleep grows with the run and the ratio above depends on the run's length; fair's is bounded by one trip through the FIFO, which is longer than 2002's 8 s because this load asks far more of the disk than dbench did (64 bursts of 1 MiB every 50 ms against a few MB/s).",
				how, 100*l.maxWait/l.runMs, l.runMs/1e3, 100*f.maxWait/f.runMs))
		}
		if i == 0 {
			// Fair's longest sleep is one trip through the FIFO: every
			// task woken in turn takes a batch of requests.
			trip := float64(f.tasks) * float64(out[i+1].Config.Options.BatchRequests) * writeRequestKiB(out[i+1]) * 1024 / (f.mbps * 1e6)
			t.Notes = append(t.Notes, fmt.Sprintf("direct writes: why fair's longest sleep is not a third of legacy's here: fair's is one trip through the FIFO, %d tasks each woken in turn to take a batch of %d requests of %.1f KiB at %.2f MB/s: %.1f s (measured %.1f s), set by the disk, where 2002's was 8 s.",
				f.tasks, out[i+1].Config.Options.BatchRequests, writeRequestKiB(out[i+1]), f.mbps, trip, f.maxWait/1e3))
		}
		if out[i].Result.CPU != nil {
			lc, fc := cpuFigs(out[i]), cpuFigs(out[i+1])
			t.Notes = append(t.Notes, fmt.Sprintf("%s: context switches, fair / legacy = %.2f (2002: 29,000 / 57,000 = 0.51, every context switch of the dbench run; here every switch of the jobs' tasks): %s; CPU time %.2f s vs %.2f s (the CPU %.0f%% and %.0f%% busy)",
				how, float64(fc.switches)/float64(max(lc.switches, 1)), yesNo(fc.switches < lc.switches), fc.busySecs, lc.busySecs, fc.util, lc.util))
		}
		if out[i].Result.CPU != nil {
			t.Notes = append(t.Notes, oneCPUNote(how, out[i], out[i+1], l, f))
		}
		if i == 2 {
			t.Notes = append(t.Notes, "buffered writes: the FIFO trip is not always bounded: each job reads ahead and keeps what it read, so the throttled writers run fast enough that on some seeds they hold the write pool between 0 and batch_requests free for part of the run, and no sleeper is woken meanwhile (the steady state conceded in the 2002 thread); fair's longest sleep then grows with the run too, if far less than legacy's (seed 3: 1.23x when the run doubles, legacy 1.82x).")
		}
	}
	if n := 2 * len(starvationPairs); len(fig) == n+2 {
		jit, noJit, cpuL, free := fig[0], fig[n], fig[4], fig[n+1]
		note := fmt.Sprintf("direct writes: legacy's longest sleep depends on the order woken tasks run in. With the random wake-up jitter it is %.1f s and grows with the run; run in the order they were woken (no jitter) legacy is as fair as fair, %.1f s; on the CPU model, where woken tasks wait for the CPU in the order they were woken, %.1f s at %v a bio, %.1f s when CPU time is free. ",
			jit.maxWait/1e3, noJit.maxWait/1e3, cpuL.maxWait/1e3, out[4].Config.Options.CPU.Submit, free.maxWait/1e3)
		if cpuL.maxWait >= 1.5*free.maxWait {
			note += "So the CPUs do change it: it is the CPU time of the submissions that lets tasks already running take the freed requests first; on them legacy starves by that time, not by the jitter's chance."
		} else {
			// fio reaps only when a queue is full (or it quiesces), and
			// counts thinktime_blocks at the reap: at iodepth=4096 these
			// writers never think, and each is asleep in allocation
			// whenever it has work (engine/batch.go).
			note += "On the CPUs legacy starves no more than fair: as fio drives them, these writers reap nothing until their 4096-deep queues fill, so they never reach their thinktime (fio counts thinktime_blocks as it reaps) and are asleep in allocation whenever they have work: no task is running to take the freed requests first."
		}
		t.Notes = append(t.Notes, note)
	}
	return t
}

// oneCPUNote says why a pair on the CPU model loses fair's advantage, from
// its runs lo (legacy) and fo (fair). On the model's CPUs woken tasks run
// in the order they were woken (the run queue is first come first served),
// and these fio writers are asleep in allocation whenever they have work:
// legacy's wake-all then wakes every sleeper oldest first, the oldest
// takes the batch before the next one runs, and the others find fewer
// than batch_requests free and sleep again in their places, which is
// fair's FIFO. A woken fair task is never robbed of its batch (it sleeps
// once per wait), so fair does not get worse: legacy gets better.
func oneCPUNote(how string, lo, fo *Outcome, l, f allocFigures) string {
	futile := int(l.sleeps) - len(lo.Waits)
	fairAgain := int(f.sleeps) - len(fo.Waits)
	note := fmt.Sprintf("%s: why fair / legacy is %.2f: ", how, f.maxWait/max(l.maxWait, 1e-9))
	if fairAgain <= 0 {
		note += fmt.Sprintf("fair's woken tasks are not robbed of their batch (%d sleeps for %d waits: none slept again); legacy starves less. ", f.sleeps, len(fo.Waits))
	} else {
		note += fmt.Sprintf("%d of fair's woken tasks found the pool empty and slept again. ", fairAgain)
	}
	if sameWaits(lo.Waits, fo.Waits) {
		note += fmt.Sprintf("Legacy grants requests in fair's order, wait for wait (the same %d waits, the same longest, %.1f s, ending %.1f s into the run): its wake-all puts every sleeper in the run queue oldest first, the oldest takes the batch (%d bios at %v each, far faster than the disk frees requests), and the other woken ones find fewer than %d free and sleep again in their places (%d futile wake-ups). No task is running when requests are freed (these writers are asleep in allocation whenever they have work), so none takes them ahead of the woken one. ",
			len(lo.Waits), l.maxWait/1e3, longestEnd(lo.Waits), lo.Config.Options.BatchRequests, lo.Config.Options.CPU.Submit, lo.Config.Options.BatchRequests, futile)
	} else {
		note += fmt.Sprintf("Legacy's woken tasks run oldest first too, so only a task already running takes requests ahead of them (here buffered writers, which run outside allocation between their write-backs): legacy waited %d times (%d futile wake-ups), fair %d; the longest sleeps end %.1f s (legacy) and %.1f s (fair) into the run. ",
			len(lo.Waits), futile, len(fo.Waits), longestEnd(lo.Waits), longestEnd(fo.Waits))
	}
	note += "The 2002 starvation needs many tasks running when requests are freed (\"already-running tasks can simply whizz in\"), or woken tasks run in another order than they slept (the runs with the wake-up jitter); a first-come run queue on one CPU gives legacy fair's order whenever the freed requests reach the woken tasks first. That is the model's first-come run queue and this load, not fair's batching, which works on the CPU as off it."
	return note
}

// sameWaits reports whether a and b are the same waits: the same tasks,
// ending at the same times after the same sleeps.
func sameWaits(a, b []Wait) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// longestEnd is when the longest of ws ended, in seconds of the run.
func longestEnd(ws []Wait) float64 {
	var l Wait
	for _, w := range ws {
		if w.Wait > l.Wait {
			l = w
		}
	}
	return float64(l.End) / 1e9
}
