package iotrace

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The fuzz targets: no input panics a reader or Detect; the records before
// an error are well formed (checkRecord) with increasing line numbers; every
// error is a *ParseError naming the source and a line, sticky, and marked
// truncated only for a last line without newline; the blktrace family's
// KernelMerges agrees with its Reader.

// addSeeds seeds a fuzz target with the corpus files (whole when small; big
// ones would make every execution slow), their first lines, the same cut
// mid-line, each distinct kind of line in them, and the given strings.
func addSeeds(f *testing.F, files [][2]string, lines ...string) {
	for _, p := range files {
		src := readCorpus(f, p[0], p[1])
		if len(src) <= 16<<10 {
			f.Add(src)
		}
		if i := bytes.IndexByte(src[min(len(src), 1024):], '\n'); i >= 0 {
			head := src[:min(len(src), 1024)+i+1]
			f.Add(head)
			f.Add(head[:len(head)-7])
		}
		kinds := map[string]bool{}
		for _, l := range strings.SplitAfter(string(src), "\n") {
			k := strings.Join(strings.Fields(strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return '9'
				}
				return r
			}, l)), " ")
			if !kinds[k] && len(kinds) < 64 {
				kinds[k] = true
				f.Add([]byte(l))
			}
		}
	}
	for _, l := range lines {
		f.Add([]byte(l))
	}
}

func fuzzReader(t *testing.T, format Format, data []byte) []Record {
	Detect(data)
	r, err := NewReader(bytes.NewReader(data), "fuzz", format)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadAll(r)
	// Bounded output: at most a record a line.
	if lines := bytes.Count(data, []byte("\n")) + 1; len(recs) > lines {
		t.Fatalf("%d records from %d lines", len(recs), lines)
	}
	last := 0
	for _, rec := range recs {
		if cerr := checkRecord(rec); cerr != nil {
			t.Fatalf("malformed record %+v: %v", rec, cerr)
		}
		if rec.Line <= last {
			t.Fatalf("record at line %d after line %d", rec.Line, last)
		}
		last = rec.Line
	}
	if err == nil {
		return recs
	}
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Name != "fuzz" || pe.Line < 1 || pe.Line <= last {
		t.Fatalf("error %v (%T) is not a *ParseError for fuzz after line %d", err, err, last)
	}
	if !strings.HasPrefix(err.Error(), "fuzz:") {
		t.Fatalf("error %q does not start with the source name", err)
	}
	if n := len(err.Error()); n > 1024 {
		t.Fatalf("error of %d bytes: %.300q", n, err.Error())
	}
	if errors.Is(err, ErrTruncated) && (len(data) == 0 || data[len(data)-1] == '\n') {
		t.Fatalf("truncated final record reported for input ending in a newline: %v", err)
	}
	if _, err2 := r.Next(); err2 != err {
		t.Fatalf("Next after error %v returned %v", err, err2)
	}
	return recs
}

// fuzzBlk also checks the events of the blktrace family.
func fuzzBlk(t *testing.T, format Format, data []byte) {
	recs := fuzzReader(t, format, data)
	evs, err := ReadEvents(bytes.NewReader(data), "fuzz", format)
	qs := KernelMerges(evs)
	if len(qs) != len(recs) {
		t.Fatalf("%d Queued, %d records (events error %v)", len(qs), len(recs), err)
	}
	for i, q := range qs {
		if !reflect.DeepEqual(q.Record, recs[i]) {
			t.Fatalf("Queued %d %+v, record %+v", i, q.Record, recs[i])
		}
		if q.Merged() && (q.MergeLine <= q.Line || q.Merge != 'M' && q.Merge != 'F') {
			t.Fatalf("bad merge %+v", q)
		}
	}
	for _, ev := range evs {
		if ev.Line < 1 || !isAction(string(ev.Action)) {
			t.Fatalf("bad event %+v", ev)
		}
		if ev.Depth < 0 || ev.Depth != 0 && ev.Action != 'U' && ev.Action != 'T' {
			t.Fatalf("depth on a %c event %+v", ev.Action, ev)
		}
		if ev.Action == 'X' && (ev.Sectors == 0 || ev.Sector > ^uint64(0)-uint64(ev.Sectors)) {
			t.Fatalf("split of no range %+v", ev)
		}
	}
}

