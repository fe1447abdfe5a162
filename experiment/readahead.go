package experiment

import (
	"fmt"

	"github.com/blkq-dev/blkq/engine"
)

// readahead: under request pressure, a read-ahead allocation fails at once
// with fair allocation (free < batch) rather than sleep, so read-ahead
// never delays tasks asleep in allocation. 32 buffered sequential readers
// (read-ahead in flight) share the disk with 16 writers that keep the
// write pool under pressure; read pressure comes from the readers'
// read-ahead itself with a small read pool.
func readaheadJobs(scale float64) string {
	return fmt.Sprintf(`; 32 buffered sequential readers with read-ahead, 16 bursty writers
[global]
bs=4k
size=64m
runtime=%.0fms
time_based

[reader]
ioengine=psync
rw=read
direct=0
numjobs=32

[writer]
ioengine=libaio
direct=1
rw=randwrite
iodepth=16
iodepth_low=0
numjobs=16
`, scaled(30000, scale, 1000))
}

func init() {
	opt := func(policy, raKB string) engine.Options {
		return engine.Options{Alloc: policy, NrRequests: 32, Attrs: [][2]string{{"read_ahead_kb", raKB}}}
	}
	register(&Experiment{
		Name:   "readahead",
		Title:  "read-ahead under request pressure: dropped at once (fair) vs competing with sleepers",
		Source: source2002,
		Jobs:   readaheadJobs,
		Configs: []Config{
			{Name: "fair, read-ahead 128 KiB", Options: opt("fair", "128")},
			{Name: "fair, no read-ahead", Options: opt("fair", "0")},
			{Name: "legacy, read-ahead 128 KiB", Options: opt("legacy", "128")},
		},
		Analyze: analyzeReadahead,
	})
}

func analyzeReadahead(out []*Outcome) *Table {
	t := &Table{Columns: []string{"config", "RA dropped", "reader MB/s", "writer MB/s", "sleeps", "max sleep ms", "p99 sleep ms", "p50 sleep ms"}}
	var fig []allocFigures
	for _, o := range out {
		var dropped uint64
		var rbw, wbw float64
		for _, js := range o.Result.Run.Jobs {
			dropped += js.Blkq.DroppedReadAhead
			secs := float64(js.Runtime) / 1e9
			if secs <= 0 {
				continue
			}
			rbw += float64(js.Read.Bytes) / secs / 1e6
			wbw += float64(js.Write.Bytes) / secs / 1e6
		}
		f := figures(o)
		fig = append(fig, f)
		t.Rows = append(t.Rows, []string{o.Config.Name, num(dropped), f2(rbw), f2(wbw), num(f.sleeps), ms(f.maxWait), ms(f.p99), ms(f.p50)})
	}
	t.Notes = append(t.Notes,
		"2002, rule (a) of the patch's design: a read-ahead allocation fails at once while fewer than batch_requests requests are free, so that read-ahead can never keep a sleeper from being woken.",
		fmt.Sprintf("fair with read-ahead vs without: max sleep %.0f vs %.0f ms, p99 %.0f vs %.0f ms (2002: read-ahead never delays sleepers): %s", fig[0].maxWait, fig[1].maxWait, fig[0].p99, fig[1].p99, yesNo(fig[0].maxWait <= fig[1].maxWait*1.1)))
	t.Notes = append(t.Notes, fmt.Sprintf("The readers' throughput is the other side of the rule: under fair their read-ahead is dropped under pressure (%s bios here) and they read 4 KiB at a time, a seek each (%s MB/s), where legacy drops read-ahead only when no request at all is free (%s bios; %s MB/s).",
		t.Rows[0][1], t.Rows[0][2], t.Rows[2][1], t.Rows[2][2]))
	if fig[0].maxWait > fig[1].maxWait*1.1 {
		t.Notes = append(t.Notes, "Why not: read-ahead's own allocations are not what delays the sleepers (under fair a read-ahead bio takes a request only when free >= batch_requests, and the release that got there has already woken a sleeper). The running tasks' ordinary reads and writes are: fair lets them take any free request, and they keep the free count between 0 and batch_requests, so the wake-up never comes (the steady state conceded in the 2002 thread). Read-ahead makes that likelier: readers whose blocks it brought in keep running and need few requests.")
	}
	return t
}
