package engine

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/blkq-dev/blkq"
)

// TestReplayWriteMemoryIsBoundedByTheLargestRecord: 32 writes of 16 MiB
// that arrive at one instant are all in flight at once. On a file they
// share one buffer of zeros as large as the largest record (a trace has
// no contents), so the run allocates about 16 MiB of data buffers, not
// 512 MiB; on the null device, which moves no data, reads and writes
// allocate none.
func TestReplayWriteMemoryIsBoundedByTheLargestRecord(t *testing.T) {
	const n, sectors = 32, 16 << 20 >> blkq.SectorShift
	trace := func(read bool) []ReplayRecord {
		var recs []ReplayRecord
		for i := range n {
			op := blkq.OpWrite
			if read && i%2 == 0 {
				op = blkq.OpRead
			}
			recs = append(recs, ReplayRecord{Op: op, Sector: uint64(i) * sectors, Sectors: sectors, Line: i + 1})
		}
		return recs
	}
	for dev, recs := range map[string][]ReplayRecord{"null": trace(true), "file:" + filepath.Join(t.TempDir(), "disk"): trace(false)} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := Replay("big records", recs, Options{Device: dev, SizeCap: n * sectors << blkq.SectorShift}, ReplayOptions{})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		if js := res.Run.Jobs[0]; js.Read.IOs+js.Write.IOs == 0 {
			t.Fatalf("%s: nothing replayed", dev)
		}
		limit := uint64(128 << 20) // one 16 MiB buffer and the run's own allocations, well under 32 × 16 MiB
		if got := after.TotalAlloc - before.TotalAlloc; got > limit {
			t.Errorf("%s: the replay allocated %d MiB; want at most %d MiB", dev, got>>20, limit>>20)
		}
	}
}
