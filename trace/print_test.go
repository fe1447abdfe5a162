package trace_test

import (
	"bytes"
	"testing"

	"github.com/blkq-dev/blkq/trace"
)

const scenarioText = `  8,0    0        1     0.000000000     7  Q   W 0 + 8 [writer]
  8,0    0        2     0.000000000     7  G   W 0 + 8 [writer]
  8,0    0        3     0.000000000     7  P   N [writer]
  8,0    0        4     0.000000000     7  Q   W 8 + 8 [writer]
  8,0    0        5     0.000000000     7  M   W 8 + 8 [writer]
  8,0    0        6     0.000000000     7  Q   W 100 + 8 [writer]
  8,0    0        7     0.000000000     7  G   W 100 + 8 [writer]
  8,0    0        8     0.000000000     7  U   N [writer] 2
  8,0    0        9     0.000000000     7  I   W 0 + 16 [writer]
  8,0    0       10     0.000000000     7  I   W 100 + 8 [writer]
  8,0    0       11     0.000000000     7  D   W 0 + 16 [writer]
  8,0    0       12     0.000500000     9  Q RSM 200 + 8 [reader]
  8,0    0       13     0.000500000     9  G RSM 200 + 8 [reader]
  8,0    0       14     0.000500000     9  I RSM 200 + 8 [reader]
  8,0    0       15     0.001000000     7  C   W 0 + 16 [0]
  8,0    0       16     0.001000000     7  D   W 100 + 8 [writer]
  8,0    0       17     0.002000000     7  C   W 100 + 8 [0]
  8,0    0       18     0.002000000     9  D RSM 200 + 8 [reader]
  8,0    0       19     0.003000000     9  C RSM 200 + 8 [0]
`

const scenarioSummary = "CPU0 (scen):\n" +
	" Reads Queued:           1,        4KiB\t Writes Queued:           3,       12KiB\n" +
	" Read Dispatches:        1,        4KiB\t Write Dispatches:        2,       12KiB\n" +
	" Reads Requeued:         0\t\t Writes Requeued:         0\n" +
	" Reads Completed:        1,        4KiB\t Writes Completed:        2,       12KiB\n" +
	" Read Merges:            0,        0KiB\t Write Merges:            1,        4KiB\n" +
	" Read depth:             1        \t Write depth:             1\n" +
	" IO unplugs:             1        \t Timer unplugs:           0\n" +
	"\n" +
	"Throughput (R/W): 1333KiB/s / 4000KiB/s\n" +
	"Events (scen): 19 entries\n" +
	"Skips: 0 forward (0 -   0.0%)\n"

// The expected text is blkparse 1.2.0's output for the same trace (the
// tools test checks that it still is).
func TestPrintScenario(t *testing.T) {
	_, recs := writeScenario(t, nil, trace.WriterOptions{})
	var b bytes.Buffer
	if err := trace.Print(&b, recs); err != nil {
		t.Fatal(err)
	}
	if b.String() != scenarioText {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), scenarioText)
	}
	b.Reset()
	if err := trace.PrintSummary(&b, recs, "scen"); err != nil {
		t.Fatal(err)
	}
	if b.String() != scenarioSummary {
		t.Errorf("PrintSummary:\n%q\nwant:\n%q", b.String(), scenarioSummary)
	}
}

