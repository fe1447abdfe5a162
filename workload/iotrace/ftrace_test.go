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
			want: []Record{
				q(0, 9, "fio", wr, sync, 16, 8, 2),
				q(4, 9, "fio", flush, 0, 0, 0, 6),
				q(5, 9, "fio", rd, blkq.FlagReadAhead|sync, 24, 8, 7),
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
				{Time: 0, PID: 11078, Process: "fio", Device: "8,0", Op: wr, Flags: sync, Sector: 0, Sectors: 8, Line: 1},
				{Time: ns(301012), PID: 11078, Process: "fio", Device: "8,0", Op: flush, Flags: sync, Line: 4},
			}},
		{name: "garbage", in: "fio-1 [000] .... 1.5: 8,0 Q W 8 + 8 [fio]\nhello world\n",
			want:    []Record{q(0, 1, "fio", wr, 0, 8, 8, 1)},
			wantErr: `t.trace:2: not an ftrace line`},
		{name: "blkparse is not ftrace", in: "  8,0    1        3     0.000252703 17852  Q   W 24803160 + 160 [kworker/u256:1]\n",
			wantErr: `t.trace:1: field "time": want seconds.nanoseconds, have "3"`},
		{name: "classic time without fraction", in: "8,0 0 385 11078 Q WS 0 + 8 [fio]\n",
			wantErr: `t.trace:1: field "time": want seconds.nanoseconds, have "385"`},
		{name: "no action", in: "fio-1 [000] .... 1.5: 8,0 WS 8 + 8 [fio]\n",
			wantErr: `t.trace:1: field "action": want one letter after the device`},
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
