package iotrace

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

func TestCorpusMQSim(t *testing.T) {
	for _, c := range []struct {
		file        string
		n, reads    int
		first, last Record
	}{
		{
			file: "mqsim-tpcc-small.trace", n: 6999, reads: 4381,
			first: Record{Time: 938513 * time.Microsecond, PID: 4, Op: wr, Sector: 264719034, Sectors: 16, Line: 1},
			last:  Record{Time: 1075002 * time.Microsecond, PID: 7, Op: wr, Sector: 160057354, Sectors: 16, Line: 6999},
		},
		{
			// 24,783 records: the last line has no newline (wc -l says 24,782).
			file: "mqsim-wsrch-small.trace", n: 24783, reads: 24779,
			first: Record{Time: 11413 * time.Microsecond, PID: 0, Op: rd, Sector: 657728, Sectors: 16, Line: 1},
			last:  Record{Time: 60066625 * time.Microsecond, PID: 1, Op: rd, Sector: 34371424, Sectors: 64, Line: 24783},
		},
	} {
		t.Run(c.file, func(t *testing.T) {
			recs, f, err := ReadFile(filepath.Join(tracesDir, c.file), "")
			if err != nil || f != FormatDiskSim {
				t.Fatalf("ReadFile: format %q, err %v", f, err)
			}
			if len(recs) != c.n {
				t.Fatalf("%d records, want %d", len(recs), c.n)
			}
			reads := 0
			for i, r := range recs {
				if err := checkRecord(r); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if r.Line != i+1 {
					t.Fatalf("record %d has line %d", i, r.Line)
				}
				if i > 0 && r.Time < recs[i-1].Time {
					t.Fatalf("line %d: time goes backwards (MQSim requires it not to)", r.Line)
				}
				if r.Op == rd {
					reads++
				}
			}
			if reads != c.reads {
				t.Errorf("%d reads, want %d", reads, c.reads)
			}
			if !reflect.DeepEqual(recs[0], c.first) || !reflect.DeepEqual(recs[len(recs)-1], c.last) {
				t.Errorf("first %+v last %+v\nwant  %+v last %+v", recs[0], recs[len(recs)-1], c.first, c.last)
			}
		})
	}
}

func TestCorpusFtracePlain(t *testing.T) {
	src := readCorpus(t, samplesDir, "ftrace-blk-loop0.txt")
	recs, err := readString(t, FormatFtrace, string(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 33 { // grep -c ' Q '
		t.Fatalf("%d Q records, want 33", len(recs))
	}
	want := map[int]Record{
		// Each is a plug of its own (Q G P U I D).
		0: {Time: 0, PID: 10979, Process: "fio", Device: "7,0", Op: rd, Sector: 120, Sectors: 8, Line: 3, Plug: plugAlone},
		// 369.547885 - 369.545525
		3: {Time: us(2360), PID: 10979, Process: "fio", Device: "7,0", Op: wr, Flags: sync, Sector: 960, Sectors: 8, Line: 21, Plug: plugAlone},
		// fio's end_fsync: an empty preflush write, "Q FWS [fio]".
		32: {Time: us(347516), PID: 10984, Process: "fio", Device: "7,0", Op: flush, Flags: sync, Line: 152, Plug: plugAlone},
	}
	for i, w := range want {
		if !reflect.DeepEqual(recs[i], w) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, recs[i], w)
		}
	}
	evs, err := ReadEvents(bytes.NewReader(src), "ftrace-blk-loop0.txt", FormatFtrace)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 154 { // 156 lines less the two '#' header lines
		t.Errorf("%d events, want 154", len(evs))
	}
	counts := map[byte]int{}
	for _, ev := range evs {
		counts[ev.Action]++
	}
	if counts['Q'] != 33 || counts['M'] != 15 || counts['G'] != 18 || counts['C'] != 19 {
		t.Errorf("action counts %v", counts)
	}
	// The softirq completion: pid and name from "ksoftirqd/1-22"; [0] is the
	// error, not a command.
	c := evs[24]
	if c.Action != 'C' || c.PID != 22 || c.CPU != 1 || c.Process != "ksoftirqd/1" || c.Sector != 120 || c.Sectors != 8 || c.Line != 27 {
		t.Errorf("C event %+v", c)
	}
	// The flush request the kernel issues for the fsync: "D FN".
	d := evs[len(evs)-3]
	if d.Action != 'D' || d.RWBS != "FN" || d.Op != flush || d.PID != 44 || d.Process != "kworker/0:1H" {
		t.Errorf("D FN event %+v", d)
	}
}

func TestCorpusFtraceClassic(t *testing.T) {
	src := readCorpus(t, samplesDir, "ftrace-blk-classic-loop0.txt")
	recs, err := readString(t, FormatFtrace, string(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 25 {
		t.Fatalf("%d Q records, want 25", len(recs))
	}
	want := map[int]Record{
		// The first 16 writes are one plug (U after the 16th), the flush
		// one of its own.
		0: {Time: 0, PID: 11078, Process: "fio", Device: "7,0", Op: wr, Flags: sync, Sector: 0, Sectors: 8, Line: 1, Plug: PlugIn | PlugFirst},
		// 385.069867975 - 385.069815948
		1: {Time: ns(52027), PID: 11078, Process: "fio", Device: "7,0", Op: wr, Flags: sync, Sector: 8, Sectors: 8, Line: 4, Plug: PlugIn},
		// 385.070116960 - 385.069815948: fio's end_fsync.
		// 385.069894254 - 385.069815948
		15: {Time: ns(78306), PID: 11078, Process: "fio", Device: "7,0", Op: wr, Flags: sync, Sector: 120, Sectors: 8, Line: 32, Plug: PlugIn | PlugLast},
		16: {Time: ns(301012), PID: 11078, Process: "fio", Device: "7,0", Op: flush, Flags: sync, Line: 38, Plug: plugAlone},
	}
	for i, w := range want {
		if !reflect.DeepEqual(recs[i], w) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, recs[i], w)
		}
	}
	last := recs[len(recs)-1]
	if last.Op != rd || last.Sector != 720 || last.Time != ns(385371092561-385069815948) {
		t.Errorf("last record %+v", last)
	}
}

