package iotrace

// The kernel's ftrace "blk" tracer (kernel/trace/blktrace.c), read from
// /sys/kernel/tracing/trace or trace_pipe, in its three shapes:
//
//	fio-10979   [000] d..1.   369.545525:   7,0    Q  WS 960 + 8 [fio]
//	  7,0    0   385.069815948 11078  Q  WS 0 + 8 [fio]
//	fio-10979   [000] .....   369.545525: block_bio_queue: 7,0 WS 960 + 8 [fio]
//
// The first is the default: an ftrace prefix (task-pid, an optional
// "(tgid)", [cpu], optional irq flags, seconds since boot with microsecond
// digits) and then the device, action, RWBS and a blkparse-style tail; with
// options/blk_cgroup a cgroup column follows the device. The second is
// options/blk_classic: device, CPU, seconds.nanoseconds, pid, action,
// RWBS, tail (blkparse's columns without the sequence number). The third
// is the block_* tracepoints (events/block) with any tracer; they are
// mapped to action letters (block_bio_queue Q, block_bio_backmerge M,
// block_bio_frontmerge F, block_getrq G, block_rq_insert I, block_rq_issue
// D, block_rq_complete C, ...), and only Q, M, F and G lines are decoded
// beyond device and RWBS. Other tracepoints are skipped.
//
// The action column is one letter, or UT (read as 'T'). Linux 6.18's
// tracer on blk-mq writes, besides the bio and request actions: U and UT
// with the number of requests the unplug released ("U N [fio] 17": an
// unplug the submitter asked for, and one forced because it went to sleep,
// with its plug holding requests), X for a split ("X R 0 / 256 [fio]": the
// bio at 0 split at 256), M after an I for a request merged into another
// at insert time, and m for a scheduler's message (bfq's). A malformed
// plug, unplug or split tail is an error; the tails of I, D, C and the rest
// are decoded as far as they go.
//
// Time is the ftrace timestamp minus the first event's: these clocks count
// from boot. Timestamps must be seconds with a fraction (trace_clock local,
// global, mono, boot ...); the counter and x86-tsc clocks print bare counts,
// which are rejected. PID is the task's pid from the prefix (blk_classic: its pid
// column); Process is the command in the tail's [..] (the task name when
// the line has none).
//
// Skipped: blank lines, '#' lines (the header, "##### CPU 1 buffer started
// ####") and "CPU:1 [LOST 12 EVENTS]" markers.

import (
	"regexp"
	"strings"
	"time"
)

// ftracePrefix matches "task-pid [cpu] flags secs.frac: rest", with an
// optional "(tgid)" column and optional flags.
var ftracePrefix = regexp.MustCompile(`^\s*(.+?)-(\d+)\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[(\d+)\]\s+(?:\S+\s+)?(\d+\.\d+):\s+(.*)$`)

// tracepointAction maps block_* tracepoints to blktrace action letters.
var tracepointAction = map[string]byte{
	"block_bio_queue":      'Q',
	"block_bio_backmerge":  'M',
	"block_bio_frontmerge": 'F',
	"block_getrq":          'G',
	"block_sleeprq":        'S',
	"block_rq_insert":      'I',
	"block_rq_issue":       'D',
	"block_rq_complete":    'C',
	"block_rq_requeue":     'R',
	"block_plug":           'P',
	"block_unplug":         'U',
	"block_split":          'X',
	"block_bio_remap":      'A',
	"block_rq_remap":       'A',
	"block_bio_bounce":     'B',
}

