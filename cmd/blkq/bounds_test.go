package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/trace"
)

// qRecord is a blktrace Q event of a 4 KiB read at sector s and time t.
func qRecord(b []byte, t, s uint64) []byte {
	r := trace.Record{Time: t, Sector: s, Bytes: 4096, PID: 7,
		Action: uint32(trace.TCRead|trace.TCQueue|trace.TCFS)<<trace.TCShift | trace.TAQueue}
	return trace.AppendRecord(b, &r, binary.LittleEndian)
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayBlktraceTimeThatOverflowsNamesTheRecord: a Q event 2^64-1 ns
// after the first event does not fit a signed time: an error naming record 2,
// which ends the trace as any malformed record does: the record before it
// replays, as with the text formats.
func TestReplayBlktraceTimeThatOverflowsNamesTheRecord(t *testing.T) {
	path := writeTemp(t, "t.blktrace", qRecord(qRecord(nil, 0, 8), 1<<64-1, 16))
	var o, e bytes.Buffer
	if err := cmdReplay([]string{"--output-format", "json", path}, &o, &e); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.String(), "record 2: time 18446744073709551615 ns is more than 2^63-1 ns after the first event's (0 ns) (replaying the 1 records before it)") {
		t.Fatalf("stderr %q", e.String())
	}
	if !strings.Contains(o.String(), `"total_ios" : 1,`) {
		t.Fatalf("want 1 I/O replayed: %.2000s", o.String())
	}
}

// TestReplayBlktraceSectorThatOverflowsNamesTheRecord: a sector whose byte
// offset passes 2^63-1 is an error naming the record.
func TestReplayBlktraceSectorThatOverflowsNamesTheRecord(t *testing.T) {
	path := writeTemp(t, "t.blktrace", qRecord(qRecord(nil, 0, 8), 10, 1<<60))
	var o, e bytes.Buffer
	err := cmdReplay([]string{path}, &o, &e)
	if err == nil || !strings.Contains(err.Error(), ":2: sectors 1152921504606846976+8 end past byte 2^63-1") {
		t.Fatalf("err = %v", err)
	}
}

// TestReplaySpeedOutOfRangeIsRefused: --speed 1e-20 (and 0, NaN, Inf,
// above 1e9) are refused naming the value, before the trace is read.
func TestReplaySpeedOutOfRangeIsRefused(t *testing.T) {
	for _, v := range []string{"1e-20", "0", "-1", "NaN", "Inf", "2e9"} {
		var o, e bytes.Buffer
		err := cmdReplay([]string{"--speed", v, "no-such-trace"}, &o, &e)
		if err == nil || !strings.Contains(err.Error(), "--speed=") {
			t.Errorf("--speed %s: err = %v", v, err)
		}
	}
}

// TestReplayOfGigabyteGarbageFailsAtOnce: a 1 GB file whose first bytes
// are no trace fails on its head, naming the file (the rest, a hole, is
// never read); with --format given, it fails at line 1.
func TestReplayOfGigabyteGarbageFailsAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "junk")
	if err := os.WriteFile(path, []byte(strings.Repeat("this is not a trace, just words\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<30); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	err := cmdReplay([]string{path}, &o, &e)
	if err == nil || !strings.Contains(err.Error(), path+": trace: cannot tell the format") {
		t.Fatalf("err = %v", err)
	}
	err = cmdReplay([]string{"--format", "msr", path}, &o, &e)
	if err == nil || !strings.Contains(err.Error(), path+":1:") {
		t.Fatalf("--format msr: err = %v", err)
	}
}

// TestTracePrintOfCutTracePrintsTheRecordsBeforeTheCut: a binary trace cut
// mid-record prints every whole record, as blkparse does, then reports
// the cut with its record and offset.
func TestTracePrintOfCutTracePrintsTheRecordsBeforeTheCut(t *testing.T) {
	var data []byte
	for i := range 3 {
		data = qRecord(data, uint64(i)*1000, uint64(i)*8)
	}
	path := writeTemp(t, "cut.blktrace", data[:len(data)-20])
	var o, e bytes.Buffer
	err := cmdTrace([]string{"print", "--no-summary", path}, nil, &o, &e)
	if err == nil || !strings.Contains(err.Error(), "record 2 at byte 96: truncated record: 28 of 48 bytes (printed the 2 records before it)") {
		t.Fatalf("err = %v", err)
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], " Q   R 0 + 8 ") || !strings.Contains(lines[1], " Q   R 8 + 8 ") {
		t.Fatalf("printed %q, want the two whole Q records", o.String())
	}
}

// TestTracePrintOfCutPerCPUFileReadsTheOtherCPUs: NAME.blktrace.0 cut
// mid-record still prints its whole records and those of NAME.blktrace.1.
func TestTracePrintOfCutPerCPUFileReadsTheOtherCPUs(t *testing.T) {
	dir := t.TempDir()
	cpu0 := qRecord(qRecord(nil, 0, 0), 2000, 16)
	if err := os.WriteFile(filepath.Join(dir, "x.blktrace.0"), cpu0[:len(cpu0)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.blktrace.1"), qRecord(nil, 1000, 8), 0o600); err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	err := cmdTrace([]string{"print", "--no-summary", filepath.Join(dir, "x")}, nil, &o, &e)
	if err == nil || !strings.Contains(err.Error(), "x.blktrace.0: blktrace: record 1 at byte 48: truncated record: 47 of 48 bytes") {
		t.Fatalf("err = %v", err)
	}
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], " Q   R 0 + 8 ") || !strings.Contains(lines[1], " Q   R 8 + 8 ") {
		t.Fatalf("printed %q, want sector 0 (cpu 0) then 8 (cpu 1)", o.String())
	}
}
