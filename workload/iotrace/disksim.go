package iotrace

// DiskSim ASCII traces as MQSim reads them (src/host/IO_Flow_Trace_Based.cpp
// and ASCII_Trace_Definition.h in CMU-SAFARI/MQSim), one request a line,
// separated by spaces:
//
//	arrival_time device start_sector size_in_sectors type
//	11413000 0 657728 16 1
//
// arrival_time is counted from the start of the simulation (MQSim schedules
// the first request at its raw time), in nanoseconds for MQSim; DiskSim's
// own traces count milliseconds with a fraction (use NewDiskSimReader with
// time.Millisecond). device is a number MQSim ignores; it becomes PID, the
// stream id. start_sector and size_in_sectors are in 512-byte sectors. type
// is 0 for a write and 1 for a read (MQSim treats anything but "0" as a
// read; this reader rejects other values, and DiskSim's other flag bits).
//
// Differences from MQSim, which stops silently at the first line that does
// not have five fields and parses numbers with strtoul(..., 0) (so "010" is
// octal there): here such a line is an error, numbers are decimal, and a
// size of 0 is an error. Blank lines are skipped. MQSim requires arrival
// times not to decrease; this reader does not check it.

import (
	"io"
	"strings"
	"time"

	"github.com/blkq-dev/blkq"
)

// NewDiskSimReader returns a reader of DiskSim ASCII whose arrival times
// count unit (time.Nanosecond for MQSim, time.Millisecond for DiskSim;
// fractions finer than 1 ns are dropped). unit must be a power of ten
// nanoseconds. name identifies the source in errors.
func NewDiskSimReader(r io.Reader, name string, unit time.Duration) Reader {
	return &disksimReader{lr: newLineReader(r, name), unit: unit}
}

type disksimReader struct {
	lr   *lineReader
	unit time.Duration
	err  error
}

func (d *disksimReader) Next() (Record, error) {
	if d.err != nil {
		return Record{}, d.err
	}
	for {
		l, err := d.lr.next()
		if err != nil {
			d.err = err
			return Record{}, err
		}
		if isBlank(l.text) {
			continue
		}
		rec, err := parseDiskSimLine(l.text, d.unit)
		if err != nil {
			d.err = lineError(d.lr.name, l, err)
			return Record{}, d.err
		}
		rec.Line = l.n
		return rec, nil
	}
}

func parseDiskSimLine(text string, unit time.Duration) (Record, error) {
	var rec Record
	f := strings.Fields(text)
	if len(f) != 5 {
		return rec, badField("", "want 5 fields (arrival_time device start_sector size_in_sectors type), have %d", len(f))
	}
	var err error
	if rec.Time, err = parseDuration("arrival_time", f[0], unit); err != nil {
		return rec, err
	}
	if rec.PID, err = parseID("device", f[1]); err != nil {
		return rec, err
	}
	if rec.Sector, err = parseUint("start_sector", f[2]); err != nil {
		return rec, err
	}
	n, err := parseUint("size_in_sectors", f[3])
	if err != nil {
		return rec, err
	}
	if rec.Sectors, err = sectorCount("size_in_sectors", rec.Sector, n); err != nil {
		return rec, err
	}
	switch f[4] {
	case "0":
		rec.Op = blkq.OpWrite
	case "1":
		rec.Op = blkq.OpRead
	default:
		return rec, badField("type", "want 0 (write) or 1 (read), have %q", f[4])
	}
	return rec, nil
}
