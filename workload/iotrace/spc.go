package iotrace

// SPC trace format (the UMass Trace Repository's "Financial1/2" and
// "WebSearch1-3" traces), CSV without a header:
//
//	ASU,LBA,Size,Opcode,Timestamp[,optional fields]
//	0,303567,3584,w,0.000000
//
// ASU is the zero-based application storage unit; it becomes PID, the
// stream id. LBA is in 512-byte blocks, Size in bytes (rounded up to whole
// sectors). Opcode is r or w, in either case. Timestamp is seconds from the
// start of the trace, with a fraction; Time is that, in nanoseconds. The
// SPC specification allows further fields after Timestamp; they are
// ignored. Blank lines are skipped.

import (
	"io"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
)

type spcReader struct {
	lr  *lineReader
	err error
}

func newSPCReader(r io.Reader, name string) *spcReader {
	return &spcReader{lr: newLineReader(r, name)}
}

func (s *spcReader) Next() (Record, error) {
	if s.err != nil {
		return Record{}, s.err
	}
	for {
		l, err := s.lr.next()
		if err != nil {
			s.err = err
			return Record{}, err
		}
		if isBlank(l.text) {
			continue
		}
		rec, err := parseSPCLine(l.text)
		if err != nil {
			s.err = lineError(s.lr.name, l, err)
			return Record{}, s.err
		}
		rec.Line = l.n
		return rec, nil
	}
}

func parseSPCLine(text string) (Record, error) {
	var rec Record
	f := splitCSV(text)
	if len(f) < 5 {
		return rec, badField("", "want 5 fields (ASU,LBA,Size,Opcode,Timestamp), have %d", len(f))
	}
	var err error
	if rec.PID, err = parseID("ASU", f[0]); err != nil {
		return rec, err
	}
	if rec.Sector, err = parseUint("LBA", f[1]); err != nil {
		return rec, err
	}
	size, err := parseUint("Size", f[2])
	if err != nil {
		return rec, err
	}
	if size == 0 {
		return rec, badField("Size", "zero-length I/O")
	}
	n := size/blkq.SectorSize + min(size%blkq.SectorSize, 1)
	if rec.Sectors, err = sectorCount("Size", rec.Sector, n); err != nil {
		return rec, err
	}
	switch strings.ToLower(f[3]) {
	case "r":
		rec.Op = blkq.OpRead
	case "w":
		rec.Op = blkq.OpWrite
	default:
		return rec, badField("Opcode", "want r or w, have %q", f[3])
	}
	if rec.Time, err = parseDuration("Timestamp", f[4], time.Second); err != nil {
		return rec, err
	}
	return rec, nil
}
