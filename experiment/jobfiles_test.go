package experiment

import (
	"testing"

	"github.com/blkq-dev/blkq/engine"
)

// TestJobFilesGroupEveryConfigUnderItsSource: every configuration is under
// exactly one job file, the one it runs; the sources are distinct.
func TestJobFilesGroupEveryConfigUnderItsSource(t *testing.T) {
	for _, e := range List() {
		seen, n := map[string]bool{}, 0
		for _, jf := range e.JobFiles(0.1) {
			if seen[jf.Source] || len(jf.Configs) == 0 {
				t.Errorf("%s: job file listed twice or for no configuration", e.Name)
			}
			seen[jf.Source] = true
			for _, c := range jf.Configs {
				src := e.Jobs(0.1)
				if c.Jobs != nil {
					src = c.Jobs(0.1)
				}
				if src != jf.Source {
					t.Errorf("%s: %s listed under a job file it does not run", e.Name, c.Name)
				}
				n++
			}
		}
		if n != len(e.Configs) {
			t.Errorf("%s: %d configurations listed, it has %d", e.Name, n, len(e.Configs))
		}
	}
}

// TestConfigDescribeNamesWhatItSets: the settings in Linux's names, in a
// fixed order; none set is "defaults".
func TestConfigDescribeNamesWhatItSets(t *testing.T) {
	c := Config{Options: engine.Options{Scheduler: "linus", Alloc: "legacy", NrRequests: 1024, NoMerges: 2, Attrs: [][2]string{{"iosched/fifo_batch", "8"}}}}
	if got, want := c.Describe(), "scheduler=linus alloc=legacy nr_requests=1024 nomerges=2 iosched/fifo_batch=8"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	c = Config{Options: engine.Options{Alloc: "fair", CPU: engine.DefaultCPUOptions(1)}}
	if got, want := c.Describe(), "alloc=fair cpus=1 context_switch=5µs submit=50µs timeslice=100ms"; got != want {
		t.Errorf("with the CPU model: Describe() = %q, want %q", got, want)
	}
	if got := (Config{}).Describe(); got != "defaults" {
		t.Errorf("no settings: %q", got)
	}
}
