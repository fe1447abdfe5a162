package iotrace

// fio's I/O logs (write_iolog=, read_iolog=; HOWTO "Trace file format" and
// iolog.c), versions 2 and 3:
//
//	fio version 2 iolog              fio version 3 iolog
//	/dev/sdb add                     46 testfile add
//	/dev/sdb open                    191 testfile open
//	/dev/sdb wait 5000 0             195 testfile read 0 4096
//	/dev/sdb read 0 4096             697 testfile write 28672 4096
//	/dev/sdb close                   1989 testfile close
//
// A line is "[timestamp] file action [offset length]". File actions (add,
// open, close) make no record. I/O actions: read, write, trim (OpDiscard),
// sync and datasync (OpFlush with FlagSync; their offset and length, which
// fio writes as numbers, are not used and may be left out). offset and
// length are bytes, rounded out to whole 512-byte sectors; Device is the
// file name, since offsets are relative to that file.
//
// Time. Version 3's timestamp is counted from the start of the job; fio
// writes it with utime_since_now (microseconds) and replays it as
// microseconds, so it is read as microseconds. Version 2 has no timestamps:
// fio replays a "wait" by sleeping until its offset, counted in
// milliseconds since fio started (read_iolog_get: mtime_since_genesis),
// although the HOWTO says "microseconds ... relative to the previous wait".
// This reader follows the code: every record after a wait has Time at least
// the wait's offset in milliseconds; records before any wait have Time 0.
//
// Like fio: version 3 ignores wait lines and both versions ignore
// sync_file_range (fio's writer can log it; its reader skips it). Unlike
// fio, which logs and skips a malformed line, this reader stops with an
// error. Blank lines are skipped. File names cannot contain spaces (fio
// reads them with %256s).

import (
	"io"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
)

type iologReader struct {
	lr      *lineReader
	version int           // 2 or 3, once the header is read
	wait    time.Duration // version 2: the last wait's deadline
	err     error
}

func newIologReader(r io.Reader, name string) *iologReader {
	return &iologReader{lr: newLineReader(r, name)}
}

// iologVersion returns 2 or 3 for an iolog header line, 0 otherwise.
func iologVersion(s string) int {
	switch strings.TrimSpace(s) {
	case "fio version 2 iolog":
		return 2
	case "fio version 3 iolog":
		return 3
	}
	return 0
}

func (r *iologReader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	for {
		l, err := r.lr.next()
		if err != nil {
			if err == io.EOF && r.version == 0 {
				err = &ParseError{Name: r.lr.name, Line: 1, Msg: `empty input: want "fio version 2 iolog" or "fio version 3 iolog"`}
			}
			r.err = err
			return Record{}, err
		}
		if r.version == 0 {
			if r.version = iologVersion(l.text); r.version == 0 {
				r.err = lineError(r.lr.name, l, badField("", "want \"fio version 2 iolog\" or \"fio version 3 iolog\", have %q", truncate(l.text, 40)))
				return Record{}, r.err
			}
			continue
		}
		if isBlank(l.text) {
			continue
		}
		rec, ok, err := r.parse(l.text)
		if err != nil {
			r.err = lineError(r.lr.name, l, err)
			return Record{}, r.err
		}
		if !ok {
			continue
		}
		rec.Line = l.n
		return rec, nil
	}
}

// parse turns one line into a record; ok is false for lines that make none.
func (r *iologReader) parse(text string) (rec Record, ok bool, err error) {
	f := strings.Fields(text)
	rec.Time = r.wait
	if r.version == 3 {
		if len(f) < 3 {
			return rec, false, badField("", "want \"timestamp file action [offset length]\", have %d fields", len(f))
		}
		if rec.Time, err = parseDuration("timestamp", f[0], time.Microsecond); err != nil {
			return rec, false, err
		}
		f = f[1:]
	} else if len(f) < 2 {
		return rec, false, badField("", "want \"file action [offset length]\", have %d fields", len(f))
	}
	file, action, args := f[0], f[1], f[2:]
	if len(args) != 0 && len(args) != 2 {
		return rec, false, badField("", "action %q: want offset and length or neither, have %d more fields", action, len(args))
	}
	switch action {
	case "add", "open", "close":
		if len(args) != 0 {
			return rec, false, badField("action", "%s takes no offset and length", action)
		}
		return rec, false, nil
	case "sync_file_range":
		return rec, false, nil
	case "wait":
		if r.version == 3 {
			return rec, false, nil // fio: "ignoring wait command with version 3"
		}
		if len(args) != 2 {
			return rec, false, badField("action", "wait needs an offset (milliseconds) and a length")
		}
		w, err := parseDuration("offset", args[0], time.Millisecond)
		if err != nil {
			return rec, false, err
		}
		if _, err := parseUint("length", args[1]); err != nil {
			return rec, false, err
		}
		r.wait = max(r.wait, w)
		return rec, false, nil
	case "sync", "datasync":
		if len(args) == 2 {
			if _, err := parseUint("offset", args[0]); err != nil {
				return rec, false, err
			}
			if _, err := parseUint("length", args[1]); err != nil {
				return rec, false, err
			}
		}
		rec.Device, rec.Op, rec.Flags = file, blkq.OpFlush, blkq.FlagSync
		return rec, true, nil
	case "read":
		rec.Op = blkq.OpRead
	case "write":
		rec.Op = blkq.OpWrite
	case "trim":
		rec.Op = blkq.OpDiscard
	default:
		return rec, false, badField("action", "unknown action %q (want add, open, close, read, write, trim, sync, datasync or wait)", truncate(action, 40))
	}
	if len(args) != 2 {
		return rec, false, badField("action", "%s needs an offset and a length", action)
	}
	off, err := parseUint("offset", args[0])
	if err != nil {
		return rec, false, err
	}
	n, err := parseUint("length", args[1])
	if err != nil {
		return rec, false, err
	}
	if rec.Sector, rec.Sectors, err = sectorRange("length", off, n); err != nil {
		return rec, false, err
	}
	rec.Device = file
	return rec, true, nil
}

// truncate shortens s for an error message.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
