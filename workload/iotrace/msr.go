package iotrace

// MSR Cambridge block traces (SNIA IOTTA set 388), CSV without a header:
//
//	Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
//	128166385295514663,hm,0,Write,9056014336,2048,2833
//
// Timestamp is a Windows FILETIME: 100 ns ticks since 1601-01-01 UTC. Time
// is measured from the first record's Timestamp (the records are in
// collection order, which is not strictly time order, so Time can be
// negative). Hostname becomes Process and DiskNumber PID (the files are
// named <host>_<disk>.csv). Type is Read or Write (any case). Offset and Size
// are in bytes; the range is rounded out to whole 512-byte sectors.
// ResponseTime (100 ns ticks) must be a number but is not kept.
//
// A first line that names the seven columns is taken as a header and
// skipped; so are blank lines.

import (
	"io"
	"math"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
)

// filetimeTick is the unit of a Windows FILETIME.
const filetimeTick = 100 * time.Nanosecond

type msrReader struct {
	lr       *lineReader
	base     uint64 // first record's Timestamp
	haveBase bool
	err      error
}

func newMSRReader(r io.Reader, name string) *msrReader {
	return &msrReader{lr: newLineReader(r, name)}
}

func (m *msrReader) Next() (Record, error) {
	if m.err != nil {
		return Record{}, m.err
	}
	for {
		l, err := m.lr.next()
		if err != nil {
			m.err = err
			return Record{}, err
		}
		if isBlank(l.text) || l.n == 1 && isMSRHeader(l.text) {
			continue
		}
		rec, ts, err := parseMSRLine(l.text)
		if err == nil {
			if !m.haveBase {
				m.base, m.haveBase = ts, true
			}
			rec.Time, err = filetimeSince(ts, m.base)
		}
		if err != nil {
			m.err = lineError(m.lr.name, l, err)
			return Record{}, m.err
		}
		rec.Line = l.n
		return rec, nil
	}
}

// isMSRHeader reports a header row naming the seven columns.
func isMSRHeader(s string) bool {
	return strings.EqualFold(strings.Join(splitCSV(s), ","), "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime")
}

// filetimeSince returns ts-base as a duration; both are FILETIME ticks.
func filetimeSince(ts, base uint64) (time.Duration, error) {
	const limit = uint64(math.MaxInt64 / filetimeTick)
	if ts >= base {
		if ts-base > limit {
			return 0, badField("Timestamp", "%d is too far from the first record's %d", ts, base)
		}
		return time.Duration(ts-base) * filetimeTick, nil
	}
	if base-ts > limit {
		return 0, badField("Timestamp", "%d is too far from the first record's %d", ts, base)
	}
	return -time.Duration(base-ts) * filetimeTick, nil
}

func parseMSRLine(text string) (Record, uint64, error) {
	var rec Record
	f := splitCSV(text)
	if len(f) != 7 {
		return rec, 0, badField("", "want 7 fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), have %d", len(f))
	}
	ts, err := parseUint("Timestamp", f[0])
	if err != nil {
		return rec, 0, err
	}
	if f[1] == "" {
		return rec, 0, badField("Hostname", "empty")
	}
	rec.Process = f[1]
	if rec.PID, err = parseID("DiskNumber", f[2]); err != nil {
		return rec, 0, err
	}
	switch strings.ToLower(f[3]) {
	case "read":
		rec.Op = blkq.OpRead
	case "write":
		rec.Op = blkq.OpWrite
	default:
		return rec, 0, badField("Type", "want Read or Write, have %q", f[3])
	}
	off, err := parseUint("Offset", f[4])
	if err != nil {
		return rec, 0, err
	}
	size, err := parseUint("Size", f[5])
	if err != nil {
		return rec, 0, err
	}
	if rec.Sector, rec.Sectors, err = sectorRange("Size", off, size); err != nil {
		return rec, 0, err
	}
	if _, err := parseUint("ResponseTime", f[6]); err != nil {
		return rec, 0, err
	}
	return rec, ts, nil
}
