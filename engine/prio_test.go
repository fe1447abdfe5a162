package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// corpusPrioRun runs a cmdprio example of fio's on sim:ssd for a few
// seconds of each job, its lat logs in a temporary directory, and
// returns the result, the priorities of the bios queued per section and
// block size, and the log directory.
func corpusPrioRun(t *testing.T, name string) (*Result, map[string]map[uint32]map[uint16]int, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("../testdata/fio-3.33", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := strings.ReplaceAll(string(src), "write_lat_log=prio-run.log", "write_lat_log="+filepath.Join(dir, "prio-run.log"))
	jf, err := fio.ParseConfig(name, []byte(body), fio.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jf.Ignored) != 0 {
		t.Fatalf("ignored %v", jf.Ignored)
	}
	seen := map[string]map[uint32]map[uint16]int{}
	pids := map[int]string{}
	tr := blkq.TracerFunc(func(e *blkq.Event) {
		if e.Action != 'Q' || e.Bio == nil || e.Task == nil {
			return
		}
		sec := e.Task.Name
		if pids[e.PID] == "" {
			pids[e.PID] = sec
		}
		if seen[sec] == nil {
			seen[sec] = map[uint32]map[uint16]int{}
		}
		key := e.Sectors<<9 | uint32(e.Op&1) // size, read 0 / write 1
		if seen[sec][key] == nil {
			seen[sec][key] = map[uint16]int{}
		}
		seen[sec][key][e.Bio.Prio]++
	})
	res, err := Run(jf, Options{Device: "sim:ssd", RuntimeCap: 4 * time.Second, Tracers: []blkq.Tracer{tr}})
	if err != nil {
		t.Fatal(err)
	}
	return res, seen, dir
}

// share is n's percentage of the counts in m.
func share(m map[uint16]int, p uint16) float64 {
	total := 0
	for _, n := range m {
		total += n
	}
	return 100 * float64(m[p]) / float64(max(total, 1))
}

// TestCmdprioPercentage: fio's cmdprio-percentage.fio sends 20% of its
// reads at the real-time class (cmdprio_class=1) and the rest at the
// job's idle class (prioclass=3); each bio carries its priority, the
// report has fio's per-priority latencies (normal "clat prio 1/0" lines,
// JSON "prios" with prioclass and prio) and the lat log's priority column
// (log_prio=1) fio's ioprio values.
func TestCmdprioPercentage(t *testing.T) {
	res, seen, dir := corpusPrioRun(t, "cmdprio-percentage.fio")
	var reads map[uint16]int
	for _, bySize := range seen {
		reads = bySize[128<<10|0]
	}
	if s := share(reads, 1<<13); s < 18 || s > 22 || len(reads) != 2 || reads[3<<13] == 0 {
		t.Fatalf("priorities of the reads %v: %.1f%% real-time, want 20%% of 1/0, the rest 3/0", reads, s)
	}
	ds := res.Run.Jobs[0].Read
	if len(ds.Prios) != 2 || ds.Prios[0].Prio != 3<<13 || ds.Prios[1].Prio != 1<<13 || uint64(ds.Prios[0].Lat.Count()+ds.Prios[1].Lat.Count()) != ds.IOs {
		t.Fatalf("per-priority latencies %+v of %d reads", ds.Prios, ds.IOs)
	}
	var normal, js bytes.Buffer
	if err := report.WriteNormal(&normal, res.Run); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(&js, res.Run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"    clat prio 3/0 (", "    clat prio 1/0 ("} {
		if !strings.Contains(normal.String(), want) {
			t.Errorf("normal report lacks %q", want)
		}
	}
	if !strings.Contains(normal.String(), "% of IOs) percentiles (") {
		t.Errorf("no per-priority percentiles in\n%s", normal.String())
	}
	if !strings.Contains(js.String(), "\"prios\" : [\n          {\n            \"prioclass\" : 3,\n            \"prio\" : 0,\n            \"clat_ns\" : {") {
		t.Errorf("JSON lacks fio's prios entries")
	}
	clat, err := os.ReadFile(filepath.Join(dir, "prio-run.log_clat.1.log"))
	if err != nil {
		t.Fatal(err)
	}
	if c := string(clat); !strings.Contains(c, ", 0, 131072, 0x2000\n") || !strings.Contains(c, ", 0, 131072, 0x6000\n") {
		t.Errorf("clat log lacks reads at 0x2000 and 0x6000:\n%.300s", c)
	}
}

// TestCmdprioBSSplit: fio's cmdprio-bssplit.fio gives priorities per
// block size: its first job sends every 64 KiB read at 1/0 and the 1 MiB
// reads and writes with none; the second 25% of the 64 KiB reads at 1/1
// and 75% at 3/2; the third likewise, with its own 2/7 for the rest.
func TestCmdprioBSSplit(t *testing.T) {
	_, seen, _ := corpusPrioRun(t, "cmdprio-bssplit.fio")
	const k64r, m1r, m1w = 64 << 10, 1 << 20, 1<<20 | 1
	check := func(sec string, key uint32, want map[uint16]float64) {
		got := seen[sec][key]
		if len(got) != len(want) {
			t.Errorf("%s, %d bytes op %d: priorities %v, want %v", sec, key&^1, key&1, got, want)
			return
		}
		for p, w := range want {
			if s := share(got, p); s < w-4 || s > w+4 {
				t.Errorf("%s, %d bytes op %d: %.1f%% at %s, want %.0f%% (%v)", sec, key&^1, key&1, s, prioText(p), w, got)
			}
		}
	}
	check("cmdprio", k64r, map[uint16]float64{1 << 13: 100})
	check("cmdprio", m1r, map[uint16]float64{0: 100})
	check("cmdprio", m1w, map[uint16]float64{0: 100})
	check("cmdprio-adv", k64r, map[uint16]float64{1<<13 | 1: 25, 3<<13 | 2: 75})
	check("cmdprio-adv", m1w, map[uint16]float64{0: 100})
	check("cmdprio-adv-def", k64r, map[uint16]float64{1<<13 | 1: 25, 3<<13 | 2: 75})
	check("cmdprio-adv-def", m1r, map[uint16]float64{2<<13 | 7: 100})
}

func prioText(p uint16) string { return string(rune('0'+p>>13)) + "/" + string(rune('0'+p&7)) }
