package iotrace

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestRecordSplits: a record carries the kernel's splits of its bio, the
// pieces' lengths in order, from the X events after its Q (the later
// ones after the G of the piece before); an X of another bio, or one that
// does not start where the pieces so far end, is not the record's; a bio
// the kernel did not split has none.
func TestRecordSplits(t *testing.T) {
	const src = "# tracer: blk\n" +
		"  7,0    0   1.000000000   100  Q   R 0 + 2048 [fio]\n" +
		"  7,0    0   1.000000100   100  X   R 0 / 256 [fio]\n" +
		"  7,0    0   1.000000200   100  G   R 0 + 256 [fio]\n" +
		"  7,0    0   1.000000300   100  P   N [fio]\n" +
		"  7,0    0   1.000000400   200  X   R 256 / 512 [dd]\n" + // another task's
		"  7,0    0   1.000000500   100  X   R 256 / 1280 [fio]\n" +
		"  7,0    0   1.000000600   100  G   R 256 + 1024 [fio]\n" +
		"  7,0    0   1.000000700   100  X   R 0 / 8 [fio]\n" + // not where the pieces end
		"  7,0    0   1.000000800   100  U   N [fio] 2\n" +
		"  7,0    0   1.000000900   100  Q   R 4096 + 8 [fio]\n" +
		"  7,0    0   1.000001000   100  G   R 4096 + 8 [fio]\n" +
		"  7,0    0   1.000001100   100  P   N [fio]\n" +
		"  7,0    0   1.000001200   100  U   N [fio] 1\n"
	recs, err := readString(t, FormatFtrace, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || !slices.Equal(recs[0].Splits, []uint32{256, 1024}) || recs[1].Splits != nil {
		t.Fatalf("records %+v: want splits [256 1024] and none", recs)
	}
}

// TestKernelTraceSplits: in the kernel's traces, the splits the records
// carry are the X events: every one of read-2m's 64 bios was cut once
// (at its 128th physical segment), and every 1 MiB bio of read-1m's
// max128k trace into eight pieces of 128 KiB, seven of them X.
func TestKernelTraceSplits(t *testing.T) {
	for _, c := range []struct {
		name        string
		bios, split int // records, and X events on them
	}{
		{"read-2m-qd2-batch2-nomerges0-nr256", 64, 64},
		{"read-1m-qd4-batch4-nomerges0-nr256-max128k", 64, 448},
		{"read-4k-qd32-batch32-nomerges0-nr256", 600, 0},
	} {
		recs, _, err := ReadFile(filepath.Join("..", "..", "testdata", "ktrace", c.name+".txt"), "")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range recs {
			var sum uint64
			for _, s := range r.Splits {
				sum += uint64(s)
			}
			if sum >= uint64(r.Sectors) {
				t.Fatalf("%s: record %+v: its pieces cover the whole bio", c.name, r)
			}
			n += len(r.Splits)
		}
		if len(recs) != c.bios || n != c.split {
			t.Errorf("%s: %d records with %d splits, want %d and %d", c.name, len(recs), n, c.bios, c.split)
		}
	}
}
