package iotrace

import (
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
)

// realBlkparse is blkparse 1.2.0's output for a real binary trace (the
// sda.blktrace.0 and .1 files of the public GitHub repository
// liuzel01/mynotes, commit f4fcdf40, an xfs-on-dm system), abridged,
// summary included.
const realBlkparse = `Input file sda.blktrace.0 added
Input file sda.blktrace.1 added
  8,2    1        1     0.000000000 17852  A   W 24391512 + 160 <- (253,0) 20481880
  8,0    1        2     0.000218902 17852  A   W 24803160 + 160 <- (8,2) 24391512
  8,0    1        3     0.000252703 17852  Q   W 24803160 + 160 [kworker/u256:1]
  8,0    1        4     0.000324803 17852  G   W 24803160 + 160 [kworker/u256:1]
  8,0    1        5     0.000383404 17852  I   W 24803160 + 160 [kworker/u256:1]
  8,0    1        6     0.000418904 17852  D   W 24803160 + 160 [kworker/u256:1]
  8,0    1       13     0.004057032 17852  C   W 24803160 + 160 [0]
  8,0    1      255     9.932077822 29743  U   N [kworker/1:0] 1
  8,0    1      329    40.009321132   410  Q  WM 4321296 + 8 [xfsaild/dm-0]
  8,0    1      330    40.009328332   410  M  WM 4321296 + 8 [xfsaild/dm-0]

CPU1 (sda):
 Reads Queued:           0,        0KiB	 Writes Queued:          70,     1960KiB
Total (sda):
 Reads Queued:           0,        0KiB	 Writes Queued:         113,     3156KiB
 Read Merges:            0,        0KiB	 Write Merges:            4,       28KiB
 IO unplugs:            10        	 Timer unplugs:           0

Throughput (R/W): 0KiB/s / 28KiB/s
Events (sda): 799 entries
`

