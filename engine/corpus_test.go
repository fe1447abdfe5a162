package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/workload/fio"
)

const corpusDir = "../testdata/fio-3.33"

// notEmulated lists the corpus files whose engine blkq does not emulate,
// with the option the error must name.
var notEmulated = map[string]string{
	"nbd.fio": "ioengine=nbd",
}

// TestCorpusCapped runs every fio example job file unmodified on sim:hdd,
// capped to 2 s of virtual time and 16 MiB per job so that the whole set
// stays quick (the full-size runs are scripts/corpus.sh). Each must give a
// report for every job, or, for an engine blkq does not emulate, one line
// naming the option. Those that ask for logs write them (disk-zone-profile's
// bandwidth log is checked).
func TestCorpusCapped(t *testing.T) {
	// A time-based job whose file fits in the page cache ends up with
	// every I/O a hit, 1 µs of virtual time per 4 KiB (bcache's copy cost)
	// and a few µs of real CPU: steadystate.fio's four random readers made
	// 8 million I/Os in 2 s, 30 s of CPU, ten minutes under -race. At
	// 100 ms both of its groups still run (writes, then reads from the
	// disk) before the cache is warm. Steady state does not end it
	// sooner: its ss_ramp+ss_dur (15 s and 40 s) outlast any cap here;
	// TestSteadyStateCorpusEndsEarly runs it whole, uncapped (128 MiB
	// regions, so the reads miss the cache: 2 s of CPU).
	shortRuntimeCap := map[string]time.Duration{
		"steadystate.fio": 100 * time.Millisecond,
	}
	dir, err := filepath.Abs(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.fio"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s: %v", corpusDir, err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			// The logs some examples write (write_bw_log, ...) go to
			// the current directory, as fio's do: a temporary one.
			t.Chdir(t.TempDir())
			jf, err := fio.ParseFile(path)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if opt, ok := notEmulated[name]; ok {
				err := CheckEngines(jf)
				if err == nil || !strings.Contains(err.Error(), opt) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("want a one-line error naming %s, got %v", opt, err)
				}
				return
			}
			runtimeCap := 2 * time.Second
			if c, ok := shortRuntimeCap[name]; ok {
				runtimeCap = c
			}
			res, err := Run(jf, Options{SizeCap: 16 << 20, RuntimeCap: runtimeCap})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			want := 0
			for _, j := range jf.Jobs {
				want += max(j.NumJobs, 1)
			}
			if len(res.Run.Jobs) != want {
				t.Fatalf("%d job reports, want %d", len(res.Run.Jobs), want)
			}
			for _, js := range res.Run.Jobs {
				if js.Error != 0 {
					t.Errorf("job %s: error %s", js.Name, js.ErrorText)
				}
			}
			if name == "disk-zone-profile.fio" {
				if fi, err := os.Stat("disk-zone-profile_bw.1.log"); err != nil || fi.Size() == 0 {
					t.Errorf("bandwidth log: %v", err)
				}
			}
		})
	}
}
