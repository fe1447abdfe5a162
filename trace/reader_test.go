package trace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/trace"
)

func sampleRecords() []trace.Record {
	return []trace.Record{
		{Version: 7, Action: trace.ActionProcess, PID: 42, Device: trace.DefaultDev, PDU: []byte("fio\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")},
		{Version: 7, Sequence: 1, Time: 1234567890123, Sector: 1 << 40, Bytes: 1 << 20, Action: (trace.TCQueue|trace.TCWrite)<<16 | trace.TAQueue, PID: 42, Device: trace.MakeDev(259, 1), CPU: 3, Error: 0},
		{Version: 6, Sequence: 2, Time: 1234567890999, Sector: 77, Bytes: 0, Action: (trace.TCQueue|trace.TCRead)<<16 | trace.TAUnplugIO, PID: 42, Device: trace.DefaultDev, CPU: 3, PDU: []byte{0, 0, 0, 0, 0, 0, 0, 9}},
		{Version: 7, Sequence: 3, Time: 1234567891000, Sector: 1 << 40, Bytes: 1 << 20, Action: (trace.TCComplete|trace.TCFS|trace.TCWrite)<<16 | trace.TAComplete, PID: 0, Device: trace.MakeDev(259, 1), CPU: 3, Error: 0xfffb},
	}
}

func encode(recs []trace.Record, order binary.ByteOrder) []byte {
	var b []byte
	for i := range recs {
		b = trace.AppendRecord(b, &recs[i], order)
	}
	return b
}

func TestReaderRoundTripBothOrders(t *testing.T) {
	want := sampleRecords()
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		data := encode(want, order)
		if len(data) != 4*trace.RecordSize+16+8 {
			t.Fatalf("%d bytes", len(data))
		}
		rd := trace.NewReader(bytes.NewReader(data))
		var got []trace.Record
		for {
			r, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%v: %v", order, err)
			}
			if len(r.PDU) == 0 {
				r.PDU = nil
			}
			got = append(got, r)
		}
		if rd.ByteOrder() != order {
			t.Errorf("detected %v, want %v", rd.ByteOrder(), order)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v:\n got %+v\nwant %+v", order, got, want)
		}
		if n, ok := got[2].PDUInt(); !ok || n != 9 {
			t.Errorf("U payload %d %v", n, ok)
		}
		if got[0].Name() != "fio" || !got[0].IsNotify() || got[1].IsNotify() {
			t.Errorf("note %q", got[0].Name())
		}
	}
}

func TestReaderErrors(t *testing.T) {
	recs := sampleRecords()
	good := encode(recs, binary.LittleEndian)
	off := func(n int) int { return len(encode(recs[:n], binary.LittleEndian)) }
	v5 := bytes.Clone(good)
	v5[off(1)] = 5
	swapped := append(encode(recs[:2], binary.LittleEndian), encode(recs[2:], binary.BigEndian)...)
	for _, tc := range []struct {
		name  string
		data  []byte
		nrecs int    // records returned before the error
		want  string // in the error; "" for none
	}{
		{"empty", nil, 0, ""},
		{"whole", good, 4, ""},
		{"not blktrace", []byte(strings.Repeat("x", 60)), 0, "record 0 at byte 0: not a blktrace record"},
		{"truncated header", good[:off(2)+20], 2, "record 2 at byte 112: truncated record: 20 of 48 bytes"},
		{"truncated payload", good[:off(3)-3], 2, "record 2 at byte 112: truncated payload: 5 of 8 bytes"},
		{"truncated note", good[:trace.RecordSize+4], 0, "record 0 at byte 0: truncated payload: 4 of 16 bytes"},
		{"old version", v5, 1, "record 1 at byte 64: unsupported version 5"},
		{"byte order changes", swapped, 2, "record 2 at byte 112: bad magic"},
	} {
		got, err := trace.ReadAll(bytes.NewReader(tc.data))
		if len(got) != tc.nrecs {
			t.Errorf("%s: %d records before the error, want %d", tc.name, len(got), tc.nrecs)
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		case tc.want != "":
			var fe *trace.FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%s: %T is not a *FormatError", tc.name, err)
			}
		}
	}
	// The error sticks.
	rd := trace.NewReader(bytes.NewReader(good[:10]))
	_, err1 := rd.Next()
	_, err2 := rd.Next()
	if err1 == nil || err1 != err2 {
		t.Fatalf("errors %v then %v", err1, err2)
	}
}

func TestReadFileNamesTheFile(t *testing.T) {
	name := t.TempDir() + "/bad.blktrace.0"
	if err := os.WriteFile(name, encode(sampleRecords(), binary.LittleEndian)[:100], 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := trace.ReadFile(name)
	if len(recs) != 1 || err == nil || !strings.HasPrefix(err.Error(), name+": blktrace: record 1 at byte 64") {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	if _, err := trace.ReadFile(name + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}