func TestBlkparse(t *testing.T) {
	kw := "kworker/u256:1"
	runTable(t, FormatBlkparse, []tableCase{
		{name: "real", in: realBlkparse, want: []Record{
			{Time: ns(252703), PID: 17852, Process: kw, Device: "8,0", Op: wr, Sector: 24803160, Sectors: 160, Line: 5, Plug: plugAlone},
			{Time: ns(40009321132), PID: 410, Process: "xfsaild/dm-0", Device: "8,0", Op: wr, Flags: blkq.FlagMeta, Sector: 4321296, Sectors: 8, Line: 11, Plug: plugAlone},
		}},
		{name: "cfq era with messages", in: "" +
			"  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 <- (8,17) 1444645632\n" +
			"  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]\n" +
			"  8,16   5        0     0.000005616     0  m   N cfq18615 alloced\n" +
			"  8,16   5        3     0.000006438 18615  G   R 1444645666 + 256 [java]\n",
			want: []Record{{Time: ns(1850), PID: 18615, Process: "java", Device: "8,16", Op: rd, Sector: 1444645666, Sectors: 256, Line: 2}}},
		{name: "rwbs", in: "" +
			"8,0 0 1 0.1 1 Q RA 8 + 8 [a]\n" + // readahead
			"8,0 0 2 0.2 1 Q WFS 16 + 8 [a]\n" + // FUA sync write
			"8,0 0 3 0.3 1 Q FWFS 24 + 8 [a]\n" + // preflush + FUA, with data
			"8,0 0 4 0.4 1 Q D 0 + 2048 [fstrim]\n" + // discard
			"8,0 0 5 0.5 1 Q FWS 0 [jbd2/sda1-8]\n" + // blkparse prints the sector of an empty flush
			"8,0 0 6 0.6 1 Q WSM 32 + 8 [a]\n",
			want: []Record{
				{Time: ns(1e8), PID: 1, Process: "a", Device: "8,0", Op: rd, Flags: blkq.FlagReadAhead, Sector: 8, Sectors: 8, Line: 1},
				{Time: ns(2e8), PID: 1, Process: "a", Device: "8,0", Op: wr, Flags: blkq.FlagFUA | sync, Sector: 16, Sectors: 8, Line: 2},
				{Time: ns(3e8), PID: 1, Process: "a", Device: "8,0", Op: wr, Flags: blkq.FlagPreflush | blkq.FlagFUA | sync, Sector: 24, Sectors: 8, Line: 3},
				{Time: ns(4e8), PID: 1, Process: "fstrim", Device: "8,0", Op: disc, Sector: 0, Sectors: 2048, Line: 4},
				{Time: ns(5e8), PID: 1, Process: "jbd2/sda1-8", Device: "8,0", Op: flush, Flags: sync, Line: 5},
				{Time: ns(6e8), PID: 1, Process: "a", Device: "8,0", Op: wr, Flags: sync | blkq.FlagMeta, Sector: 32, Sectors: 8, Line: 6},
			}},
		{name: "command with spaces and elapsed", in: "8,0 3 9 1.000000001 4242 Q R 8 + 8 (  1234) [Web Content]\n",
			want: []Record{{Time: ns(1000000001), PID: 4242, Process: "Web Content", Device: "8,0", Op: rd, Sector: 8, Sectors: 8, Line: 1}}},
		{name: "no trailing newline", in: "8,0 0 1 0.5 7 Q W 8 + 8 [a]",
			want: []Record{{Time: ns(5e8), PID: 7, Process: "a", Device: "8,0", Op: wr, Sector: 8, Sectors: 8, Line: 1}}},
		{name: "empty", in: ""},
		{name: "only a summary", in: "Total (sda):\n Reads Queued: 0\n"},
		{name: "bad rwbs", in: "8,0 0 1 0.1 1 Q W 8 + 8 [a]\n8,0 0 2 0.2 1 Q X 8 + 8 [a]\n",
			want:    []Record{{Time: ns(1e8), PID: 1, Process: "a", Device: "8,0", Op: wr, Sector: 8, Sectors: 8, Line: 1}},
			wantErr: `t.trace:2: field "RWBS": "X": no R, W, D, N or F operation`},
		{name: "N with data", in: "8,0 0 1 0.1 1 Q N 8 + 8 [a]\n", wantErr: `t.trace:1: field "RWBS": "N": N (no operation) with data`},
		{name: "empty write", in: "8,0 0 1 0.1 1 Q WS 8 [a]\n", wantErr: `t.trace:1: field "RWBS": "WS": a bio of no data that is not a flush`},
		{name: "bad seq", in: "\n8,0 0 x 0.1 1 Q W 8 + 8 [a]\n", wantErr: `t.trace:2: field "sequence": invalid number "x"`},
		{name: "blk_classic is not blkparse", in: "  7,0    0   385.069815948 11078  Q  WS 0 + 8 [fio]\n",
			wantErr: `t.trace:1: field "sequence": invalid number "385.069815948"`},
		{name: "bad device", in: "sda 0 1 0.1 1 Q W 8 + 8 [a]\n", wantErr: `t.trace:1: field "device": want major,minor, have "sda"`},
		{name: "time without fraction", in: "8,0 0 1 12 1 Q W 8 + 8 [a]\n", wantErr: `t.trace:1: field "time": want seconds.nanoseconds, have "12"`},
		{name: "bad action", in: "8,0 0 1 0.1 1 QQ W 8 + 8 [a]\n", wantErr: `t.trace:1: field "action": want one letter or UT, have "QQ"`},
		{name: "bad tail", in: "8,0 0 1 0.1 1 Q W 8 + [a]\n", wantErr: `t.trace:1: want "sector + count [command]", have "8 + [a]"`},
		{name: "merge with bad count", in: "8,0 0 1 0.1 1 M W 8 + 99999999999 [a]\n", wantErr: `t.trace:1: field "count": 99999999999 sectors is too many`},
		{name: "wrapping range", in: "8,0 0 1 0.1 1 Q W 18446744073709551615 + 8 [a]\n", wantErr: `t.trace:1: field "sector": range 18446744073709551615+8 overflows`},
		{name: "truncated", in: "8,0 0 1 0.1 1 Q W 8 + 8 [a]\n8,0 0 2 0.2 1 Q W 16 +",
			want:    []Record{{Time: ns(1e8), PID: 1, Process: "a", Device: "8,0", Op: wr, Sector: 8, Sectors: 8, Line: 1}},
			wantErr: `t.trace:2: truncated final record: want "sector + count [command]"`, truncated: true},
		{name: "short line", in: "8,0 0 1 0.1\n", wantErr: `t.trace:1: want "dev cpu seq time pid action rwbs ...", have 4 fields`},
	})
}

func TestBlkparseEvents(t *testing.T) {
	evs, err := ReadEvents(strings.NewReader(realBlkparse), "sda.txt", FormatBlkparse)
	if err != nil {
		t.Fatal(err)
	}
	var actions string
	for _, ev := range evs {
		actions += string(ev.Action)
	}
	if actions != "AAQGIDCUQM" {
		t.Fatalf("actions %q", actions)
	}
	a := evs[0]
	if a.Device != "8,2" || a.Sector != 0 || a.Process != "" || a.RWBS != "W" || a.Line != 3 {
		t.Errorf("remap %+v", a)
	}
	u := evs[7]
	if u.Process != "kworker/1:0" || u.PID != 29743 || u.CPU != 1 {
		t.Errorf("unplug %+v", u)
	}
	c := evs[6]
	if c.Op != wr || c.Sector != 24803160 || c.Sectors != 160 || c.Process != "" {
		t.Errorf("complete %+v", c)
	}
}
