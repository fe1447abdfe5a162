package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLatencyOptionsCheckNamesTheOption: each option out of range is an
// *OptionError naming it, before anything runs or a file is made.
func TestLatencyOptionsCheckNamesTheOption(t *testing.T) {
	dir := t.TempDir()
	ok := LatencyOptions{Duration: time.Second, Interval: time.Millisecond, Writers: 2, Dir: dir}
	if err := ok.Check(); err != nil {
		t.Fatalf("valid options: %v", err)
	}
	for _, tc := range []struct {
		name string
		set  func(*LatencyOptions)
	}{
		{"duration", func(o *LatencyOptions) { o.Duration = 0 }},
		{"writers", func(o *LatencyOptions) { o.Writers = -1 }},
		{"writers", func(o *LatencyOptions) { o.Writers = MaxLatencyWriters + 1 }},
		{"interval", func(o *LatencyOptions) { o.Interval = ProbeResolution() - 1 }},
		{"interval", func(o *LatencyOptions) { o.Interval = o.Duration }},
	} {
		o := ok
		tc.set(&o)
		_, err := Latency(o)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Name != tc.name {
			t.Errorf("%+v: %v; want an OptionError naming %s", o, err, tc.name)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a refused run left %d files", len(ents))
	}
}

// TestLatencyMeasuresUnderLoadAndRemovesTheScratchFile: a short run takes
// at most one sample per period, counts each in one histogram bucket,
// writes whole pages through the cache, times holds of all three locks,
// and leaves no scratch file.
func TestLatencyMeasuresUnderLoadAndRemovesTheScratchFile(t *testing.T) {
	dir := t.TempDir()
	var scratch string
	r, err := Latency(LatencyOptions{Duration: 200 * time.Millisecond, Interval: time.Millisecond, Writers: 2, Dir: dir, CPUHold: true,
		Scratch: func(p string) { scratch = p }})
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Lat.Count(); n < 1 || n > 200 {
		t.Errorf("%d samples in 200 periods; want 1 to 200", n)
	}
	sum := 0
	for _, b := range r.Histogram {
		sum += b.Count
	}
	if sum != int(r.Lat.Count()) || len(r.Histogram) != len(latencyBounds)+1 {
		t.Errorf("histogram holds %d samples in %d buckets; want %d in %d", sum, len(r.Histogram), r.Lat.Count(), len(latencyBounds)+1)
	}
	if r.Written <= 0 || r.Written%4096 != 0 {
		t.Errorf("written %d bytes; want whole 4 KiB pages, some", r.Written)
	}
	for name, s := range map[string]int64{"queue": int64(r.QueueLock.Holds), "cache": int64(r.CacheLock.Holds), "control": int64(r.Control.Holds)} {
		if s == 0 {
			t.Errorf("%s lock: no holds timed", name)
		}
	}
	if filepath.Dir(scratch) != dir {
		t.Errorf("scratch file %q, want it in %s", scratch, dir)
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("scratch file left behind: %v", err)
	}
}

// TestLatencyStopBeforeTheStartRunsNothing: with Stop already closed no
// writer starts and the probe takes no sample; the file is removed.
func TestLatencyStopBeforeTheStartRunsNothing(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	close(stop)
	r, err := Latency(LatencyOptions{Duration: time.Hour, Interval: time.Millisecond, Writers: 1000, Dir: dir, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if r.Lat.Count() != 0 || r.Written != 0 {
		t.Errorf("stopped run: %d samples, %d bytes written; want none", r.Lat.Count(), r.Written)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files", len(ents))
	}
}

// TestLatencyHistogramBuckets: a sample of exactly a bound falls in the
// bucket above it; one beyond the last bound in the open bucket.
func TestLatencyHistogramBuckets(t *testing.T) {
	h := latencyHistogram([]int64{0, 9_999, 10_000, 19_999, 10_000_000, 3e9})
	want := map[int]int{0: 2, 1: 2, len(latencyBounds): 2}
	for i, b := range h {
		if b.Count != want[i] {
			t.Errorf("bucket %d [%d, %d) µs: %d samples, want %d", i, b.LoUs, b.HiUs, b.Count, want[i])
		}
	}
	if last := h[len(h)-1]; last.LoUs != 10000 || last.HiUs != 0 {
		t.Errorf("open bucket %+v", last)
	}
}