func parseFtraceLine(er *EventReader, text string) (Event, bool, error) {
	trimmed := strings.TrimLeft(text, " \t")
	if isBlank(trimmed) || trimmed[0] == '#' || strings.HasPrefix(trimmed, "CPU:") && strings.Contains(trimmed, "[LOST ") {
		return Event{}, true, nil
	}
	if f, _, ok := cutFields(trimmed, 1); ok && parseDevice(f[0]) == nil {
		return parseClassicLine(er, trimmed)
	}
	m := ftracePrefix.FindStringSubmatch(text)
	if m == nil {
		return Event{}, false, badField("", "not an ftrace line (want \"task-pid [cpu] flags secs.usecs: ...\" or blk_classic \"maj,min cpu secs.nsecs pid action rwbs ...\")")
	}
	var ev Event
	var err error
	if ev.PID, err = parseID("pid", m[2]); err != nil {
		return ev, false, err
	}
	if ev.CPU, err = parseID("cpu", m[3]); err != nil {
		return ev, false, err
	}
	t, err := parseDuration("timestamp", m[4], time.Second)
	if err != nil {
		return ev, false, err
	}
	task, tail := m[1], m[5]
	first, after, _ := cutFields(tail, 1)
	if len(first) == 1 && isTracepointName(first[0]) {
		return parseTracepoint(er, ev, t, task, strings.TrimSuffix(first[0], ":"), after)
	}
	f, rest, ok := cutFields(tail, 3)
	if !ok {
		return ev, false, badField("", "want \"maj,min action rwbs ...\" after the timestamp, have %q", tail)
	}
	a, isA := parseAction(f[1])
	if !isA {
		// options/blk_cgroup: "maj,min cgroup action rwbs ..."
		f, rest, ok = cutFields(tail, 4)
		if ok {
			a, isA = parseAction(f[2])
		}
		if !isA {
			return ev, false, badField("action", "want one letter or UT after the device, have %q", tail)
		}
		f = []string{f[0], f[2], f[3]}
	}
	if err := parseDevice(f[0]); err != nil {
		return ev, false, err
	}
	ev.Device = f[0]
	ev.Action = a
	ev.Time = er.relTime(t)
	if err := fillEvent(&ev, f[2], rest); err != nil {
		return ev, false, err
	}
	if ev.Process == "" {
		ev.Process = task
	}
	return ev, false, nil
}

// parseClassicLine parses a blk_classic line:
// "maj,min cpu secs.nsecs pid action rwbs tail".
func parseClassicLine(er *EventReader, text string) (Event, bool, error) {
	f, rest, ok := cutFields(text, 6)
	if !ok {
		return Event{}, false, badField("", "want blk_classic \"maj,min cpu secs.nsecs pid action rwbs ...\", have %d fields", len(f))
	}
	var ev Event
	var err error
	ev.Device = f[0]
	if ev.CPU, err = parseID("cpu", f[1]); err != nil {
		return ev, false, err
	}
	if !strings.Contains(f[2], ".") {
		return ev, false, badField("time", "want seconds.nanoseconds, have %q", f[2])
	}
	t, err := parseDuration("time", f[2], time.Second)
	if err != nil {
		return ev, false, err
	}
	if ev.PID, err = parseID("pid", f[3]); err != nil {
		return ev, false, err
	}
	a, ok := parseAction(f[4])
	if !ok {
		return ev, false, badField("action", "want one letter or UT, have %q", f[4])
	}
	ev.Action = a
	ev.Time = er.relTime(t)
	return ev, false, fillEvent(&ev, f[5], rest)
}

// isTracepointName reports "name:" with name in [a-z0-9_].
func isTracepointName(s string) bool {
	name, ok := strings.CutSuffix(s, ":")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// parseTracepoint parses the text of a block_* tracepoint. Other tracepoints
// are skipped.
func parseTracepoint(er *EventReader, ev Event, t time.Duration, task, name, text string) (Event, bool, error) {
	a, ok := tracepointAction[name]
	if !ok {
		return ev, true, nil
	}
	ev.Action = a
	ev.Time = er.relTime(t)
	ev.Process = task
	if a == 'P' || a == 'U' {
		// "[comm]" and "[comm] depth": no device.
		return ev, false, parsePlugTail(&ev, text)
	}
	f, rest, ok := cutFields(text, 2)
	if !ok {
		return ev, false, badField("", "want \"maj,min rwbs ...\" after %s:, have %q", name, text)
	}
	if err := parseDevice(f[0]); err != nil {
		return ev, false, err
	}
	ev.Device = f[0]
	if !isBioAction(a) {
		ev.RWBS = f[1]
		return ev, false, nil
	}
	if err := fillEvent(&ev, f[1], rest); err != nil {
		return ev, false, err
	}
	if ev.Process == "" {
		ev.Process = task
	}
	return ev, false, nil
}
