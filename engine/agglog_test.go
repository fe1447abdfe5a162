package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/workload/fio"
)

// TestBandwidthLogOnTheVirtualClock: fio's aggregate bandwidth logs of a
// simulated run have one line per direction every 500 ms of virtual
// time, in fio's format (time, KiB/s, direction, 0, 0), no line in
// ramp_time, and the read log's lines add up to the bytes the job read
// after its ramp (each line a rate over 500 ms, truncated to KiB/s).
func TestBandwidthLogOnTheVirtualClock(t *testing.T) {
	jf, err := fio.Parse("agg.fio", []byte("[r]\nrw=read\nbs=64k\nsize=1g\ntime_based\nruntime=3s\nramp_time=1s\n"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	res, err := Run(jf, Options{Device: "sim:ssd", BandwidthLog: true, LogDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for d, name := range aggLogNames {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		// Ticks every 0.5 s; the ramp's (0.5, 1.0 s) write none; the
		// tick at 4 s comes before the job's end there.
		if len(lines) != 6 {
			t.Fatalf("%s: %d lines, want 6 (1.5 s to 4 s):\n%s", name, len(lines), data)
		}
		var kib int64
		for i, l := range lines {
			f := strings.Split(l, ", ")
			if len(f) != 5 || f[0] != strconv.Itoa(1500+500*i) || f[2] != strconv.Itoa(d) || f[3] != "0" || f[4] != "0" {
				t.Fatalf("%s line %d: %q, want \"%d, KiB/s, %d, 0, 0\"", name, i, l, 1500+500*i, d)
			}
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("%s line %d: %q: %v", name, i, l, err)
			}
			kib += v
		}
		if d != 0 {
			if kib != 0 {
				t.Errorf("%s: %d KiB/s in all, want 0", name, kib)
			}
			continue
		}
		// Each line is a 500 ms rate: the KiB are half the sum.
		read := int64(res.Run.Jobs[0].Read.Bytes) / 1024
		if got := kib / 2; got > read || got < read-int64(len(lines)) {
			t.Errorf("read log: %d KiB in its lines, the job read %d KiB after its ramp", got, read)
		}
	}
}