// oddRecords are records blkq never writes but real traces hold: two
// CPUs, a remap, a split, a timer unplug, pass-through requests, a
// message, a completion of no sectors with an error, a pid without a
// process note, records blkparse rejects and driver data.
func oddRecords() []trace.Record {
	act := func(tc, ta uint32) uint32 { return tc<<trace.TCShift | ta }
	return []trace.Record{
		{Action: trace.ActionProcess, PID: 10, Device: trace.DefaultDev, CPU: 1, PDU: []byte("kworker/1:1H\x00\x00\x00\x00")},
		{Action: trace.ActionTimestamp, Time: 5, Device: trace.DefaultDev, PDU: []byte{1, 0, 0, 0, 2, 0, 0, 0}},
		{Sequence: 1, Time: 1000, Sector: 500, Bytes: 4096, Action: act(trace.TCQueue|trace.TCWrite, trace.TARemap), PID: 10, Device: trace.MakeDev(8, 2), CPU: 1,
			PDU: []byte{0, 0x80, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9}},
		{Sequence: 1, Time: 1000, Sector: 509, Bytes: 4096, Action: act(trace.TCQueue|trace.TCWrite|trace.TCSync, trace.TAQueue), PID: 10, Device: trace.DefaultDev, CPU: 0},
		{Sequence: 2, Time: 1500, Sector: 509, Bytes: 8192, Action: act(trace.TCRead, trace.TASplit), PID: 10, Device: trace.DefaultDev, CPU: 1, PDU: []byte{0, 0, 0, 0, 0, 0, 0x2, 0x05}},
		{Sequence: 2, Time: 2000, Action: act(trace.TCQueue|trace.TCRead, trace.TAUnplugTimer), PID: 11, Device: trace.DefaultDev, CPU: 0, PDU: []byte{0, 0, 0, 0, 0, 0, 0, 3}},
		{Sequence: 3, Time: 2000, Bytes: 36, Action: act(trace.TCQueue|trace.TCPC|trace.TCRead, trace.TAQueue), PID: 10, Device: trace.DefaultDev, CPU: 0},
		{Sequence: 4, Time: 2100, Bytes: 36, Action: act(trace.TCIssue|trace.TCPC|trace.TCRead, trace.TAIssue), PID: 10, Device: trace.DefaultDev, CPU: 0, PDU: []byte{0x12, 0, 0, 0, 0x24, 0}},
		{Sequence: 5, Time: 2200, Bytes: 36, Action: act(trace.TCComplete|trace.TCPC|trace.TCRead, trace.TAComplete), PID: 0, Device: trace.DefaultDev, CPU: 0, PDU: []byte{0x12, 0, 0, 0, 0x24, 0}},
		{Sequence: 6, Time: 2300, Bytes: 0, Action: act(trace.TCComplete|trace.TCFS|trace.TCRead|trace.TCFlush, trace.TAComplete), PID: 0, Device: trace.DefaultDev, CPU: 0, Error: 0xfffb},
		{Time: 2400, Action: trace.ActionMessage, Device: trace.DefaultDev, CPU: 0, PDU: []byte("cfq schedule dispatch\x00")},
		{Sequence: 7, Time: 2500, Action: act(trace.TCQueue|trace.TCWrite, trace.TAAbort), PID: 10, Device: trace.DefaultDev, CPU: 0},
		{Sequence: 8, Time: 2600, Sector: 8, Bytes: 512, Action: act(trace.TCDrvData|trace.TCWrite, trace.TADrvData), PID: 10, Device: trace.DefaultDev, CPU: 0, PDU: []byte{1, 2}},
		{Sequence: 9, Time: 2700, Sector: 7, Bytes: 512, Action: act(trace.TCQueue|trace.TCDiscard|trace.TCWrite, trace.TABackMerge), PID: 12, Device: trace.DefaultDev, CPU: 0},
		{Sequence: 3, Time: 2700, Sector: 9, Bytes: 512, Action: act(trace.TCRequeue|trace.TCFS|trace.TCRead|trace.TCAhead, trace.TARequeue), PID: 10, Device: trace.DefaultDev, CPU: 1},
		{Sequence: 4, Time: 2800, Action: act(trace.TCQueue|trace.TCRead, trace.TAPlug), PID: 10, Device: trace.DefaultDev, CPU: 1},
	}
}

const oddText = `  8,0    0        1     0.000000000    10  Q  WS 509 + 8 [kworker/1:1H]
  8,0    1        1     0.000000000    10  A   W 500 + 8 <- (8,1) 9
  8,0    1        2     0.000000500    10  X   R 509 / 517 [kworker/1:1H]
  8,0    0        2     0.000001000    11 UT   N [(null)] 3
  8,0    0        3     0.000001000    10  Q   R 36 [kworker/1:1H]
  8,0    0        4     0.000001100    10  D   R 36 (12 00 00 00 24 00 ..) [kworker/1:1H]
  8,0    0        5     0.000001200     0  C   R (12 00 00 00 24 00 ..) [0]
  8,0    0        6     0.000001300     0  C  FN 0 [65531]
  8,0    0        0     0.000001400     0  m   N cfq schedule dispatch
  8,0    0        9     0.000001700    12  M   D 7 + 1 [(null)]
  8,0    1        3     0.000001700    10  R  RA 9 + 1 [0]
  8,0    1        4     0.000001800    10  P   N [kworker/1:1H]
`

func TestPrintOddRecords(t *testing.T) {
	var b bytes.Buffer
	if err := trace.Print(&b, oddRecords()); err != nil {
		t.Fatal(err)
	}
	if b.String() != oddText {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), oddText)
	}
}

func TestPrintEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := trace.Print(&b, nil); err != nil || b.Len() != 0 {
		t.Fatalf("%q %v", b.String(), err)
	}
	if err := trace.PrintSummary(&b, nil, ""); err != nil {
		t.Fatal(err)
	}
	want := "\nThroughput (R/W): 0KiB/s / 0KiB/s\nEvents (8,0): 0 entries\nSkips: 0 forward (0 -   0.0%)\n"
	if b.String() != want {
		t.Fatalf("%q", b.String())
	}
}
