package experiment

import (
	"fmt"

	"github.com/blkq-dev/blkq"
)

// batching and wakeall run the starvation experiment's dbench-like load,
// with direct writes and with writes through the page cache (as dbench's
// were), under variants of the fair allocator that differ in one rule each.

func init() {
	batching := withBuffered([]Config{
		{Name: "fair (batch 32)", Options: dbenchOptions("fair")},
		{Name: "fair-nobatch (batch 1)", Options: dbenchOptions("fair-nobatch")},
	})
	register(&Experiment{
		Name:    "batching",
		Title:   "fair allocation with batching vs waking a sleeper as soon as any request is freed",
		Source:  source2002,
		Jobs:    dbenchJobs,
		Configs: append(batching, withCPUs(batching, cpus2002)...),
		Analyze: func(out []*Outcome) *Table {
			t := wakeTable(out)
			for i := 0; i+1 < len(out); i += 2 {
				b, n := figures(out[i]), figures(out[i+1])
				t.Notes = append(t.Notes, fmt.Sprintf("%s: throughput without batching vs with: %+.1f%% (2002: waking per freed request cost about 30%% of dbench throughput): %s; write requests %.1f vs %.1f KiB",
					writesOf(out, i), pct(n.mbps, b.mbps), yesNo(n.mbps < b.mbps), writeRequestKiB(out[i+1]), writeRequestKiB(out[i])))
				if out[i].Result.CPU != nil {
					bc, nc := cpuFigs(out[i]), cpuFigs(out[i+1])
					t.Notes = append(t.Notes, fmt.Sprintf("%s: context switches without batching %d vs %d with (x%.1f; 2002: batching 'will certainly decrease the context switch rate very much'); CPU time %.2f s vs %.2f s, the CPU at most %.0f%% busy: it has time to spare, so the extra switches cannot cost throughput here",
						writesOf(out, i), nc.switches, bc.switches, float64(nc.switches)/float64(max(bc.switches, 1)), nc.busySecs, bc.busySecs, max(nc.util, bc.util)))
				}
			}
			t.Notes = append(t.Notes, "The throughput follows the request size, which is a seek each on this disk. Through the page cache a woken writer's 32-page write-back goes out in one go when it gets a batch of requests, and is cut up when it gets one request per wake-up. Direct writes go out one 4 KiB bio per io_submit (fio's iodepth_batch_submit=1) and merge in the elevator to the 64 KiB limit either way: their requests are the same size with and without batching. Without the CPU model nothing is charged for the extra wake-ups; on it (the 1 CPU rows) they cost CPU time, but a seek-bound disk leaves the CPU mostly idle, so the CPUs do not decide this result: the direction is the same with them and without.")
			return t
		},
	})
	wakeall := withBuffered([]Config{
		{Name: "fair (wake-one)", Options: dbenchOptions("fair")},
		{Name: "fair-wakeall", Options: dbenchOptions("fair-wakeall")},
	})
	register(&Experiment{
		Name:    "wakeall",
		Title:   "exclusive wake-one vs wake-all, with otherwise identical FIFO rules",
		Source:  source2002,
		Jobs:    dbenchJobs,
		Configs: append(wakeall, withCPUs(wakeall, cpus2002)...),
		Analyze: func(out []*Outcome) *Table {
			t := wakeTable(out)
			for i := 0; i+1 < len(out); i += 2 {
				one, all := figures(out[i]), figures(out[i+1])
				t.Notes = append(t.Notes, fmt.Sprintf("%s: wake-ups, wake-one / wake-all = %.2f (target <= 0.60; 2002: wake-all's thundering herd): %s",
					writesOf(out, i), float64(one.wakeups)/float64(max(all.wakeups, 1)), yesNo(float64(one.wakeups) <= 0.6*float64(all.wakeups))))
				if out[i].Result.CPU != nil {
					oc, ac := cpuFigs(out[i]), cpuFigs(out[i+1])
					r := float64(oc.switches) / float64(max(ac.switches, 1))
					t.Notes = append(t.Notes, fmt.Sprintf("%s: context switches, wake-one / wake-all = %.2f (2002: 'it is the exclusive wait which reduces the context switch rate by 50%%'; target <= 0.60): %s; CPU time %.2f s vs %.2f s. Wake-ups for a request are %d of wake-one's %d switches and %d of wake-all's %d: the rest are the tasks' other waits (their I/O, their thinktime), which the herd does not add to, so the fewer the waits for requests, the less the herd shows in the total.",
						writesOf(out, i), r, yesNo(r <= 0.6), oc.busySecs, ac.busySecs, one.wakeups, oc.switches, all.wakeups, ac.switches))
				}
			}
			return t
		},
	})
}

// withBuffered returns cs followed by the same configurations on the
// load written through the page cache.
func withBuffered(cs []Config) []Config {
	out := append([]Config(nil), cs...)
	for _, c := range cs {
		c.Name += ", buffered"
		c.Jobs = dbenchBufferedJobs
		out = append(out, c)
	}
	return out
}

// writesOf names the pair of configurations that begins at out[i]:
// direct or buffered writes, with or without the CPU model.
func writesOf(out []*Outcome, i int) string {
	s := "direct writes"
	if out[i].Config.Jobs != nil {
		s = "buffered writes"
	}
	if c := out[i].Config.Options.CPU; c.CPUs > 0 {
		s += cpuSuffix(c.CPUs)
	}
	return s
}

func wakeTable(out []*Outcome) *Table {
	t := &Table{Columns: append([]string{"config", "MB/s", "write rq KiB", "sleeps", "wake-ups", "max sleep ms", "p99 ms", "Jain"}, cpuColumns...)}
	for _, o := range out {
		f := figures(o)
		t.Rows = append(t.Rows, append([]string{o.Config.Name, f2(f.mbps), fmt.Sprintf("%.1f", writeRequestKiB(o)), num(f.sleeps), num(f.wakeups), ms(f.maxWait), ms(f.p99), f3(f.jain)}, cpuCells(o)...))
	}
	return t
}

// writeRequestKiB is the average write request the disk completed, KiB.
func writeRequestKiB(o *Outcome) float64 {
	d := o.Result.Disk
	if d.IOs[blkq.OpWrite] == 0 {
		return 0
	}
	return float64(d.Sectors[blkq.OpWrite]) * 512 / float64(d.IOs[blkq.OpWrite]) / 1024
}
