package experiment

import (
	"fmt"
	"time"

	"blkq/engine"
)

// The 2008 nomerges report: fio, random 4 KiB asynchronous direct reads
// over each drive; nomerges=1 cut the block layer's CPU by 20-25% with
// I/O performance within 1%. Here 128 jobs read at random on sim:hdd for
// IOPS and merges; the request layer's CPU per I/O is measured on the
// wall clock, on the null device (where the device costs nothing), with
// the same jobs.
func nomergesJobs(scale float64) string {
	return fmt.Sprintf(`; 128 jobs of random 4 KiB direct reads (the 2008 report's fio setup)
[global]
ioengine=libaio
direct=1
bs=4k
rw=randread
iodepth=4
filename=/dev/sdb
norandommap
runtime=%.0fms
time_based

[random]
numjobs=128
`, scaled(60000, scale, 1000))
}

func init() {
	var configs []Config
	for _, nm := range []int{0, 1, 2} {
		configs = append(configs, Config{Name: fmt.Sprintf("nomerges=%d", nm), Options: engine.Options{NoMerges: nm}})
	}
	register(&Experiment{
		Name:    "nomerges",
		Title:   "nomerges 0/1/2: merges, IOPS and the request layer's CPU per I/O on random reads",
		Source:  "2008-nomerges-tunable.txt",
		Jobs:    nomergesJobs,
		Configs: configs,
		Analyze: analyzeNomerges,
	})
}

func analyzeNomerges(out []*Outcome) *Table {
	t := &Table{Columns: []string{"config", "IOPS (sim:hdd)", "merges", "requests", "ns/I/O (null, wall)", "reported (2008)"}}
	reported := []string{"CPU 7.58% of samples (I/O code)", "CPU 5.94%: -20-25%, IOPS within 1%", "(no figure: nomerges=2 came later)"}
	var iops, nsio []float64
	for i, o := range out {
		var ios, merges, reqs uint64
		var runtime float64
		for _, js := range o.Result.Run.Jobs {
			ios += js.Read.IOs
			merges += js.Blkq.BackMerges + js.Blkq.FrontMerges
			reqs += js.Blkq.RequestsIssued
			runtime = max(runtime, float64(js.Runtime)/1e9)
		}
		v := float64(ios) / runtime
		iops = append(iops, v)
		ns := nullNsPerIO(o.Config.Options.NoMerges)
		nsio = append(nsio, ns)
		t.Rows = append(t.Rows, []string{o.Config.Name, fmt.Sprintf("%.1f", v), num(merges), num(reqs), fmt.Sprintf("%.0f", ns), reported[i]})
	}
	for i := 1; i < 3; i++ {
		t.Notes = append(t.Notes, fmt.Sprintf("nomerges=%d vs 0: CPU per I/O %+.1f%% (2008: -20 to -25%% for nomerges=1): %s; IOPS %+.2f%% (2008: within 1%%): %s",
			i, pct(nsio[i], nsio[0]), yesNo(nsio[i] < nsio[0]), pct(iops[i], iops[0]), yesNo(abs(pct(iops[i], iops[0])) <= 1)))
	}
	t.Notes = append(t.Notes, "ns/I/O is wall time on this machine, measured on the null device with the same jobs: compare the three settings with one another, not with other machines. `go test -bench=RequestLayer .` measures the queue alone.")
	return t
}

func abs(v float64) float64 { return max(v, -v) }

// nullNsPerIO times the random-read load on the null device (wall clock)
// and returns ns per I/O.
func nullNsPerIO(nomerges int) float64 {
	src := `[global]
ioengine=libaio
direct=1
bs=4k
rw=randread
iodepth=4
filename=/dev/sdb
norandommap
number_ios=4000

[random]
numjobs=128
`
	// The least of three runs: wall time on a shared machine only ever
	// errs upwards.
	best := 0.0
	for range 3 {
		start := time.Now()
		res, err := runSource("nomerges-null", src, engine.Options{Device: "null", NoMerges: nomerges})
		if err != nil {
			return 0
		}
		var ios uint64
		for _, js := range res.Run.Jobs {
			ios += js.Read.IOs
		}
		if ios == 0 {
			return 0
		}
		ns := float64(time.Since(start).Nanoseconds()) / float64(ios)
		if best == 0 || ns < best {
			best = ns
		}
	}
	return best
}
