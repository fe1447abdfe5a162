package iotrace

import (
	"reflect"
	"strings"
	"testing"
)

func TestKernelMerges(t *testing.T) {
	// blk_classic lines, hand-written in the kernel's shapes: a plugged
	// write stream with a front merge, interleaved submitters, a Q the
	// trace never resolves, and a second Q of the same bio.
	in := "" +
		"8,0 0 1.000000000 10 Q W 16 + 8 [a]\n" + // 1: gets a request
		"8,0 0 1.000000001 10 G W 16 + 8 [a]\n" +
		"8,0 0 1.000000002 10 Q W 8 + 8 [a]\n" + // 3: front-merged
		"8,0 1 1.000000003 20 Q W 24 + 8 [b]\n" + // 4: another task, back-merged
		"8,0 0 1.000000004 10 F W 8 + 8 [a]\n" +
		"8,0 1 1.000000005 20 M W 24 + 8 [b]\n" +
		"8,0 0 1.000000006 10 Q R 100 + 8 [a]\n" + // 7: superseded by line 8
		"8,0 0 1.000000007 10 Q R 100 + 8 [a]\n" + // 8: back-merged
		"8,0 0 1.000000008 10 M R 100 + 8 [a]\n" +
		"8,0 0 1.000000009 10 M W 64 + 8 [a]\n" + // an M with no Q: ignored
		"8,0 0 1.000000010 30 Q W 200 + 8 [c]\n" + // 11: unresolved
		"8,0 0 1.000000011 10 M W 200 + 8 [a]\n" // another pid's bio
	qs, err := ReadKernelMerges(strings.NewReader(in), "m", FormatFtrace)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		line, mline int
		merge       byte
	}
	want := []got{{1, 0, 0}, {3, 5, 'F'}, {4, 6, 'M'}, {7, 0, 0}, {8, 9, 'M'}, {11, 0, 0}}
	if len(qs) != len(want) {
		t.Fatalf("%d Queued, want %d: %+v", len(qs), len(want), qs)
	}
	for i, q := range qs {
		if g := (got{q.Line, q.MergeLine, q.Merge}); g != want[i] {
			t.Errorf("Queued %d: %+v, want %+v", i, g, want[i])
		}
		if q.Merged() != (q.Merge != 0) {
			t.Errorf("Merged() disagrees with Merge for %+v", q)
		}
	}
	recs, err := readString(t, FormatFtrace, in)
	if err != nil || len(recs) != len(qs) {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for i := range recs {
		if !reflect.DeepEqual(recs[i], qs[i].Record) {
			t.Errorf("record %d: %+v, Queued has %+v", i, recs[i], qs[i].Record)
		}
	}
}

func TestKernelMergesStopsAtError(t *testing.T) {
	in := "8,0 0 1.0 10 Q W 8 + 8 [a]\n8,0 0 1.1 10 M W 8 + 8 [a]\n8,0 0 1.2 10 Q W 16 + 8 [a]\nbad\n8,0 0 1.3 10 M W 16 + 8 [a]\n"
	qs, err := ReadKernelMerges(strings.NewReader(in), "m", FormatFtrace)
	if err == nil || !strings.Contains(err.Error(), "m:4:") {
		t.Fatalf("error %v, want one at m:4", err)
	}
	if len(qs) != 2 || qs[0].Merge != 'M' || qs[1].Merge != 0 {
		t.Fatalf("Queued %+v", qs)
	}
	if _, err := ReadKernelMerges(strings.NewReader(""), "x", FormatMSR); err == nil {
		t.Fatal("events from an MSR trace")
	}
}

// TestCompareMergesCountsAgreementBioByBio: over the bios both have, how
// many each merged and on how many they agree; a file in a format without
// the kernel's merges is refused by name.
func TestCompareMergesCountsAgreementBioByBio(t *testing.T) {
	kernel := []Queued{{Merge: 'M'}, {}, {Merge: 'F'}, {}, {Merge: 'M'}}
	a := CompareMerges(kernel, []byte{1, 1, 0, 0})
	if a != (MergeAgreement{Bios: 4, Kernel: 2, Replay: 2, Both: 1, Neither: 1,
		KernelBack: 1, KernelFront: 1, ReplayBack: 2, BothBack: 1}) || a.Percent() != 50 {
		t.Errorf("CompareMerges = %+v (%.1f%%)", a, a.Percent())
	}
	// By kind: a bio both merged, one at the back and one at the front,
	// agrees on merging but is in neither BothBack nor BothFront.
	kernel = []Queued{{Merge: 'M'}, {Merge: 'F'}, {Merge: 'F'}, {Merge: 'M'}, {}}
	a = CompareMerges(kernel, []byte{'M', 'F', 'M', 0, 'F'})
	if a != (MergeAgreement{Bios: 5, Kernel: 4, Replay: 4, Both: 3, Neither: 0,
		KernelBack: 2, KernelFront: 2, ReplayBack: 2, ReplayFront: 2, BothBack: 1, BothFront: 1}) {
		t.Errorf("CompareMerges by kind = %+v", a)
	}
	if (MergeAgreement{}).Percent() != 0 {
		t.Error("no bios: want 0%")
	}
	if _, err := ReadKernelMergesFile("../../testdata/traces/mqsim-tpcc-small.trace", ""); err == nil || !strings.Contains(err.Error(), "is a disksim trace") {
		t.Errorf("a DiskSim trace: %v", err)
	}
	qs, err := ReadKernelMergesFile("../../testdata/samples/ftrace-blk-loop0.txt", "")
	if err != nil || len(qs) == 0 {
		t.Errorf("ftrace sample: %d Q records, %v", len(qs), err)
	}
}

// TestKernelDispatched: the D events' count and sectors, a flush request
// counted with no sectors, and their mean in KiB.
func TestKernelDispatched(t *testing.T) {
	in := "" +
		"  7,0    1   454.447928075 16532  U   N [fio] 2\n" +
		"  7,0    1   454.447929277 16532  I   R 0 + 24 [fio]\n" +
		"  7,0    1   454.447940000 16532  D   R 0 + 24 [fio]\n" +
		"  7,0    1   454.447950000 16532  D  WS 8 + 8 [fio]\n" +
		"  7,0    1   464.519104244    58  D  FN [kworker/1:1H]\n" +
		"  7,0    1   464.519110403    22  C  FN 0 [0]\n"
	evs, err := ReadEvents(strings.NewReader(in), "d", FormatFtrace)
	if err != nil {
		t.Fatal(err)
	}
	d := KernelDispatched(evs)
	if d != (Dispatched{Requests: 3, Sectors: 32}) || d.MeanKiB() != 16.0/3 {
		t.Errorf("KernelDispatched = %+v, mean %v KiB", d, d.MeanKiB())
	}
	if (Dispatched{}).MeanKiB() != 0 {
		t.Error("no requests: want 0 KiB")
	}
}
