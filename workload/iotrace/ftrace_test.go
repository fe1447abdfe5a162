package iotrace

import (
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
)

func TestFtrace(t *testing.T) {
	q := func(tm int64, pid int, proc string, op blkq.Op, fl blkq.Flags, sector uint64, n uint32, line int) Record {
		return Record{Time: us(tm), PID: pid, Process: proc, Device: "8,0", Op: op, Flags: fl, Sector: sector, Sectors: n, Line: line}
	}
	runTable(t, FormatFtrace, []tableCase{
		{name: "header, no irq flags, tgid column", in: "" +
			"# tracer: blk\n" +
			"#\n" +
			"# entries-in-buffer/entries-written: 3/3   #P:2\n" +
			"#           TASK-PID     CPU#  TIMESTAMP  FUNCTION\n" +
			"             fio-10979   [000]   369.000000:   8,0    G   R 120 + 8 [fio]\n" +
			"             fio-10979   (10979) [001] d..1.  369.000500:   8,0    Q   R 128 + 8 [fio]\n" +
			"           <...>-4242    [003] ....   369.001000:   8,0    Q  WS 8 + 8 [postgres: writer]\n",
			want: []Record{
				// Time counts from the first event, the G.
				q(500, 10979, "fio", rd, 0, 128, 8, 6),
				q(1000, 4242, "postgres: writer", wr, sync, 8, 8, 7),
			}},
		{name: "task names with dashes", in: "" +
			"   my-app-v2-77 [002] .... 1.000000: 8,0 Q W 8 + 8 [my-app-v2]\n" +
			"   kworker/u8:2-flush-8:0-1234 [002] .... 1.000002: 8,0 Q W 16 + 8 [kworker/u8:2]\n",
			want: []Record{
				q(0, 77, "my-app-v2", wr, 0, 8, 8, 1),
				q(2, 1234, "kworker/u8:2", wr, 0, 16, 8, 2),
			}},
		{name: "blk_cgroup column", in: "fio-1 [000] .... 1.5: 8,0 1a2b,0 Q WS 8 + 8 [fio]\n",
			want: []Record{q(0, 1, "fio", wr, sync, 8, 8, 1)}},
		{name: "tracepoints", in: "" +
			"fio-9 [000] ..... 2.000000: sched_switch: prev_comm=fio prev_pid=9 ==> next_comm=swapper/0\n" +
			"fio-9 [000] ..... 2.000001: block_bio_queue: 8,0 WS 16 + 8 [fio]\n" +
			"fio-9 [000] ..... 2.000002: block_bio_backmerge: 8,0 WS 16 + 8 [fio]\n" +
			"fio-9 [000] ..... 2.000003: block_rq_issue: 8,0 WS 4096 () 8 + 16 none,0,0 [fio]\n" +
			"fio-9 [000] ..... 2.000004: block_plug: [fio]\n" +
			"fio-9 [000] ..... 2.000005: block_bio_queue: 8,0 FF 0 + 0 [fio]\n" + // REQ_OP_FLUSH with a preflush
			"fio-9 [000] ..... 2.000006: block_bio_queue: 8,0 RAS 24 + 8 [fio]\n",
			// One plug (no U): the merge, the flush and the read.
			want: []Record{
				plugged(q(0, 9, "fio", wr, sync, 16, 8, 2), PlugIn|PlugFirst),
				plugged(q(4, 9, "fio", flush, 0, 0, 0, 6), PlugIn),
				plugged(q(5, 9, "fio", rd, blkq.FlagReadAhead|sync, 24, 8, 7), PlugIn|PlugLast),
			}},
		{name: "lost events and blank lines", in: "\nCPU:1 [LOST 12 EVENTS]\n##### CPU 1 buffer started ####\n  8,0  1  5.000000001  7  Q  R 8 + 8 [dd]\n",
			want: []Record{q(0, 7, "dd", rd, 0, 8, 8, 4)}},
		{name: "classic", in: "" +
			"  8,0    0   385.069815948 11078  Q  WS 0 + 8 [fio]\n" +
			"  8,0    0   385.069862204 11078  G  WS 0 + 8 [fio]\n" +
			"  8,0    0   385.069864699 11078  P   N [fio]\n" +
			"  8,0    0   385.070116960 11078  Q FWS [fio]\n" +
			"  8,0    1   385.070815187    22  C  WS 0 [0]\n",
			want: []Record{
				{Time: 0, PID: 11078, Process: "fio", Device: "8,0", Op: wr, Flags: sync, Sector: 0, Sectors: 8, Line: 1, Plug: PlugIn | PlugFirst},
				{Time: ns(301012), PID: 11078, Process: "fio", Device: "8,0", Op: flush, Flags: sync, Line: 4, Plug: PlugIn | PlugLast},
			}},
		{name: "garbage", in: "fio-1 [000] .... 1.5: 8,0 Q W 8 + 8 [fio]\nhello world\n",
			want:    []Record{q(0, 1, "fio", wr, 0, 8, 8, 1)},
			wantErr: `t.trace:2: not an ftrace line`},
		{name: "blkparse is not ftrace", in: "  8,0    1        3     0.000252703 17852  Q   W 24803160 + 160 [kworker/u256:1]\n",
			wantErr: `t.trace:1: field "time": want seconds.nanoseconds, have "3"`},
		{name: "classic time without fraction", in: "8,0 0 385 11078 Q WS 0 + 8 [fio]\n",
			wantErr: `t.trace:1: field "time": want seconds.nanoseconds, have "385"`},
		{name: "no action", in: "fio-1 [000] .... 1.5: 8,0 WS 8 + 8 [fio]\n",
			wantErr: `t.trace:1: field "action": want one letter or UT after the device`},
		{name: "bad device", in: "fio-1 [000] .... 1.5: loop0 Q WS 8 + 8 [fio]\n",
			wantErr: `t.trace:1: field "device": want major,minor, have "loop0"`},
		{name: "tracepoint without rwbs", in: "fio-1 [000] .... 1.5: block_bio_queue: 8,0\n",
			wantErr: `t.trace:1: want "maj,min rwbs ..." after block_bio_queue:`},
		{name: "truncated", in: "fio-1 [000] .... 1.5: 8,0 Q W 8 + 8 [fio]\nfio-1 [000] .... 1.6: 8,0 Q W 16 + 8 [fi",
			want:    []Record{q(0, 1, "fio", wr, 0, 8, 8, 1)},
			wantErr: `t.trace:2: truncated final record: want "sector + count [command]", have "16 + 8 [fi"`, truncated: true},
		{name: "truncated prefix", in: "fio-1 [000] .... 1.5: 8,0 Q W 8 + 8 [fio]\nfio-1 [00",
			want:    []Record{q(0, 1, "fio", wr, 0, 8, 8, 1)},
			wantErr: `t.trace:2: truncated final record: not an ftrace line`, truncated: true},
	})
}