// TestCorpusKernelMerges pins the kernel's own merge decisions in the real
// traces: fio's 4 KiB sequential buffered writes under a plug, 16 bios of
// which the first gets a request (G) and the next 15 are back-merged (M)
// into it, making the 128-sector request of the later I and D events.
func TestCorpusKernelMerges(t *testing.T) {
	for _, file := range []string{"ftrace-blk-loop0.txt", "ftrace-blk-classic-loop0.txt"} {
		t.Run(file, func(t *testing.T) {
			src := readCorpus(t, samplesDir, file)
			qs, err := ReadKernelMerges(bytes.NewReader(src), file, FormatFtrace)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := readString(t, FormatFtrace, string(src))
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != len(recs) {
				t.Fatalf("%d Queued, %d records", len(qs), len(recs))
			}
			var merged []uint64
			for i, q := range qs {
				if !reflect.DeepEqual(q.Record, recs[i]) {
					t.Fatalf("Queued %d is %+v, record %+v", i, q.Record, recs[i])
				}
				if q.Merged() {
					if q.Merge != 'M' || q.MergeLine != q.Line+1 || q.Op != wr {
						t.Errorf("merge %+v", q)
					}
					merged = append(merged, q.Sector)
				}
			}
			var want []uint64
			for s := uint64(8); s <= 120; s += 8 {
				want = append(want, s)
			}
			if !reflect.DeepEqual(merged, want) {
				t.Errorf("merged sectors %v, want %v", merged, want)
			}
		})
	}
}

func TestCorpusIologV3(t *testing.T) {
	src := readCorpus(t, samplesDir, "fio-iolog-v3.txt")
	recs, err := readString(t, FormatIolog, string(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 16 {
		t.Fatalf("%d records, want 16", len(recs))
	}
	reads := 0
	for _, r := range recs {
		if r.Op == rd {
			reads++
		}
		if r.Device != "testfile" || r.Sectors != 8 {
			t.Errorf("record %+v", r)
		}
	}
	if reads != 10 {
		t.Errorf("%d reads, want 10", reads)
	}
	if want := (Record{Time: us(195), Device: "testfile", Op: rd, Sector: 0, Sectors: 8, Line: 4}); !reflect.DeepEqual(recs[0], want) {
		t.Errorf("first %+v, want %+v", recs[0], want)
	}
	if want := (Record{Time: us(697), Device: "testfile", Op: wr, Sector: 28672 / 512, Sectors: 8, Line: 7}); !reflect.DeepEqual(recs[3], want) {
		t.Errorf("fourth %+v, want %+v", recs[3], want)
	}
	if want := (Record{Time: us(1884), Device: "testfile", Op: rd, Sector: 49152 / 512, Sectors: 8, Line: 19}); !reflect.DeepEqual(recs[15], want) {
		t.Errorf("last %+v, want %+v", recs[15], want)
	}
}

// TestDetectCorpus runs Detect on every real sample: the traces are
// recognised, fio's and dbench's reports are refused with reasons.
func TestDetectCorpus(t *testing.T) {
	want := map[string]Format{
		"traces/mqsim-tpcc-small.trace":         FormatDiskSim,
		"traces/mqsim-wsrch-small.trace":        FormatDiskSim,
		"samples/ftrace-blk-loop0.txt":          FormatFtrace,
		"samples/ftrace-blk-classic-loop0.txt":  FormatFtrace,
		"samples/fio-iolog-v3.txt":              FormatIolog,
		"samples/fio-lat-log.txt":               "",
		"samples/fio-json-randrw-libaio.json":   "",
		"samples/fio-normal-randrw-psync.txt":   "",
		"samples/fio-normal-seqread-libaio.txt": "",
		"samples/dbench-2clients-5s.txt":        "",
		"traces/MQSIM-LICENSE":                  "",
	}
	files, _ := filepath.Glob(filepath.Join(samplesDir, "*"))
	more, _ := filepath.Glob(filepath.Join(tracesDir, "*"))
	files = append(files, more...)
	if len(files) < len(want) {
		t.Fatalf("corpus has %d files, want at least %d", len(files), len(want))
	}
	for _, path := range files {
		key := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		w, ok := want[key]
		if !ok {
			t.Errorf("%s: new corpus file; add it to this test", key)
			continue
		}
		src := readCorpus(t, filepath.Dir(path), filepath.Base(path))
		for _, head := range [][]byte{src, src[:min(len(src), 4096)]} {
			got, err := Detect(head)
			if got != w {
				t.Errorf("%s (%d bytes): Detect = %q, %v; want %q", key, len(head), got, err, w)
			}
			if w == "" && (err == nil || !strings.Contains(err.Error(), "not disksim")) {
				t.Errorf("%s: error %v does not list the formats tried", key, err)
			}
		}
	}
}

func TestRecordFlagsFromCorpusAreBlkqs(t *testing.T) {
	// The empty preflush write fio's fsync produces must look like the
	// flush blkq's own engine submits for fsync (engine/job.go).
	recs, err := readString(t, FormatFtrace, "  7,0    0   385.070116960 11078  Q FWS [fio]\n")
	if err != nil || len(recs) != 1 || recs[0].Op != blkq.OpFlush || recs[0].Flags != blkq.FlagSync {
		t.Fatalf("%+v %v", recs, err)
	}
}
