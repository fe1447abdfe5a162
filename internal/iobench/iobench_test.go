package iobench

import (
	"strings"
	"testing"
	"time"
)

func TestJobFileIsFioSyntax(t *testing.T) {
	c := Case{Name: "x", RW: "randread", Jobs: 4, Direct: true, Engine: "libaio", IODepth: 32, Batch: 32}
	got := c.jobFile("/d/f", 1<<20, time.Second, 3*time.Second)
	for _, want := range []string{"[x]\n", "filename=/d/f\n", "size=1048576\n", "numjobs=4\n", "direct=1\n",
		"invalidate=0\n", "ramp_time=1000ms\n", "runtime=3000ms\n", "iodepth_batch_submit=32\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("job file lacks %q:\n%s", want, got)
		}
	}
}

// TestFioSample: IOPS add up over the jobs; CPU per I/O is the jobs' CPU
// (percent of their runtime) over their I/Os.
func TestFioSample(t *testing.T) {
	js := `fio: a note first
{"jobs":[{"read":{"total_ios":3000,"runtime":1000},"job_runtime":1000,"usr_cpu":20,"sys_cpu":10},
         {"read":{"total_ios":1000,"runtime":500},"job_runtime":500,"usr_cpu":50,"sys_cpu":50}]}`
	s, err := fioSample([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if s.IOPS != 5000 {
		t.Errorf("IOPS %v; want 3000 + 2000", s.IOPS)
	}
	// 0.3 s + 0.5 s of CPU over 4000 reads.
	if want := 0.8e9 / 4000; s.CPUNsPerIO != want {
		t.Errorf("CPU per I/O %v; want %v", s.CPUNsPerIO, want)
	}
	if _, err := fioSample([]byte(`{"jobs":[]}`)); err == nil {
		t.Error("a report with no reads gave no error")
	}
}

func TestMedian(t *testing.T) {
	ss := []Sample{{IOPS: 3}, {IOPS: 1}, {IOPS: 2}, {IOPS: 10}}
	if m := median(ss, func(s Sample) float64 { return s.IOPS }); m != 2.5 {
		t.Errorf("median %v; want 2.5", m)
	}
	if m := median(ss[:3], func(s Sample) float64 { return s.IOPS }); m != 2 {
		t.Errorf("median %v; want 2", m)
	}
}

func TestLookup(t *testing.T) {
	all, err := Lookup("all")
	if err != nil || len(all) != len(Cases) {
		t.Fatalf("all: %d cases, %v", len(all), err)
	}
	two, err := Lookup("read-4k-1job-buffered,randread-4k-1job-direct")
	if err != nil || len(two) != 2 || two[1].Name != "randread-4k-1job-direct" {
		t.Fatalf("two: %v, %v", two, err)
	}
	if _, err := Lookup("read,nope"); err == nil || !strings.Contains(err.Error(), `"read"`) {
		t.Fatalf("unknown case: %v", err)
	}
}
