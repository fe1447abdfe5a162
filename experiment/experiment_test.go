package experiment

import (
	"fmt"
	"testing"
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
	e, _ := Get("starvation")
	var bufGrowth, fairBufGrowth float64
	const seeds = 4
	for seed := uint64(1); seed <= seeds; seed++ {
		short, _, err := Run(e, Options{Seed: seed, Scale: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		long, _, err := Run(e, Options{Seed: seed, Scale: 1})
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