func FuzzDisksim(f *testing.F) {
	addSeeds(f, [][2]string{{tracesDir, "mqsim-tpcc-small.trace"}, {tracesDir, "mqsim-wsrch-small.trace"}},
		"11413000 0 657728 16 1\n", "1 0 18446744073709551615 1 1\n", "0.5 0 8 8 0", "1 0 8 4294967295 1\r\n\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatDiskSim, data) })
}

func FuzzMSR(f *testing.F) {
	addSeeds(f, nil, realMSR, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"+realMSR,
		"1,hm,0,Read,18446744073709551615,1,0\n", "9223372036854775807,a,1,write,0,1,0\n0,a,1,read,0,1,0\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatMSR, data) })
}

func FuzzSPC(f *testing.F) {
	addSeeds(f, nil, "0,303567,3584,w,0.000000\n1,20941264,8192,R,0.551706\n", "2,5,512,W,12.5,extra\n",
		"0,18446744073709551615,512,r,9223372036.854775807\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatSPC, data) })
}

func FuzzIolog(f *testing.F) {
	addSeeds(f, [][2]string{{samplesDir, "fio-iolog-v3.txt"}},
		"fio version 2 iolog\n/dev/sdb add\n/dev/sdb wait 5 0\n/dev/sdb read 0 4096\n/dev/sdb sync\n",
		"fio version 3 iolog\n1 a trim 512 512\n2 a wait 1 1\n3 a datasync 0 0\n",
		"fio version 3 iolog\n18446744073709551615 a read 1 1\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzReader(t, FormatIolog, data) })
}

func FuzzBlkparse(f *testing.F) {
	addSeeds(f, nil, realBlkparse,
		"8,0 0 5 0.5 1 Q FWS 0 [jbd2/sda1-8]\n8,0 0 1 0.1 1 Q RA 8 + 8 (  12) [Web Content]\n",
		"8,0 0 1 0.1 1 Q W 8 + 8 [a]\n8,0 0 1 0.1 1 M W 8 + 8 [a]\n8,0 0 1 0.1 1 F W 8 + 8 [a]\n",
		"8,0 1 255 9.932077822 29743 UT N [kworker/1:0] 2\n8,0 1 2 0.1 1 X R 0 / 256 [a]\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzBlk(t, FormatBlkparse, data) })
}

func FuzzFtrace(f *testing.F) {
	// Linux 6.18's kinds of line (UT, X, m, FWS, FN, DS, RA, insert-time
	// request merges) come from the ktrace files with them.
	addSeeds(f, [][2]string{{samplesDir, "ftrace-blk-loop0.txt"}, {samplesDir, "ftrace-blk-classic-loop0.txt"},
		{ktraceDir, "randwrite-4k-qd32-batch32-nomerges0-nr4.txt"}, {ktraceDir, "read-1m-qd4-batch4-nomerges0-nr256-max128k.txt"},
		{ktraceDir, "randread-4k-qd32-batch32-nomerges0-nr256-bfq.txt"}, {ktraceDir, "write-4k-qd1-batch1-nomerges0-nr256-buffered-fsync32.txt"},
		{ktraceDir, "rw-4k-qd32-batch32-nomerges0-nr256.txt"}, {ktraceDir, "trim-64k-qd32-batch32-nomerges0-nr256.txt"},
		{ktraceDir, "read-4k-qd1-batch1-nomerges0-nr256-buffered.txt"}},
		"fio-9 [000] ..... 2.000001: block_bio_queue: 8,0 WS 16 + 8 [fio]\nfio-9 (9) [000] 2.1: block_bio_frontmerge: 8,0 FF 0 + 0 [fio]\n",
		"fio-1 [000] .... 1.5: 8,0 1a2b,0 Q WS 8 + 8 [fio]\nCPU:1 [LOST 12 EVENTS]\n",
		"fio-17338 [001] d..1. 462.340995: 7,0 UT N [fio] 4\nfio-1 [000] ..... 1.0: block_unplug: [fio] 3\n")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzBlk(t, FormatFtrace, data) })
}

// FuzzDetect: Detect never panics, its error stays short whatever the
// input, and a format it names reads the whole lines of the head it looked
// at without error: the verdict agrees with the reader.
func FuzzDetect(f *testing.F) {
	addSeeds(f, [][2]string{{tracesDir, "mqsim-tpcc-small.trace"}, {samplesDir, "fio-iolog-v3.txt"},
		{samplesDir, "ftrace-blk-loop0.txt"}, {samplesDir, "ftrace-blk-classic-loop0.txt"}},
		realMSR, realBlkparse, "0,303567,3584,w,0.000000\n", "# tracer: blk\n", "\x00eat", "taeX")
	f.Fuzz(func(t *testing.T, data []byte) {
		format, err := Detect(data)
		if err != nil {
			if format != "" {
				t.Fatalf("Detect = %q and %v", format, err)
			}
			if n := len(err.Error()); n > 4096 {
				t.Fatalf("Detect error of %d bytes: %.300q", n, err.Error())
			}
			return
		}
		known := false
		for _, k := range Formats {
			known = known || k == format
		}
		if !known {
			t.Fatalf("Detect = %q, not one of %v", format, Formats)
		}
		head := data[:min(len(data), maxDetect)]
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		}
		r, err := NewReader(bytes.NewReader(head), "head", format)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadAll(r); err != nil {
			t.Fatalf("Detect = %s, but reading the head as %s fails: %v", format, format, err)
		}
	})
}
