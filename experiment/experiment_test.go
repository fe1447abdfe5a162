package experiment

import (
	"fmt"
	"testing"
	"time"
)

// TestDeterministicTables: same seed, same table.
func TestDeterministicTables(t *testing.T) {
	e, _ := Get("wakeall")
	_, a, err := Run(e, Options{Seed: 3, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := Run(e, Options{Seed: 3, Scale: 0.05})
	if a.Format() != b.Format() {
		t.Fatalf("same seed, different tables:\n%s\n%s", a.Format(), b.Format())
	}
}

// TestEveryExperimentRuns runs each experiment briefly: each must produce
// a row per configuration and at least one note comparing with the report.
func TestEveryExperimentRuns(t *testing.T) {
	for _, e := range List() {
		outs, tab, err := Run(e, Options{Seed: 1, Scale: 0.02})
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if len(outs) != len(e.Configs) || len(tab.Rows) != len(e.Configs) || len(tab.Notes) == 0 {
			t.Fatalf("%s: %d outcomes, %d rows, %d notes for %d configs", e.Name, len(outs), len(tab.Rows), len(tab.Notes), len(e.Configs))
		}
	}
}

// TestReproducedDirections asserts, on short deterministic runs, the
// directions of the original reports that the model reproduces: wake-one
// wakes at most 60% as often as wake-all; fair's longest sleep is at most
// 3× its median; nomerges changes no IOPS on random reads (within 1%).
func TestReproducedDirections(t *testing.T) {
	e, _ := Get("wakeall")
	outs, _, err := Run(e, Options{Seed: 1, Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	one, all := figures(outs[0]), figures(outs[1])
	if float64(one.wakeups) > 0.6*float64(all.wakeups) {
		t.Errorf("wake-one %d wake-ups vs wake-all %d: want <= 60%%", one.wakeups, all.wakeups)
	}
	if one.maxOverMedian > 3 {
		t.Errorf("fair's max/median sleep %.2f, want <= 3", one.maxOverMedian)
	}
	e, _ = Get("nomerges")
	outs, _, err = Run(e, Options{Seed: 1, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var iops []float64
	for _, o := range outs {
		var ios uint64
		var secs float64
		for _, js := range o.Result.Run.Jobs {
			ios += js.Read.IOs
			secs = max(secs, float64(js.Runtime)/1e9)
		}
		iops = append(iops, float64(ios)/secs)
	}
	for i := 1; i < 3; i++ {
		if d := abs(pct(iops[i], iops[0])); d > 1 {
			t.Errorf("nomerges=%d changes IOPS by %.2f%%, want within 1%%", i, d)
		}
	}
}

// TestPassoversWriteback: the 20 streaming writers of the passovers
// experiment write through the page cache, so the writers themselves
// write back (balance_dirty) as well as the flusher; the wait histogram
// accounts for every request wait; both readers complete reads; with 1024
// requests the writes merge into larger requests and reads wait longer.
func TestPassoversWriteback(t *testing.T) {
	e, _ := Get("passovers")
	outs, _, err := Run(e, Options{Seed: 1, Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		pc := o.Result.PageCache
		if pc == nil || pc.Throttled == 0 || pc.WrittenThrottle == 0 || pc.WrittenFlusher == 0 {
			t.Fatalf("%s: page cache %+v: want throttled writers and the flusher writing back", o.Config.Name, pc)
		}
		f := passoverFigs(o)
		sum := 0
		for _, n := range f.buckets {
			sum += n
		}
		if sum != len(o.Waits) || f.waits != len(o.Waits) {
			t.Fatalf("%s: histogram holds %d waits, %d recorded", o.Config.Name, sum, len(o.Waits))
		}
		if f.readerMax <= 0 || f.writerMBps <= 0 {
			t.Fatalf("%s: reader max %.2f ms, writer %.2f MB/s", o.Config.Name, f.readerMax, f.writerMBps)
		}
	}
	// More requests let more of the writers' pages merge before dispatch
	// (the 2003 argument), and leave more writes queued ahead of reads.
	s128, s1024 := passoverFigs(outs[0]), passoverFigs(outs[1])
	if s1024.avgRequestKiB <= s128.avgRequestKiB || s1024.readerP99 <= s128.readerP99 {
		t.Errorf("stock, 1024 vs 128 requests: write requests %.1f vs %.1f KiB, reader p99 %.0f vs %.0f ms: want both larger",
			s1024.avgRequestKiB, s128.avgRequestKiB, s1024.readerP99, s128.readerP99)
	}
}

// TestStarvationBoundedness: on the dbench-like load, direct and through
// the page cache, legacy's longest sleep grows with the run (a sleeper can
// lose every race while the load lasts) while fair's stays put (one trip
// through the FIFO). Doubling the run changes fair's longest sleep by at
// most 10% direct, for every seed; it grows legacy's at least 1.4x direct,
// and through the page cache, where write-back bursts bound it, for every
// seed and by at least 1.2x on average over seeds 1-4 (one seed's growth
// ranged from 1.04x to 1.7x by seed before the page cache was bcache's,
// from 1.4x to 2.5x since: measured over seeds 1-8). Through the page
// cache fair's longest sleep stays below legacy's, for every seed, and
// grows by at most 10% on average over seeds 1-4: since each job reads
// ahead on its own sequential reads (bcache's per-client streams), the
// throttled writers run faster and, on some seeds, hold the write pool in
// the steady state conceded in the 2002 thread (the free count between 0
// and batch_requests, so no sleeper is woken) for part of the run: seed 3
// grows 1.23x, the others 1.00x (seeds 1-8: five of eight 1.00x). Fair
// also wakes tasks far less often and its longest sleep stays within 3x
// its median.
func TestStarvationBoundedness(t *testing.T) {
	e := *registry["starvation"]
	e.Configs = e.Configs[:4] // the runs without the CPU model (TestStarvationOnCPUs has the others)
	var bufGrowth, fairBufGrowth float64
	const seeds = 4
	for seed := uint64(1); seed <= seeds; seed++ {
		short, _, err := Run(&e, Options{Seed: seed, Scale: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		long, _, err := Run(&e, Options{Seed: seed, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i += 2 {
			name := fmt.Sprintf("seed %d: %s / %s", seed, short[i].Config.Name, short[i+1].Config.Name)
			ls, ll := figures(short[i]), figures(long[i])
			fs, fl := figures(short[i+1]), figures(long[i+1])
			buffered := i == 2
			if buffered {
				bufGrowth += ll.maxWait / ls.maxWait / seeds
				fairBufGrowth += fl.maxWait / fs.maxWait / seeds
				if fl.maxWait >= ll.maxWait {
					t.Errorf("%s: fair's longest sleep %.0f ms at the full run, legacy's %.0f ms: want fair's below", name, fl.maxWait, ll.maxWait)
				}
			}
			if ll.maxWait <= ls.maxWait || !buffered && ll.maxWait < 1.4*ls.maxWait {
				t.Errorf("%s: legacy's longest sleep %.0f ms at half the run, %.0f ms at the full run: want growth (>= 1.4x direct)", name, ls.maxWait, ll.maxWait)
			}
			if d := abs(fl.maxWait-fs.maxWait) / fs.maxWait; !buffered && d > 0.1 {
				t.Errorf("%s: fair's longest sleep %.0f ms at half the run, %.0f ms at the full run: want within 10%%", name, fs.maxWait, fl.maxWait)
			}
			if fl.wakeups >= ll.wakeups || fl.maxOverMedian > 3 {
				t.Errorf("%s: fair %d wake-ups vs legacy %d, fair max/median %.2f", name, fl.wakeups, ll.wakeups, fl.maxOverMedian)
			}
		}
	}
	if fairBufGrowth > 1.1 {
		t.Errorf("through the page cache, fair's longest sleep grows %.2fx on average over seeds 1-%d when the run doubles: want within 10%%", fairBufGrowth, seeds)
	}
	if bufGrowth < 1.2 {
		t.Errorf("through the page cache, legacy's longest sleep grows %.2fx on average over seeds 1-%d when the run doubles: want >= 1.2x", bufGrowth, seeds)
	}
}

// TestBufferedBatching: on the dbench-like load written through the page
// cache, waking a sleeper per freed request gives lower throughput than
// batching (2002: about 30% lower on dbench 64).
func TestBufferedBatching(t *testing.T) {
	e, _ := Get("batching")
	outs, _, err := Run(e, Options{Seed: 1, Scale: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	b, n := figures(outs[2]), figures(outs[3])
	if outs[3].Config.Name != "fair-nobatch (batch 1), buffered" {
		t.Fatalf("config %q", outs[3].Config.Name)
	}
	if n.mbps >= b.mbps {
		t.Errorf("buffered: %.2f MB/s waking per freed request vs %.2f MB/s batching: want lower", n.mbps, b.mbps)
	}
}

// TestTiobenchSeqRead32: with 32 sequential readers on a 2.4.18 queue,
// legacy's longest read is at least 10x fair's (2002: 193,590 vs 7,032 ms).
func TestTiobenchSeqRead32(t *testing.T) {
	e := *registry["tiobench"]
	var cs []Config
	for _, c := range e.Configs {
		if c.Name == "seq read, 32 threads, legacy" || c.Name == "seq read, 32 threads, fair" {
			cs = append(cs, c)
		}
	}
	e.Configs = cs
	e.Analyze = func([]*Outcome) *Table { return &Table{} }
	outs, _, err := Run(&e, Options{Seed: 1, Scale: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	maxLat := func(o *Outcome) float64 {
		var m int64
		for _, js := range o.Result.Run.Jobs {
			m = max(m, js.Read.Lat.Max())
		}
		return float64(m)
	}
	l, f := maxLat(outs[0]), maxLat(outs[1])
	if l < 10*f {
		t.Fatalf("max read latency legacy %.0f ms vs fair %.0f ms: want >= 10x", l/1e6, f/1e6)
	}
}

// configsNamed returns a copy of the named experiment that runs only the
// configurations named, in that order, with no table.
func configsNamed(t *testing.T, name string, configs ...string) *Experiment {
	t.Helper()
	e := *registry[name]
	e.Configs = nil
	for _, n := range configs {
		found := false
		for _, c := range registry[name].Configs {
			if c.Name == n {
				e.Configs, found = append(e.Configs, c), true
			}
		}
		if !found {
			t.Fatalf("%s: no configuration %q", name, n)
		}
	}
	e.Analyze = func([]*Outcome) *Table { return &Table{} }
	return &e
}

// TestStarvationOnCPUs: on the CPU model (one CPU), for seeds 1 and 2,
// legacy's and fair's longest sleeps stop growing: the same within 5% at
// the full run and at twice it; fair's tasks switch at most 0.6 times as
// often as legacy's (2002: 29,000 vs 57,000). The order woken tasks run
// in is what makes legacy starve: run in the order they were woken
// without the model (no jitter), legacy's longest sleep is within 10% of
// fair's, and on the model with CPU time free within 20%. As fio drives
// these writers (engine/batch.go: nothing is reaped before a 4096-deep
// queue fills, so they never think) every one is asleep in allocation
// whenever it has work, no task runs to take freed requests first, and
// at 50 µs a submission legacy's longest sleep is within 10% of fair's
// too (before fio's reaping was modelled it was 1.5x the free one's).
func TestStarvationOnCPUs(t *testing.T) {
	e := configsNamed(t, "starvation", "legacy, 1 CPU", "fair, 1 CPU")
	for seed := uint64(1); seed <= 2; seed++ {
		var longest [2][2]float64 // [scale][legacy, fair]
		for i, scale := range []float64{1, 2} {
			outs, _, err := Run(e, Options{Seed: seed, Scale: scale})
			if err != nil {
				t.Fatal(err)
			}
			l, f := figures(outs[0]), figures(outs[1])
			longest[i] = [2]float64{l.maxWait, f.maxWait}
			if l.maxWait > 1.1*f.maxWait || l.maxWait < 0.9*f.maxWait {
				t.Errorf("seed %d, scale %g: legacy's longest sleep %.0f ms, fair's %.0f ms: want within 10%%", seed, scale, l.maxWait, f.maxWait)
			}
			lc, fc := cpuFigs(outs[0]), cpuFigs(outs[1])
			if float64(fc.switches) > 0.6*float64(lc.switches) {
				t.Errorf("seed %d, scale %g: %d context switches under fair, %d under legacy: want at most 0.6x", seed, scale, fc.switches, lc.switches)
			}
		}
		for k, who := range []string{"legacy", "fair"} {
			if g := longest[1][k] / longest[0][k]; g > 1.05 {
				t.Errorf("seed %d: %s's longest sleep grows %.2fx when the run doubles (%.0f to %.0f ms): want at most 1.05x", seed, who, g, longest[0][k], longest[1][k])
			}
		}
	}
	outs, _, err := Run(configsNamed(t, "starvation", "fair", "legacy, no jitter", "legacy, 1 CPU, CPU time free", "legacy, 1 CPU"), Options{Seed: 1, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	fair, noJitter, free, cpu := figures(outs[0]), figures(outs[1]), figures(outs[2]), figures(outs[3])
	if noJitter.maxWait > 1.1*fair.maxWait || free.maxWait > 1.2*fair.maxWait || cpu.maxWait > 1.2*fair.maxWait {
		t.Errorf("longest sleeps: fair %.0f ms; legacy without jitter %.0f, on a CPU free of cost %.0f, at 50 µs a submission %.0f: want within 10%%, 20%% and 20%% of fair's",
			fair.maxWait, noJitter.maxWait, free.maxWait, cpu.maxWait)
	}
}

// TestBatchingOnCPUs: on one CPU, waking a sleeper per freed request
// makes the tasks switch at least 1.5x as often as batching does (2002:
// batching "will certainly decrease the context switch rate very much"),
// yet the CPU stays under 20% busy, so the throughput's direction is the
// one without the model, for direct writes and through the page cache.
func TestBatchingOnCPUs(t *testing.T) {
	outs, _, err := Run(configsNamed(t, "batching", "fair (batch 32), 1 CPU", "fair-nobatch (batch 1), 1 CPU",
		"fair (batch 32), buffered, 1 CPU", "fair-nobatch (batch 1), buffered, 1 CPU"), Options{Seed: 1, Scale: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	plain, _, err := Run(configsNamed(t, "batching", "fair (batch 32)", "fair-nobatch (batch 1)",
		"fair (batch 32), buffered", "fair-nobatch (batch 1), buffered"), Options{Seed: 1, Scale: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	for i, how := range []string{"direct", "buffered"} {
		b, n := outs[2*i], outs[2*i+1]
		bc, nc := cpuFigs(b), cpuFigs(n)
		if float64(nc.switches) < 1.5*float64(bc.switches) || bc.util > 20 || nc.util > 20 {
			t.Errorf("%s: %d switches without batching, %d with, the CPU %.0f%% and %.0f%% busy: want >= 1.5x and both under 20%%", how, nc.switches, bc.switches, nc.util, bc.util)
		}
		bm, nm := figures(b).mbps, figures(n).mbps
		pb, pn := figures(plain[2*i]).mbps, figures(plain[2*i+1]).mbps
		if (nm < bm) != (pn < pb) {
			t.Errorf("%s: %.2f MB/s without batching, %.2f with; without the model %.2f and %.2f: want the same direction", how, nm, bm, pn, pb)
		}
	}
}

// TestWakeallOnCPUs: on one CPU with direct writes, exclusive wake-one
// switches at most 0.6x as often as wake-all (2002: the exclusive wait
// "reduces the context switch rate by 50%") and uses less CPU time.
func TestWakeallOnCPUs(t *testing.T) {
	outs, _, err := Run(configsNamed(t, "wakeall", "fair (wake-one), 1 CPU", "fair-wakeall, 1 CPU"), Options{Seed: 1, Scale: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	one, all := cpuFigs(outs[0]), cpuFigs(outs[1])
	if float64(one.switches) > 0.6*float64(all.switches) || one.busySecs >= all.busySecs {
		t.Errorf("wake-one %d switches, %.2f s of CPU; wake-all %d, %.2f s: want at most 0.6x the switches and less CPU", one.switches, one.busySecs, all.switches, all.busySecs)
	}
}

// TestPreemptLatencyFollowsTheSection: the probe's longest wake-up
// latency is at least 90% of the longest section and at most the model's
// bound (the section and a context switch), on one CPU and on two; with a
// break point every 0.4 or 0.1 ms it is at most the bound the break sets,
// below a quarter of the unbroken one's, and the writers keep at least 95%
// of their throughput; without sections, at most a submission and two
// switches.
func TestPreemptLatencyFollowsTheSection(t *testing.T) {
	e, _ := Get("preempt")
	outs, _, err := Run(e, Options{Seed: 1, Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	figs := map[string]preemptFigures{}
	for _, o := range outs {
		f := preemptFigs(o)
		figs[o.Config.Name] = f
		c := o.Config.Options.CPU
		bound := float64(f.bound) / 1e6
		if f.maxMs > bound || f.probeWakes == 0 {
			t.Errorf("%s: longest latency %.3f ms over %d wake-ups, want some, at most the bound %.3f ms", o.Config.Name, f.maxMs, f.probeWakes, bound)
		}
		if c.Section > 0 && c.LockBreak == 0 && f.maxMs < 0.9*float64(c.Section)/1e6 {
			t.Errorf("%s: longest latency %.3f ms, want at least 90%% of the section", o.Config.Name, f.maxMs)
		}
	}
	if f := figs["no section"]; f.bound != 60*time.Microsecond {
		t.Errorf("no section: bound %v, want a submission and two switches, 60 µs", f.bound)
	}
	base := figs["section 8 ms"]
	for _, name := range []string{"section 8 ms, break 0.4 ms", "section 8 ms, break 0.1 ms"} {
		if f := figs[name]; f.maxMs >= base.maxMs/4 || f.writerMBps < 0.95*base.writerMBps {
			t.Errorf("%s: longest latency %.3f ms (unbroken %.3f), writers %.2f MB/s (unbroken %.2f)", name, f.maxMs, base.maxMs, f.writerMBps, base.writerMBps)
		}
	}
}

// TestStarvationOneCPUOrder asserts why the direct 1-CPU pair loses fair's
// advantage: on one CPU legacy grants requests in fair's order, wait for
// wait, its other woken tasks sleeping again, while no woken fair task is
// robbed of its batch (one sleep per wait).
func TestStarvationOneCPUOrder(t *testing.T) {
	e := configsNamed(t, "starvation", "legacy, 1 CPU", "fair, 1 CPU")
	for seed := uint64(1); seed <= 2; seed++ {
		outs, _, err := Run(e, Options{Seed: seed, Scale: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		l, f := figures(outs[0]), figures(outs[1])
		if !sameWaits(outs[0].Waits, outs[1].Waits) {
			t.Errorf("seed %d: legacy's %d waits differ from fair's %d: want the same tasks, ends and lengths", seed, len(outs[0].Waits), len(outs[1].Waits))
		}
		if int(f.sleeps) != len(outs[1].Waits) {
			t.Errorf("seed %d: fair slept %d times for %d waits: want one sleep per wait", seed, f.sleeps, len(outs[1].Waits))
		}
		if int(l.sleeps) <= len(outs[0].Waits) {
			t.Errorf("seed %d: legacy slept %d times for %d waits: want futile wake-ups", seed, l.sleeps, len(outs[0].Waits))
		}
	}
}
