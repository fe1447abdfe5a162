package experiment

import (
	"fmt"

	"github.com/blkq-dev/blkq"
)

// batching and wakeall run the starvation experiment's dbench-like load,
// with direct writes and with writes through the page cache (as dbench's
// were), under variants of the fair allocator that differ in one rule each.

func init() {
	register(&Experiment{
		Name:   "batching",
		Title:  "fair allocation with batching vs waking a sleeper as soon as any request is freed",
		Source: source2002,
		Jobs:   dbenchJobs,
		Configs: withBuffered([]Config{
			{Name: "fair (batch 32)", Options: dbenchOptions("fair")},
			{Name: "fair-nobatch (batch 1)", Options: dbenchOptions("fair-nobatch")},
		}),
		Analyze: func(out []*Outcome) *Table {
			t := wakeTable(out)
			for i := 0; i+1 < len(out); i += 2 {
				b, n := figures(out[i]), figures(out[i+1])
				t.Notes = append(t.Notes, fmt.Sprintf("%s: throughput without batching vs with: %+.1f%% (2002: waking per freed request cost about 30%% of dbench throughput): %s; write requests %.1f vs %.1f KiB",
					writesOf(i), pct(n.mbps, b.mbps), yesNo(n.mbps < b.mbps), writeRequestKiB(out[i+1]), writeRequestKiB(out[i])))
			}
			t.Notes = append(t.Notes, "The throughput follows the request size, which is a seek each on this disk. Through the page cache a woken writer's 32-page write-back goes out in one go when it gets a batch of requests, and is cut up when it gets one request per wake-up. With direct writes the requests come out larger without batching, and the direction reverses. The model charges nothing for the extra wake-ups themselves.")
			return t
		},
	})
	register(&Experiment{
		Name:   "wakeall",
		Title:  "exclusive wake-one vs wake-all, with otherwise identical FIFO rules",
		Source: source2002,
		Jobs:   dbenchJobs,
		Configs: withBuffered([]Config{
			{Name: "fair (wake-one)", Options: dbenchOptions("fair")},
			{Name: "fair-wakeall", Options: dbenchOptions("fair-wakeall")},
		}),
		Analyze: func(out []*Outcome) *Table {
			t := wakeTable(out)
			for i := 0; i+1 < len(out); i += 2 {
				one, all := figures(out[i]), figures(out[i+1])
				t.Notes = append(t.Notes, fmt.Sprintf("%s: wake-ups, wake-one / wake-all = %.2f (target <= 0.60; 2002: wake-all's thundering herd): %s",
					writesOf(i), float64(one.wakeups)/float64(max(all.wakeups, 1)), yesNo(float64(one.wakeups) <= 0.6*float64(all.wakeups))))
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

// writesOf names the half of a withBuffered list that index i is in.
func writesOf(i int) string {
	if i >= 2 {
		return "buffered writes"
	}
	return "direct writes"
}

func wakeTable(out []*Outcome) *Table {
	t := &Table{Columns: []string{"config", "MB/s", "write rq KiB", "sleeps", "wake-ups", "max sleep ms", "p99 ms", "Jain"}}
	for _, o := range out {
		f := figures(o)
		t.Rows = append(t.Rows, []string{o.Config.Name, f2(f.mbps), fmt.Sprintf("%.1f", writeRequestKiB(o)), num(f.sleeps), num(f.wakeups), ms(f.maxWait), ms(f.p99), f3(f.jain)})
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
