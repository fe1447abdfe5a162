package iotrace

import (
	"strings"
	"testing"
	"time"
)

func TestDiskSim(t *testing.T) {
	runTable(t, FormatDiskSim, []tableCase{
		{name: "mqsim lines", in: "11413000 0 657728 16 1\n938513000 4 264719034 16 0\n",
			want: []Record{
				{Time: ns(11413000), PID: 0, Op: rd, Sector: 657728, Sectors: 16, Line: 1},
				{Time: ns(938513000), PID: 4, Op: wr, Sector: 264719034, Sectors: 16, Line: 2},
			}},
		{name: "tabs, CRLF, blank lines, no final newline", in: "\r\n 5\t1  8 8 1 \r\n\n7 2 16 1 0",
			want: []Record{
				{Time: 5, PID: 1, Op: rd, Sector: 8, Sectors: 8, Line: 2},
				{Time: 7, PID: 2, Op: wr, Sector: 16, Sectors: 1, Line: 4},
			}},
		{name: "fraction below a nanosecond", in: "5.9 0 8 8 1\n",
			want: []Record{{Time: 5, Op: rd, Sector: 8, Sectors: 8, Line: 1}}},
		{name: "four fields", in: "1 0 8 8 1\n2 0 8 8\n",
			want:    []Record{{Time: 1, Op: rd, Sector: 8, Sectors: 8, Line: 1}},
			wantErr: "t.trace:2: want 5 fields (arrival_time device start_sector size_in_sectors type), have 4"},
		{name: "type 2", in: "1 0 8 8 2\n", wantErr: `t.trace:1: field "type": want 0 (write) or 1 (read), have "2"`},
		{name: "size 0", in: "1 0 8 0 1\n", wantErr: `t.trace:1: field "size_in_sectors": zero-length I/O`},
		{name: "size too big", in: "1 0 8 4294967296 1\n", wantErr: `t.trace:1: field "size_in_sectors": 4294967296 sectors is more than 4294967295`},
		{name: "wrapping range", in: "1 0 18446744073709551615 1 1\n", wantErr: `t.trace:1: field "size_in_sectors": range 18446744073709551615+1 overflows`},
		{name: "negative time", in: "-1 0 8 8 1\n", wantErr: `t.trace:1: field "arrival_time": invalid number "-1"`},
		{name: "hex sector", in: "1 0 0x10 8 1\n", wantErr: `t.trace:1: field "start_sector": invalid number "0x10"`},
		{name: "time overflow", in: "99999999999999999999 0 8 8 1\n", wantErr: `t.trace:1: field "arrival_time": invalid number "99999999999999999999"`},
		{name: "device too big", in: "1 99999999999 8 8 1\n", wantErr: `t.trace:1: field "device": 99999999999 is larger than 2147483647`},
		{name: "truncated", in: "1 0 8 8 1\n2 0 65",
			want:    []Record{{Time: 1, Op: rd, Sector: 8, Sectors: 8, Line: 1}},
			wantErr: "t.trace:2: truncated final record: want 5 fields", truncated: true},
	})
}

// DiskSim's own traces count milliseconds with a fraction (here the first
// records of the MSN file server trace as converted in the public GitHub
// repository huaicheng/replayer, file MSN-FS-30s-ms).
func TestDiskSimMilliseconds(t *testing.T) {
	r := NewDiskSimReader(strings.NewReader("0.000 5 174224064 16 1\n0.221 5 162947904 16 1\n1.722 5 117757456 16 1\n"), "msn", time.Millisecond)
	recs, err := ReadAll(r)
	if err != nil || len(recs) != 3 {
		t.Fatal(recs, err)
	}
	if recs[1].Time != 221*time.Microsecond || recs[2].Time != 1722*time.Microsecond || recs[2].PID != 5 {
		t.Errorf("%+v", recs)
	}
}
