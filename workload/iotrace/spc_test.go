package iotrace

import (
	"testing"
)

func TestSPC(t *testing.T) {
	runTable(t, FormatSPC, []tableCase{
		{name: "financial and websearch lines", in: "0,303567,3584,w,0.000000\n1,20941264,8192,R,0.551706\n2,5,512,W,12.5,extra,fields\n",
			want: []Record{
				{Time: 0, PID: 0, Op: wr, Sector: 303567, Sectors: 7, Line: 1},
				{Time: us(551706), PID: 1, Op: rd, Sector: 20941264, Sectors: 16, Line: 2},
				{Time: us(12500000), PID: 2, Op: wr, Sector: 5, Sectors: 1, Line: 3},
			}},
		{name: "size not a multiple of 512", in: "0,10,513,r,1\n",
			want: []Record{{Time: us(1e6), Op: rd, Sector: 10, Sectors: 2, Line: 1}}},
		{name: "nanosecond digits and beyond", in: "0,10,512,r,0.0000000019\n",
			want: []Record{{Time: 1, Op: rd, Sector: 10, Sectors: 1, Line: 1}}},
		{name: "bad opcode", in: "0,10,512,r,1\n\n0,10,512,x,1\n",
			want:    []Record{{Time: us(1e6), Op: rd, Sector: 10, Sectors: 1, Line: 1}},
			wantErr: `t.trace:3: field "Opcode": want r or w, have "x"`},
		{name: "four fields", in: "0,10,512,r\n", wantErr: `t.trace:1: want 5 fields (ASU,LBA,Size,Opcode,Timestamp), have 4`},
		{name: "zero size", in: "0,10,0,r,1\n", wantErr: `t.trace:1: field "Size": zero-length I/O`},
		{name: "exponent", in: "0,10,512,r,1e-3\n", wantErr: `t.trace:1: field "Timestamp": invalid number "1e-3"`},
		{name: "bare dot", in: "0,10,512,r,1.\n", wantErr: `t.trace:1: field "Timestamp": invalid number "1."`},
		{name: "time out of range", in: "0,10,512,r,9223372037\n", wantErr: `t.trace:1: field "Timestamp": time "9223372037" out of range`},
		{name: "bad asu", in: "a,10,512,r,1\n", wantErr: `t.trace:1: field "ASU": invalid number "a"`},
		{name: "truncated", in: "0,10,512,r,1\n0,10,51", want: []Record{{Time: us(1e6), Op: rd, Sector: 10, Sectors: 1, Line: 1}},
			wantErr: "t.trace:2: truncated final record: want 5 fields", truncated: true},
	})
}
