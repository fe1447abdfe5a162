package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/trace"
	"github.com/blkq-dev/blkq/workload/iotrace"
)

// The kernel's traces as blktrace would have written them: most traces
// of a machine's disks are blktrace's binary files (blktrace -d DEV), not
// the tracer's text, so the comparison must read those as it reads text.

// blktraceActions are the TA codes of the actions a kernel trace's text
// shows ('T' for UT).
var blktraceActions = map[byte]uint32{'Q': trace.TAQueue, 'M': trace.TABackMerge, 'F': trace.TAFrontMerge, 'G': trace.TAGetRq,
	'S': trace.TASleepRq, 'R': trace.TARequeue, 'D': trace.TAIssue, 'C': trace.TAComplete, 'P': trace.TAPlug, 'U': trace.TAUnplugIO,
	'T': trace.TAUnplugTimer, 'I': trace.TAInsert, 'X': trace.TASplit, 'B': trace.TABounce}

// rwbsCategories are the categories an RWBS column says, as the kernel
// set them (blkparse prints them back as that column).
func rwbsCategories(rwbs string) uint32 {
	var c uint32
	for i, r := range rwbs {
		switch {
		case r == 'F' && i == 0:
			c |= trace.TCFlush
		case r == 'D':
			c |= trace.TCDiscard
		case r == 'W':
			c |= trace.TCWrite
		case r == 'R':
			c |= trace.TCRead
		case r == 'F':
			c |= trace.TCFUA
		case r == 'A':
			c |= trace.TCAhead
		case r == 'S':
			c |= trace.TCSync
		case r == 'M':
			c |= trace.TCMeta
		}
	}
	return c
}

// writeAsBlktrace writes the events of the kernel's text trace at path as
// a blktrace binary file in dir, a process note for each pid first, and
// returns its path. Each event keeps its time, CPU, pid, device, action,
// categories and range; an unplug carries its depth and a split the
// sector it split at, as their payloads. Messages (bfq's m lines) are
// left out: the comparison reads none.
func writeAsBlktrace(t *testing.T, path, dir string) string {
	t.Helper()
	evs, err := iotrace.ReadEventsFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	named := map[int]bool{}
	for _, ev := range evs {
		if !named[ev.PID] && ev.Process != "" && ev.Action != 'C' {
			named[ev.PID] = true
			b = trace.AppendRecord(b, &trace.Record{Version: 7, PID: uint32(ev.PID), Action: trace.ActionProcess, PDU: append([]byte(ev.Process), 0)}, binary.LittleEndian)
		}
	}
	seq := uint32(0)
	for _, ev := range evs {
		ta, ok := blktraceActions[ev.Action]
		if !ok {
			continue
		}
		major, minor, _ := strings.Cut(ev.Device, ",")
		maj, _ := strconv.Atoi(major)
		mnr, _ := strconv.Atoi(minor)
		seq++
		r := trace.Record{Version: 7, Sequence: seq, Time: uint64(1e9 + ev.Time), Sector: ev.Sector, Bytes: ev.Sectors << 9,
			Action: rwbsCategories(ev.RWBS)<<trace.TCShift | ta, PID: uint32(ev.PID), Device: trace.Dev(maj<<20 | mnr), CPU: uint32(ev.CPU)}
		switch ev.Action {
		case 'U', 'T':
			r.Bytes, r.PDU = 0, binary.BigEndian.AppendUint64(nil, uint64(ev.Depth))
		case 'X':
			r.PDU = binary.BigEndian.AppendUint64(nil, ev.Sector+uint64(ev.Sectors))
		}
		b = trace.AppendRecord(b, &r, binary.LittleEndian)
	}
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".txt")+".blktrace.0")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKernelTracesAsBlktrace: each kernel trace (the 36 of testdata/ktrace
// and the two foreign samples), written as blktrace's binary file, gives
// blkq replay --kernel-merges the same comparison as its text: the same
// bios, plugs, splits, service times (sim:trace) and kernel's events.
func TestKernelTracesAsBlktrace(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("KTRACE_BLKTRACE_DIR"); d != "" {
		dir = d
	}
	metas, err := filepath.Glob("../../testdata/ktrace/*.json")
	if err != nil || len(metas) == 0 {
		t.Fatalf("no kernel traces (%v)", err)
	}
	type job struct {
		path string
		args []string
	}
	var jobs []job
	for _, m := range metas {
		meta := readKtraceMeta(t, m)
		q := meta.Queue
		args := []string{"--kernel-merges", "--scheduler", "mq-deadline", "--nomerges", q["nomerges"], "--nr-requests", q["nr_requests"],
			"--set", "max_sectors_kb=" + q["max_sectors_kb"]}
		if q["scheduler"] == "mq-deadline" {
			for _, a := range []string{"read_expire", "write_expire", "writes_starved", "fifo_batch", "front_merges", "async_depth", "prio_aging_expire"} {
				args = append(args, "--set", "iosched/"+a+"="+q["iosched/"+a])
			}
		}
		jobs = append(jobs, job{strings.TrimSuffix(m, ".json") + ".txt", args})
	}
	for _, f := range foreignKernelTraces {
		jobs = append(jobs, job{"../../testdata/samples/" + f, []string{"--kernel-merges"}})
	}
	for _, j := range jobs {
		bin := writeAsBlktrace(t, j.path, dir)
		text, err := runKernelComparison(append(j.args, j.path))
		if err != nil {
			t.Fatal(err)
		}
		got, err := runKernelComparison(append(j.args, bin))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(text) {
			t.Errorf("%s as blktrace: %+v\nas text: %+v", filepath.Base(j.path), got, text)
		}
	}
}
