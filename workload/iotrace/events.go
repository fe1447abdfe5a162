package iotrace

// The blktrace family (blkparse text, the ftrace blk tracer) logs every step
// of a bio's life as an action line; this file holds what the two share: the
// Event, the RWBS column, the "sector + n [command]" tail, and the
// EventReader. blkparse.go and ftrace.go parse their own line headers.

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/internal/collect"
)

// Event is one action line of a blkparse or ftrace trace.
type Event struct {
	// Record holds the line's time, pid, command, device, sector range and
	// line number. Time, PID and Line are set for every action. Sector and
	// Sectors are those printed ("sector + n"; 0 when the line has none).
	// Op and Flags are decoded from RWBS for the bio actions Q, M, F and G
	// (where a bad RWBS is an error); for other actions they are decoded
	// when RWBS and size describe an I/O, and left zero otherwise. Process
	// is the name in [..], except for C, whose [..] holds an error code;
	// ftrace falls back to the task name of the line's prefix.
	Record
	// Action is the blktrace action letter: 'Q' queued, 'G' get request,
	// 'M' back merge (of a bio; after an I, of a request merged away),
	// 'F' front merge, 'I' inserted, 'D' issued, 'C' completed, 'P' plug,
	// 'U' unplug, 'T' an unplug the submitter did not ask for (printed
	// "UT": on blk-mq the plug flushed because its task went to sleep, on
	// 2.6 kernels the unplug timer), 'A' remap, 'X' split, 'B' bounce,
	// 'S' sleep, 'R' requeue, 'm' message (a scheduler's free text, bfq's
	// and cfq's).
	Action byte
	// RWBS is the RWBS column as printed ("WS", "FWS", "RA", "N" ...).
	RWBS string
	// CPU is the number of the CPU (from 0) the event was logged on.
	CPU int
	// Depth is, for U and T, the number of requests the unplug released
	// (the number after the command); 0 for other actions.
	Depth int
}

// EventReader reads every action of a blkparse or ftrace trace, in file
// order. Next returns io.EOF at the end; errors are sticky.
type EventReader struct {
	lr     *lineReader
	format Format
	parse  func(er *EventReader, text string) (ev Event, skip bool, err error)
	// ftrace timestamps are seconds since boot: base is the first event's.
	base     time.Duration
	haveBase bool
	done     bool
	err      error
}

// NewEventReader returns a reader of every action in r, which is in format
// FormatBlkparse or FormatFtrace. name identifies the source in errors.
func NewEventReader(r io.Reader, name string, f Format) (*EventReader, error) {
	er := &EventReader{lr: newLineReader(r, name), format: f}
	switch f {
	case FormatBlkparse:
		er.parse = parseBlkparseLine
	case FormatFtrace:
		er.parse = parseFtraceLine
	default:
		return nil, fmt.Errorf("trace: no events in format %q (only %q and %q)", f, FormatBlkparse, FormatFtrace)
	}
	return er, nil
}

// Next returns the next event.
func (er *EventReader) Next() (Event, error) {
	if er.err != nil {
		return Event{}, er.err
	}
	for {
		l, err := er.lr.next()
		if err != nil {
			er.err = err
			return Event{}, err
		}
		ev, skip, err := er.parse(er, l.text)
		if err != nil {
			er.err = lineError(er.lr.name, l, err)
			return Event{}, er.err
		}
		if er.done {
			er.err = io.EOF
			return Event{}, io.EOF
		}
		if skip {
			continue
		}
		ev.Line = l.n
		return ev, nil
	}
}

// ReadEvents reads every event of r (format FormatBlkparse or FormatFtrace),
// returning those read before an error, and the error.
func ReadEvents(r io.Reader, name string, f Format) ([]Event, error) {
	er, err := NewEventReader(r, name, f)
	if err != nil {
		return nil, err
	}
	return collect.All(er.Next)
}

// relTime turns an absolute ftrace timestamp into time since the first event.
func (er *EventReader) relTime(t time.Duration) time.Duration {
	if !er.haveBase {
		er.base, er.haveBase = t, true
	}
	return t - er.base
}

