package engine

import (
	"fmt"
	"os"
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

// TestReadIologWritesOnAFileHoldTheirOwnData: a fio job's read_iolog
// writes on a file carry the checked pattern of their own sectors, so
// each needs a buffer of its own even while a blkq replay's writes share
// one of zeros; 64 writes at iodepth 16 all verify.
func TestReadIologWritesOnAFileHoldTheirOwnData(t *testing.T) {
	dir := t.TempDir()
	log := "fio version 2 iolog\nx add\nx open\n"
	for i := range 64 {
		log += fmt.Sprintf("x write %d 4096\n", (i*37%64)*4096)
	}
	log += "x close\n"
	if err := os.WriteFile(dir+"/w.iolog", []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	job := fmt.Sprintf("[r]\ndirect=1\nioengine=libaio\niodepth=16\nfilename=x\nsize=256k\nread_iolog=%s/w.iolog\n", dir)
	res, err := Run(parse(t, job), Options{Device: "file:" + filepath.Join(dir, "disk")})
	if err != nil {
		t.Fatal(err)
	}
	if js := res.Run.Jobs[0]; js.Write.IOs != 64 || js.Error != 0 {
		t.Fatalf("%d writes, error %d; want 64 and none", js.Write.IOs, js.Error)
	}
	if res.Verified != 64*8 {
		t.Errorf("verified %d sectors, want %d", res.Verified, 64*8)
	}
}
