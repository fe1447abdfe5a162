package iotrace

import (
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

func TestIolog(t *testing.T) {
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	runTable(t, FormatIolog, []tableCase{
		{name: "v2 with waits", in: "" +
			"fio version 2 iolog\n" +
			"/dev/sdb add\n" +
			"/dev/sdb open\n" +
			"/dev/sdb read 0 4096\n" +
			"/dev/sdb wait 5 0\n" +
			"/dev/sdb write 4096 8192\n" +
			"/dev/sdb wait 3 0\n" + // earlier than the last wait: no effect
			"/dev/sdb trim 1048576 1048576\n" +
			"/dev/sdb sync 0 0\n" +
			"/dev/sdb datasync\n" +
			"/dev/sdb sync_file_range 0 0\n" +
			"/dev/sdb close\n",
			want: []Record{
				{Time: 0, Device: "/dev/sdb", Op: rd, Sector: 0, Sectors: 8, Line: 4},
				{Time: ms(5), Device: "/dev/sdb", Op: wr, Sector: 8, Sectors: 16, Line: 6},
				{Time: ms(5), Device: "/dev/sdb", Op: disc, Sector: 2048, Sectors: 2048, Line: 8},
				{Time: ms(5), Device: "/dev/sdb", Op: flush, Flags: blkq.FlagSync, Line: 9},
				{Time: ms(5), Device: "/dev/sdb", Op: flush, Flags: blkq.FlagSync, Line: 10},
			}},
		{name: "v3, two files, unaligned, wait ignored", in: "" +
			"fio version 3 iolog\n" +
			"0 a add\n" +
			"1 b add\n" +
			"10 a read 100 1000\n" + // bytes [100, 1100): sectors 0..2
			"20 b write 0 512\n" +
			"25 a wait 1000 0\n" +
			"\n" +
			"30 a datasync 0 0\n" +
			"40 b trim 512 512\n",
			want: []Record{
				{Time: us(10), Device: "a", Op: rd, Sector: 0, Sectors: 3, Line: 4},
				{Time: us(20), Device: "b", Op: wr, Sector: 0, Sectors: 1, Line: 5},
				{Time: us(30), Device: "a", Op: flush, Flags: blkq.FlagSync, Line: 8},
				{Time: us(40), Device: "b", Op: disc, Sector: 1, Sectors: 1, Line: 9},
			}},
		{name: "header only, CRLF", in: "fio version 3 iolog\r\n"},
		{name: "no header", in: "0 a add\n", wantErr: `t.trace:1: want "fio version 2 iolog" or "fio version 3 iolog", have "0 a add"`},
		{name: "version 1", in: "fio version 1 iolog\n", wantErr: `t.trace:1: want "fio version 2 iolog"`},
		{name: "empty", in: "", wantErr: `t.trace:1: empty input`},
		{name: "unknown action", in: "fio version 2 iolog\nf add\nf frob 0 1\n", wantErr: `t.trace:3: field "action": unknown action "frob"`},
		{name: "read without length", in: "fio version 2 iolog\nf read 0\n", wantErr: `t.trace:2: action "read": want offset and length or neither, have 1 more fields`},
		{name: "read without range", in: "fio version 2 iolog\nf read\n", wantErr: `t.trace:2: field "action": read needs an offset and a length`},
		{name: "add with range", in: "fio version 2 iolog\nf add 0 1\n", wantErr: `t.trace:2: field "action": add takes no offset and length`},
		{name: "zero length", in: "fio version 2 iolog\nf read 0 0\n", wantErr: `t.trace:2: field "length": zero-length I/O`},
		{name: "bad v3 timestamp", in: "fio version 3 iolog\nx f read 0 4096\n", wantErr: `t.trace:2: field "timestamp": invalid number "x"`},
		{name: "v2 line in v3", in: "fio version 3 iolog\nf read 0 4096\n", wantErr: `t.trace:2: field "timestamp": invalid number "f"`},
		{name: "bad wait", in: "fio version 2 iolog\nf wait x 0\n", wantErr: `t.trace:2: field "offset": invalid number "x"`},
		{name: "bad sync offset", in: "fio version 2 iolog\nf sync x 0\n", wantErr: `t.trace:2: field "offset": invalid number "x"`},
		{name: "range overflow", in: "fio version 2 iolog\nf read 18446744073709551615 2\n", wantErr: `t.trace:2: field "length": range 18446744073709551615+2 overflows`},
		{name: "truncated", in: "fio version 3 iolog\n12 f read 0 4096\n13 f read 4096",
			want:    []Record{{Time: us(12), Device: "f", Op: rd, Sector: 0, Sectors: 8, Line: 2}},
			wantErr: `t.trace:3: truncated final record: action "read": want offset and length or neither`, truncated: true},
	})
}