// isAction reports whether s is an action letter.
func isAction(s string) bool {
	return len(s) == 1 && (s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z')
}

// parseAction returns the action of an action column: one letter, or 'T'
// for "UT", the only action blkparse and the blk tracer print in two.
func parseAction(s string) (byte, bool) {
	if s == "UT" {
		return 'T', true
	}
	if isAction(s) {
		return s[0], true
	}
	return 0, false
}

// isBioAction reports the actions whose line describes one bio, whose RWBS
// and range must therefore decode: queue, get request, back and front merge.
func isBioAction(a byte) bool {
	return a == 'Q' || a == 'G' || a == 'M' || a == 'F'
}

// fillEvent decodes the RWBS column and the tail of an action line into ev,
// strictly for the bio actions and as far as it goes for the others.
func fillEvent(ev *Event, rwbs, tail string) error {
	ev.RWBS = rwbs
	strict := isBioAction(ev.Action)
	switch ev.Action {
	case 'm':
		return nil // a scheduler message: free text
	case 'P', 'U', 'T':
		return parsePlugTail(ev, tail)
	case 'X':
		return parseSplitTail(ev, rwbs, tail)
	case 'A':
		// A remap ("sector + n <- (dev) sector") carries no bio to
		// decode; keep the command where there is one.
		if i := strings.IndexByte(tail, '['); i >= 0 {
			if j := strings.LastIndexByte(tail, ']'); j > i {
				ev.Process = tail[i+1 : j]
			}
		}
		return nil
	}
	sector, n, cmd, err := parseTail(tail)
	if err != nil {
		if strict {
			return err
		}
		return nil
	}
	ev.Sector, ev.Sectors = sector, n
	if ev.Action != 'C' {
		ev.Process = cmd
	}
	op, flags, err := decodeRWBS(rwbs, n)
	if err != nil {
		if strict {
			return err
		}
		return nil
	}
	ev.Op, ev.Flags = op, flags
	if op == blkq.OpFlush {
		ev.Sector, ev.Sectors = 0, 0
	} else if sector > ^uint64(0)-uint64(n) {
		if strict {
			return badField("sector", "range %d+%d overflows", sector, n)
		}
		ev.Sector, ev.Sectors = 0, 0
	}
	return nil
}

// parsePlugTail parses what follows RWBS on a plug or unplug line: the
// command in [..], then, for U and T, the number of requests released
// ("[fio] 17"), which is ev.Depth.
func parsePlugTail(ev *Event, tail string) error {
	tail = strings.TrimSpace(tail)
	end := strings.LastIndexByte(tail, ']')
	if !strings.HasPrefix(tail, "[") || end < 0 {
		return badField("", "want \"[command]\" after %s, have %q", actionName(ev.Action), tail)
	}
	ev.Process = tail[1:end]
	depth := strings.TrimSpace(tail[end+1:])
	if depth == "" {
		return nil
	}
	if ev.Action == 'P' {
		return badField("", "want nothing after a plug's [command], have %q", depth)
	}
	n, err := parseID("depth", depth)
	ev.Depth = n
	return err
}

// parseSplitTail parses a split line's tail, "SECTOR / NEW [command]": the
// bio at SECTOR was split at NEW, so [SECTOR, NEW) went on as a bio of its
// own (its G or M follows) and the rest, from NEW, was resubmitted. The
// event is that first part: Sector and Sectors are [SECTOR, NEW).
func parseSplitTail(ev *Event, rwbs, tail string) error {
	tail = strings.TrimRight(tail, " \t")
	open := strings.IndexByte(tail, '[')
	if open < 0 || !strings.HasSuffix(tail, "]") {
		return badField("", "want \"sector / new sector [command]\" after X, have %q", tail)
	}
	f := strings.Fields(tail[:open])
	if len(f) != 3 || f[1] != "/" {
		return badField("", "want \"sector / new sector [command]\" after X, have %q", tail)
	}
	sector, err := parseUint("sector", f[0])
	if err != nil {
		return err
	}
	split, err := parseUint("new sector", f[2])
	if err != nil {
		return err
	}
	if split <= sector || split-sector > uint64(^uint32(0)) {
		return badField("new sector", "%d does not split a bio at sector %d", split, sector)
	}
	ev.Sector, ev.Sectors, ev.Process = sector, uint32(split-sector), tail[open+1:len(tail)-1]
	ev.Op, ev.Flags, err = decodeRWBS(rwbs, ev.Sectors)
	return err
}

// actionName returns an action as the trace prints it.
func actionName(a byte) string {
	if a == 'T' {
		return "UT"
	}
	return string(a)
}

// parseTail parses what follows RWBS on a bio action line:
//
//	SECTOR + N [COMMAND]
//	SECTOR + N (ELAPSED) [COMMAND]   (blkparse -t)
//	SECTOR [COMMAND]                 (blkparse, a bio of no data)
//	[COMMAND]                        (ftrace, a bio of no data)
//
// COMMAND may contain spaces; the line must end with its ']'.
func parseTail(tail string) (sector uint64, n uint32, cmd string, err error) {
	tail = strings.TrimRight(tail, " \t")
	open := strings.IndexByte(tail, '[')
	if open < 0 || !strings.HasSuffix(tail, "]") {
		return 0, 0, "", badField("", "want \"sector + count [command]\", have %q", tail)
	}
	cmd = tail[open+1 : len(tail)-1]
	pre := strings.TrimRight(tail[:open], " \t")
	if strings.HasSuffix(pre, ")") {
		i := strings.LastIndexByte(pre, '(')
		if i < 0 {
			return 0, 0, "", badField("", "unbalanced ')' in %q", tail)
		}
		pre = strings.TrimRight(pre[:i], " \t")
	}
	f := strings.Fields(pre)
	switch {
	case len(f) == 0:
		return 0, 0, cmd, nil
	case len(f) == 1:
		sector, err = parseUint("sector", f[0])
		return sector, 0, cmd, err
	case len(f) == 3 && f[1] == "+":
		if sector, err = parseUint("sector", f[0]); err != nil {
			return 0, 0, "", err
		}
		v, err := parseUint("count", f[2])
		if err != nil {
			return 0, 0, "", err
		}
		if v > uint64(^uint32(0)) {
			return 0, 0, "", badField("count", "%d sectors is too many", v)
		}
		return sector, uint32(v), cmd, nil
	}
	return 0, 0, "", badField("", "want \"sector + count [command]\", have %q", tail)
}

// decodeRWBS turns the RWBS column of a bio of n sectors into op and flags.
//
// The blktrace tracer (blkparse and ftrace's blk) writes [F]{D|W|R|N}[F][A][S][M]:
// a leading F is REQ_PREFLUSH, then discard, write, read, or N (no data),
// then F for FUA, A readahead, S sync, M meta. The block_* tracepoints write
// F for REQ_OP_FLUSH in the op position and DE for secure erase; 2.6 kernels
// wrote B for a barrier. A bio of no data with a preflush (an fsync's "FWS",
// a flush request's "FN") or with REQ_OP_FLUSH is OpFlush, as blkq's own
// fsync is: its flags keep only sync and meta. A data bio with a preflush is
// a write with FlagPreflush.
func decodeRWBS(s string, n uint32) (blkq.Op, blkq.Flags, error) {
	bad := func(why string) (blkq.Op, blkq.Flags, error) {
		return 0, 0, badField("RWBS", "%q: %s", s, why)
	}
	i, preflush := 0, false
	if len(s) >= 2 && s[0] == 'F' && strings.IndexByte("RWDNF", s[1]) >= 0 {
		preflush, i = true, 1
	}
	if i >= len(s) {
		return bad("empty")
	}
	kind := s[i]
	if strings.IndexByte("RWDNF", kind) < 0 {
		return bad("no R, W, D, N or F operation")
	}
	i++
	if kind == 'D' && i < len(s) && s[i] == 'E' {
		i++ // secure erase: a discard for our purposes
	}
	var flags blkq.Flags
	for ; i < len(s); i++ {
		switch s[i] {
		case 'F':
			flags |= blkq.FlagFUA
		case 'A':
			flags |= blkq.FlagReadAhead
		case 'S':
			flags |= blkq.FlagSync
		case 'M':
			flags |= blkq.FlagMeta
		case 'B':
			flags |= blkq.FlagPreflush | blkq.FlagFUA
		default:
			return bad(fmt.Sprintf("unknown letter %q", s[i]))
		}
	}
	if kind == 'F' || n == 0 && (preflush || flags&blkq.FlagPreflush != 0) {
		if n != 0 {
			return bad("a flush with data")
		}
		return blkq.OpFlush, flags & (blkq.FlagSync | blkq.FlagMeta), nil
	}
	if n == 0 {
		return bad("a bio of no data that is not a flush")
	}
	if preflush {
		flags |= blkq.FlagPreflush
	}
	switch kind {
	case 'R':
		return blkq.OpRead, flags, nil
	case 'W':
		return blkq.OpWrite, flags, nil
	case 'D':
		return blkq.OpDiscard, flags, nil
	}
	return bad("N (no operation) with data")
}

// parseDevice checks a "major,minor" column.
func parseDevice(s string) error {
	maj, min, ok := strings.Cut(s, ",")
	if !ok {
		return badField("device", "want major,minor, have %q", s)
	}
	if _, err := parseUint("device", maj); err != nil {
		return badField("device", "want major,minor, have %q", s)
	}
	if _, err := parseUint("device", min); err != nil {
		return badField("device", "want major,minor, have %q", s)
	}
	return nil
}
