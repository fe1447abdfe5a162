package iotrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/trace"
)

// blktraceQ appends a Q event with categories c, of n bytes at sector s and
// time t, submitted by pid.
func blktraceQ(b []byte, c uint16, t, s uint64, n uint32, pid uint32) []byte {
	r := trace.Record{Time: t, Sector: s, Bytes: n, PID: pid, Action: uint32(c|trace.TCQueue)<<trace.TCShift | trace.TAQueue}
	return trace.AppendRecord(b, &r, binary.LittleEndian)
}

// blktraceNote appends a process note naming pid.
func blktraceNote(b []byte, pid uint32, name string) []byte {
	r := trace.Record{PID: pid, Action: trace.ActionProcess, PDU: append([]byte(name), 0)}
	return trace.AppendRecord(b, &r, binary.LittleEndian)
}

// TestBlktraceReaderTurnsQEventsIntoRecords: only Q events are records;
// times count from the first Q event and may go back; the categories give
// op and flags; the process name comes from the notes; Line is the index
// in the file counted from 1, notes included.
func TestBlktraceReaderTurnsQEventsIntoRecords(t *testing.T) {
	var b []byte
	b = blktraceNote(b, 7, "fio")
	b = blktraceQ(b, trace.TCRead|trace.TCAhead, 1000, 8, 4096, 7)
	b = blktraceQ(b, trace.TCWrite|trace.TCSync|trace.TCFUA|trace.TCFlush, 3000, 16, 8192, 9)
	b = blktraceQ(b, trace.TCFlush, 500, 0, 0, 7)
	b = blktraceQ(b, trace.TCDiscard|trace.TCMeta, 1500, 64, 1<<20, 7)
	if !IsBlktrace(b) || IsBlktrace([]byte("8,0 1 1 0.0 Q R 8 + 8 [fio]")) {
		t.Fatal("IsBlktrace does not tell the binary from text")
	}
	names := BlktraceNames(bytes.NewReader(b))
	got, err := ReadAll(NewBlktraceReader(bytes.NewReader(b), "t.blktrace", names))
	if err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{Time: 0, PID: 7, Process: "fio", Device: "0,0", Op: blkq.OpRead, Flags: blkq.FlagReadAhead, Sector: 8, Sectors: 8, Line: 2},
		{Time: 2000, PID: 9, Device: "0,0", Op: blkq.OpWrite, Flags: blkq.FlagSync | blkq.FlagFUA | blkq.FlagPreflush, Sector: 16, Sectors: 16, Line: 3},
		{Time: -500, PID: 7, Process: "fio", Device: "0,0", Op: blkq.OpFlush, Line: 4},
		{Time: 500, PID: 7, Process: "fio", Device: "0,0", Op: blkq.OpDiscard, Flags: blkq.FlagMeta, Sector: 64, Sectors: 2048, Line: 5},
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("record %d: %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestBlktraceReaderErrorsNameTheRecord: a trace without Q events, a Q of
// less than a sector, a range that overflows and a time too far from the
// first Q event are errors naming the file and the record.
func TestBlktraceReaderErrorsNameTheRecord(t *testing.T) {
	q0 := blktraceQ(nil, trace.TCRead, 0, 8, 4096, 1)
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{blktraceNote(nil, 1, "x"), "t.blktrace: no Q events in the trace"},
		{blktraceQ(q0, trace.TCWrite, 5, 8, 100, 1), "t.blktrace: record 2: a write of 100 bytes (less than a sector)"},
		{blktraceQ(q0, trace.TCRead, 5, 1<<64-4, 4096, 1), "t.blktrace: record 2: sector 18446744073709551612 + 8 sectors overflows"},
		{blktraceQ(q0, trace.TCRead, 1<<64-1, 8, 4096, 1), "t.blktrace: record 2: time 18446744073709551615 ns is more than 2^63-1 ns after"},
	} {
		r := NewBlktraceReader(bytes.NewReader(tc.data), "t.blktrace", nil)
		recs, err := ReadAll(r)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, io.EOF) {
			t.Errorf("%q: err %v after %d records", tc.want, err, len(recs))
		}
	}
}

// FuzzBlktraceReader: no input panics the blktrace reader or BlktraceNames;
// the reader ends (io.EOF or an error naming the file), its records are
// well formed (a sector range that does not overflow, at least a sector
// except for a flush) with increasing Line.
func FuzzBlktraceReader(f *testing.F) {
	var b []byte
	b = blktraceNote(b, 7, "fio")
	b = blktraceQ(b, trace.TCRead|trace.TCAhead, 1000, 8, 4096, 7)
	b = blktraceQ(b, trace.TCWrite|trace.TCSync, 500, 16, 8192, 9)
	b = blktraceQ(b, trace.TCFlush, 0, 0, 0, 7)
	f.Add(b)
	f.Add(b[:len(b)-5])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		names := BlktraceNames(bytes.NewReader(data))
		r := NewBlktraceReader(bytes.NewReader(data), "f.blktrace", names)
		line := 0
		for range len(data)/trace.RecordSize + 2 {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "f.blktrace: ") {
					t.Fatalf("error does not name the file: %v", err)
				}
				return
			}
			if rec.Line <= line || rec.Sector+uint64(rec.Sectors) < rec.Sector || rec.Sectors == 0 && rec.Op != blkq.OpFlush {
				t.Fatalf("bad record %+v after line %d", rec, line)
			}
			line = rec.Line
		}
		t.Fatalf("more records than the input holds")
	})
}
