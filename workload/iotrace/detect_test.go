package iotrace

import (
	"encoding/binary"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       Format
		wantErr    string
	}{
		{"blkparse", realBlkparse, FormatBlkparse, ""},
		{"blkparse, cut mid-line", realBlkparse[:300], FormatBlkparse, ""},
		{"ftrace plain", "fio-1 [000] .... 1.5: 8,0 Q W 8 + 8 [fio]\n", FormatFtrace, ""},
		{"ftrace classic", "  7,0    0   385.069815948 11078  Q  WS 0 + 8 [fio]\n", FormatFtrace, ""},
		{"ftrace tracepoints", "fio-9 [000] ..... 2.000001: block_bio_queue: 8,0 WS 16 + 8 [fio]\n", FormatFtrace, ""},
		{"ftrace header only", "# tracer: blk\n#\n", FormatFtrace, ""},
		{"msr", realMSR, FormatMSR, ""},
		{"msr with header", "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n" + realMSR, FormatMSR, ""},
		{"spc", "0,303567,3584,w,0.000000\n1,20941264,8192,R,0.551706\n", FormatSPC, ""},
		{"disksim", "11413000 0 657728 16 1\n", FormatDiskSim, ""},
		{"disksim ms", "0.221 5 162947904 16 1\n", FormatDiskSim, ""},
		{"iolog v2", "fio version 2 iolog\n/dev/sdb add\n", FormatIolog, ""},
		{"iolog header only", "fio version 3 iolog\n", FormatIolog, ""},
		{"empty", "", "", "not disksim (no records)"},
		{"tencent", "1538323200,4247200,128,1,1058\n", "", `not spc (line 1: field "Opcode": want r or w, have "1")`},
		{"systor", "Timestamp,Response,IOType,LUN,Offset,Size\n", "", "not msr (line 1: want 7 fields"},
		{"nul", "0 0 0 8 1\n\x00\n", "", "NUL bytes"},
		{"bad later line", "11413000 0 657728 16 1\n11413000 0 657728 16 7\n", "", `not disksim (line 2: field "type"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Detect([]byte(c.head))
			if got != c.want {
				t.Fatalf("Detect = %q, %v; want %q", got, err, c.want)
			}
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("error %v, want %q", err, c.wantErr)
			}
		})
	}
}

func TestDetectBinaryBlktrace(t *testing.T) {
	head := make([]byte, 48)
	binary.LittleEndian.PutUint32(head, 0x65617407)
	if f, err := Detect(head); f != "" || err == nil || !strings.Contains(err.Error(), "binary blktrace") {
		t.Fatalf("Detect = %q, %v", f, err)
	}
}

func TestNewReaderUnknownFormat(t *testing.T) {
	if _, err := NewReader(strings.NewReader(""), "x", "csv"); err == nil || !strings.Contains(err.Error(), `unknown format "csv"`) {
		t.Fatalf("error %v", err)
	}
	if _, err := NewEventReader(strings.NewReader(""), "x", FormatSPC); err == nil {
		t.Fatal("events from SPC")
	}
}

// TestDetectOrderCoversFormats keeps Formats and Detect in step with the
// readers.
func TestDetectOrderCoversFormats(t *testing.T) {
	seen := map[Format]bool{}
	for _, f := range Formats {
		if _, err := NewReader(strings.NewReader(""), "x", f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		seen[f] = true
	}
	if len(seen) != 6 {
		t.Errorf("Formats = %v", Formats)
	}
}

// Detect looks at the first 64 KiB only: a whole big file costs no more, and
// a bad line beyond is the reader's business.
func TestDetectReadsOnlyTheHead(t *testing.T) {
	good := strings.Repeat("11413000 0 657728 16 1\n", (maxDetect/23)+10)
	if f, err := Detect([]byte(good + "garbage\n")); f != FormatDiskSim || err != nil {
		t.Fatalf("Detect = %q, %v", f, err)
	}
}