func TestFtraceEventsTracepoints(t *testing.T) {
	in := "" +
		"fio-9 [000] ..... 2.000001: block_bio_queue: 8,0 WS 16 + 8 [fio]\n" +
		"fio-9 [000] ..... 2.000003: block_rq_issue: 8,0 WS 4096 () 8 + 16 none,0,0 [fio]\n" +
		"fio-9 [000] ..... 2.000004: block_unplug: [fio] 1\n" +
		"fio-9 [000] ..... 2.000005: block_dirty_buffer: 8,0 sector=8 size=4096\n"
	evs, err := ReadEvents(strings.NewReader(in), "tp", FormatFtrace)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Fatalf("%d events: %+v", len(evs), evs)
	}
	if d := evs[1]; d.Action != 'D' || d.RWBS != "WS" || d.Device != "8,0" || d.Sector != 0 || d.Time != us(2) {
		t.Errorf("issue %+v", d)
	}
	if u := evs[2]; u.Action != 'U' || u.Device != "" || u.Process != "fio" {
		t.Errorf("unplug %+v", u)
	}
}

// TestFtraceLinux618Events reads the actions Linux 6.18's blk tracer writes
// on blk-mq, one line of each kind taken from the traces in
// testdata/ktrace (scripts/capture-kernel-traces.sh): the unplug forced by
// the submitter's sleep (UT) with its depth, a split, a bfq message, an
// fsync's preflush and the flush request it becomes, a request merged at
// insert time, a discard and a read-ahead.
func TestFtraceLinux618Events(t *testing.T) {
	in := "" +
		"# tracer: blk\n" +
		"#\n" +
		"# DEV   CPU TIMESTAMP     PID ACT FLG\n" +
		"#  |     |     |           |   |   |\n" +
		"  7,0    1   462.340991375 17338  Q  WS 52672 + 8 [fio]\n" + // randwrite nr4
		"  7,0    1   462.340995141 17338 UT   N [fio] 4\n" +
		"  7,0    1   454.447928075 16532  U   N [fio] 17\n" + // rw
		"  7,0    1   454.447931460 16532  M   R 24 + 16 [fio]\n" +
		"  7,0    0   462.966071456 17425  X   R 0 / 256 [fio]\n" + // read 1m max128k
		"  7,0    1   522.435528826 21563  m   N bfq [bfq_limit_depth] wr_busy 0 sync 1 depth 256\n" + // bfq
		"  7,0    1   464.519096432 17595  Q FWS [fio]\n" + // fsync32
		"  7,0    1   464.519104244    58  D  FN [kworker/1:1H]\n" +
		"  7,0    1   464.519110403    22  C  FN 0 [0]\n" +
		"  7,0    0   463.474479265 17468  Q  DS 0 + 128 [fio]\n" + // trim
		"  7,0    0   465.492562694 17715  Q  RA 0 + 32 [fio]\n" + // buffered read
		"fio-17338 [001] d..1. 462.340995: 7,0 UT N [fio] 4\n" + // the same UT in the default lines
		"fio-17338 [001] ..... 462.340996: block_unplug: [fio] 3\n"
	evs, err := ReadEvents(strings.NewReader(in), "k.txt", FormatFtrace)
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		action  byte
		pid     int
		proc    string
		op      blkq.Op
		flags   blkq.Flags
		sector  uint64
		sectors uint32
		depth   int
	}
	want := []ev{
		{'Q', 17338, "fio", wr, sync, 52672, 8, 0},
		{'T', 17338, "fio", 0, 0, 0, 0, 4},
		{'U', 16532, "fio", 0, 0, 0, 0, 17},
		{'M', 16532, "fio", rd, 0, 24, 16, 0},
		{'X', 17425, "fio", rd, 0, 0, 256, 0},
		{'m', 21563, "", 0, 0, 0, 0, 0},
		{'Q', 17595, "fio", flush, sync, 0, 0, 0},
		{'D', 58, "kworker/1:1H", flush, 0, 0, 0, 0},
		{'C', 22, "", flush, 0, 0, 0, 0},
		{'Q', 17468, "fio", disc, sync, 0, 128, 0},
		{'Q', 17715, "fio", rd, blkq.FlagReadAhead, 0, 32, 0},
		{'T', 17338, "fio", 0, 0, 0, 0, 4},
		{'U', 17338, "fio", 0, 0, 0, 0, 3},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, e := range evs {
		got := ev{e.Action, e.PID, e.Process, e.Op, e.Flags, e.Sector, e.Sectors, e.Depth}
		if got != want[i] {
			t.Errorf("line %d: got %+v, want %+v", e.Line, got, want[i])
		}
		if e.Line != i+5 {
			t.Errorf("event %d at line %d, want %d", i, e.Line, i+5)
		}
	}
	if evs[5].RWBS != "N" || evs[7].RWBS != "FN" {
		t.Errorf("RWBS of the message %q and the flush %q", evs[5].RWBS, evs[7].RWBS)
	}
	// The reader's records are the Q lines: the UT and X lines are no
	// longer errors.
	recs, err := readString(t, FormatFtrace, in)
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
}

