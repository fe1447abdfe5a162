package iotrace

// blkparse's default text output (blkparse(1), "%D %2c %8s %5T.%9t %5p %2a
// %3d" then a tail that depends on the action):
//
//	  8,0    1        3     0.000252703 17852  Q   W 24803160 + 160 [kworker/u256:1]
//	  8,0    1      255     9.932077822 29743  U   N [kworker/1:0] 1
//
// Columns: device (major,minor), CPU, sequence number, time in seconds since
// the start of the trace (nanosecond digits), pid, action, RWBS. Time is
// used as printed: it is already relative to the trace's start.
//
// Also accepted and skipped: blank lines, "Input file ... added" lines that
// blkparse prints first, and everything from the per-CPU or total summary on
// ("CPU0 (sda):", "Total (sda):"), which ends the events. Custom -f formats
// are not understood.

import (
	"strings"
	"time"
)

func parseBlkparseLine(er *EventReader, text string) (Event, bool, error) {
	if isBlank(text) || strings.HasPrefix(text, "Input file ") {
		return Event{}, true, nil
	}
	if isBlkparseSummary(text) {
		er.done = true
		return Event{}, true, nil
	}
	f, rest, ok := cutFields(text, 7)
	if !ok {
		return Event{}, false, badField("", "want \"dev cpu seq time pid action rwbs ...\", have %d fields", len(f))
	}
	var ev Event
	if err := parseDevice(f[0]); err != nil {
		return ev, false, err
	}
	ev.Device = f[0]
	cpu, err := parseID("cpu", f[1])
	if err != nil {
		return ev, false, err
	}
	ev.CPU = cpu
	if _, err := parseUint("sequence", f[2]); err != nil {
		return ev, false, err
	}
	if !strings.Contains(f[3], ".") {
		return ev, false, badField("time", "want seconds.nanoseconds, have %q", f[3])
	}
	if ev.Time, err = parseDuration("time", f[3], time.Second); err != nil {
		return ev, false, err
	}
	if ev.PID, err = parseID("pid", f[4]); err != nil {
		return ev, false, err
	}
	a, ok := parseAction(f[5])
	if !ok {
		return ev, false, badField("action", "want one letter or UT, have %q", f[5])
	}
	ev.Action = a
	return ev, false, fillEvent(&ev, f[6], rest)
}

// isBlkparseSummary reports the first line of blkparse's closing summary:
// "CPU0 (sda):" or "Total (sda):".
func isBlkparseSummary(s string) bool {
	if strings.HasPrefix(s, "Total (") {
		return true
	}
	rest, ok := strings.CutPrefix(s, "CPU")
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return i > 0 && strings.HasPrefix(rest[i:], " (")
}
