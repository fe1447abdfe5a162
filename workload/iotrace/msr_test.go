package iotrace

import (
	"strings"
	"testing"
	"time"
)

// realMSR is the start of the MSR Cambridge trace of volume hm_0 (SNIA
// IOTTA set 388; docs/formats.md, "Trace sets").
const realMSR = `128166385295514663,hm,0,Write,9056014336,2048,2833
128166385295514878,hm,0,Write,11855351808,512,2617
128166385295515175,hm,0,Write,5548077056,4096,2320
128166385301451520,hm,0,Write,3163095040,40960,3438
128166385301453920,hm,0,Write,3154132992,4096,1037
`

func TestMSR(t *testing.T) {
	hm := func(tm time.Duration, op string, sector uint64, n uint32, line int) Record {
		r := Record{Time: tm, Process: "hm", Op: wr, Sector: sector, Sectors: n, Line: line}
		if op == "R" {
			r.Op = rd
		}
		return r
	}
	runTable(t, FormatMSR, []tableCase{
		{name: "real", in: realMSR, want: []Record{
			hm(0, "W", 9056014336/512, 4, 1),
			hm(21500*time.Nanosecond, "W", 11855351808/512, 1, 2), // 215 ticks of 100 ns
			hm(51200*time.Nanosecond, "W", 5548077056/512, 8, 3),
			hm(593685700*time.Nanosecond, "W", 3163095040/512, 80, 4),
			hm(593925700*time.Nanosecond, "W", 3154132992/512, 8, 5),
		}},
		{name: "header, read, unaligned, out of order", in: "" +
			"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n" +
			"1000, prxy ,3,read,1000,100,7\n" +
			"990,prxy,3,Write,0,512,0\n",
			want: []Record{
				// bytes [1000, 1100) lie in sectors 1 and 2
				{Time: 0, PID: 3, Process: "prxy", Op: rd, Sector: 1, Sectors: 2, Line: 2},
				{Time: -1000 * time.Nanosecond, PID: 3, Process: "prxy", Op: wr, Sector: 0, Sectors: 1, Line: 3},
			}},
		{name: "bad type", in: "1,hm,0,Trim,0,512,1\n", wantErr: `t.trace:1: field "Type": want Read or Write, have "Trim"`},
		{name: "six fields", in: "1,hm,0,Read,0,512\n", wantErr: `t.trace:1: want 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), have 6`},
		{name: "zero size", in: "1,hm,0,Read,0,0,1\n", wantErr: `t.trace:1: field "Size": zero-length I/O`},
		{name: "no host", in: "1,,0,Read,0,512,1\n", wantErr: `t.trace:1: field "Hostname": empty`},
		{name: "bad response time", in: "1,hm,0,Read,0,512,x\n", wantErr: `t.trace:1: field "ResponseTime": invalid number "x"`},
		{name: "a header not on line 1", in: realMSR + "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n",
			want: []Record{
				hm(0, "W", 9056014336/512, 4, 1),
				hm(21500*time.Nanosecond, "W", 11855351808/512, 1, 2),
				hm(51200*time.Nanosecond, "W", 5548077056/512, 8, 3),
				hm(593685700*time.Nanosecond, "W", 3163095040/512, 80, 4),
				hm(593925700*time.Nanosecond, "W", 3154132992/512, 8, 5),
			},
			wantErr: `t.trace:6: field "Timestamp": invalid number "Timestamp"`},
		{name: "too far apart", in: "1,hm,0,Read,0,512,1\n18446744073709551615,hm,0,Read,0,512,1\n",
			want:    []Record{{Time: 0, Process: "hm", Op: rd, Sectors: 1, Line: 1}},
			wantErr: `t.trace:2: field "Timestamp": 18446744073709551615 is too far from the first record's 1`},
		{name: "truncated", in: realMSR[:len(realMSR)-30],
			want: []Record{
				hm(0, "W", 9056014336/512, 4, 1),
				hm(21500*time.Nanosecond, "W", 11855351808/512, 1, 2),
				hm(51200*time.Nanosecond, "W", 5548077056/512, 8, 3),
				hm(593685700*time.Nanosecond, "W", 3163095040/512, 80, 4),
			},
			wantErr: "t.trace:5: truncated final record: want 7 fields", truncated: true},
	})
}

// TestMSRErrorNamesFileLineField pins the error shape: file, line, field.
func TestMSRErrorNamesFileLineField(t *testing.T) {
	in := strings.Repeat("128166385295514663,hm,0,Write,9056014336,2048,2833\n", 16) +
		"128166385295514663,hm,0,Write,12x,2048,2833\n"
	r, _ := NewReader(strings.NewReader(in), "trace.csv", FormatMSR)
	recs, err := ReadAll(r)
	if len(recs) != 16 {
		t.Errorf("%d records before the error, want 16", len(recs))
	}
	if err == nil || err.Error() != `trace.csv:17: field "Offset": invalid number "12x"` {
		t.Fatalf("error %v", err)
	}
	pe := err.(*ParseError)
	if pe.Name != "trace.csv" || pe.Line != 17 || pe.Field != "Offset" || pe.Truncated {
		t.Fatalf("%+v", pe)
	}
	// After an error, Next keeps returning it.
	if _, err2 := r.Next(); err2 != err {
		t.Fatalf("second Next: %v", err2)
	}
}