// TestFtraceBadPlugAndSplit: a malformed unplug, plug or split line is an
// error naming its line, in both line shapes and in blkparse's.
func TestFtraceBadPlugAndSplit(t *testing.T) {
	good := "  7,0    1   462.340991375 17338  Q  WS 52672 + 8 [fio]\n"
	for _, c := range []struct{ in, want string }{
		{"  7,0    1   462.3 17338 UT   N [fio] x\n", `k.txt:2: field "depth": invalid number "x"`},
		{"  7,0    1   462.3 17338  U   N fio 4\n", `k.txt:2: want "[command]" after U, have "fio 4"`},
		{"  7,0    1   462.3 17338 UT   N\n", `k.txt:2: want "[command]" after UT, have ""`},
		{"  7,0    1   462.3 17338  P   N [fio] 1\n", `k.txt:2: want nothing after a plug's [command], have "1"`},
		{"  7,0    0   462.9 17425  X   R 256 / 256 [fio]\n", `k.txt:2: field "new sector": 256 does not split a bio at sector 256`},
		{"  7,0    0   462.9 17425  X   R 0 + 256 [fio]\n", `k.txt:2: want "sector / new sector [command]" after X, have "0 + 256 [fio]"`},
		{"  7,0    0   462.9 17425  X   R 0 / 256\n", `k.txt:2: want "sector / new sector [command]" after X`},
		{"  7,0    0   462.9 17425  X   Z 0 / 256 [fio]\n", `k.txt:2: field "RWBS": "Z"`},
		{"  7,0    0   462.9 17425  UU  N [fio] 1\n", `k.txt:2: field "action": want one letter or UT, have "UU"`},
		{"fio-1 [000] .... 462.9: 7,0 UT N [fio] -1\n", `k.txt:2: field "depth": invalid number "-1"`},
		{"fio-1 [000] .... 462.9: block_unplug: [fio] many\n", `k.txt:2: field "depth": invalid number "many"`},
	} {
		_, err := ReadEvents(strings.NewReader(good+c.in), "k.txt", FormatFtrace)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	evs, err := ReadEvents(strings.NewReader("8,0 1 255 9.932077822 29743 UT N [kworker/1:0] 2\n"), "b.txt", FormatBlkparse)
	if err != nil || len(evs) != 1 || evs[0].Action != 'T' || evs[0].Depth != 2 || evs[0].Process != "kworker/1:0" {
		t.Fatalf("blkparse UT: %+v, %v", evs, err)
	}
	if _, err := ReadEvents(strings.NewReader("8,0 1 255 9.932077822 29743 U N [kworker/1:0] 2x\n"), "b.txt", FormatBlkparse); err == nil || !strings.Contains(err.Error(), `b.txt:1: field "depth"`) {
		t.Fatalf("blkparse bad depth: %v", err)
	}
}
