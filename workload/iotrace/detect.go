package iotrace

// Format detection from content. Each text format is tried on the whole
// lines of the head, in the order of Formats; the first that parses them all
// (and finds at least one event or record) wins. The formats do not
// overlap: an iolog starts with its header, ftrace lines with "task-pid
// [cpu]" or (blk_classic) "maj,min cpu secs.nsecs pid", blkparse lines with
// "maj,min cpu seq secs.nsecs pid", MSR has 7 comma-separated fields with a
// host name second, SPC at least 5 with r/w fourth, DiskSim 5 space-separated
// numbers.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDetect is how much of head Detect reads, in bytes: hundreds of lines of
// any of the formats.
const maxDetect = 64 << 10

// blktraceMagic is the top 24 bits of a binary blktrace record's first word.
const blktraceMagic = 0x65617400

// Detect returns the format of a trace from its first bytes. It looks at the
// whole lines of the first 64 KiB at most (a few KiB is plenty), so passing a
// whole file is fine. The error lists every format
// tried and why each failed; a binary blktrace gets an error of its own.
//
// Content cannot tell units: DiskSim ASCII is always FormatDiskSim, whose
// reader takes MQSim's nanoseconds; DiskSim's own millisecond traces need
// NewDiskSimReader.
func Detect(head []byte) (Format, error) {
	if len(head) >= 4 && (binary.LittleEndian.Uint32(head)&^0xff == blktraceMagic || binary.BigEndian.Uint32(head)&^0xff == blktraceMagic) {
		return "", errors.New("trace: this is a binary blktrace (magic 0x656174xx), not text: read it with package blkq/trace, or blkparse it first")
	}
	if len(head) > maxDetect {
		head = head[:maxDetect]
	}
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1] // drop a partial last line
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "", errors.New("trace: input contains NUL bytes: not a text trace")
	}
	var why []string
	for _, f := range Formats {
		err := sniff(head, f)
		if err == nil {
			return f, nil
		}
		why = append(why, fmt.Sprintf("not %s (%v)", f, err))
	}
	return "", fmt.Errorf("trace: cannot tell the format: %s", strings.Join(why, "; "))
}

// sniff reads head as format f and reports why it is not that format.
func sniff(head []byte, f Format) error {
	if f == FormatIolog {
		first, _, _ := bytes.Cut(head, []byte("\n"))
		if iologVersion(string(first)) == 0 {
			return fmt.Errorf("line 1 is not \"fio version 2 iolog\" or \"fio version 3 iolog\"")
		}
	}
	n := 0
	var err error
	if f == FormatBlkparse || f == FormatFtrace {
		er, _ := NewEventReader(bytes.NewReader(head), "head", f)
		for err == nil {
			if _, err = er.Next(); err == nil {
				n++
			}
		}
		if n == 0 && err == io.EOF && f == FormatFtrace && bytes.HasPrefix(head, []byte("# tracer: blk")) {
			return nil // the blk tracer's header, and no events yet
		}
	} else {
		r, _ := NewReader(bytes.NewReader(head), "head", f)
		for err == nil {
			if _, err = r.Next(); err == nil {
				n++
			}
		}
	}
	if err != io.EOF {
		var pe *ParseError
		if errors.As(err, &pe) {
			pe.Name = "line"
			return errors.New("line " + strings.TrimPrefix(pe.Error(), "line:"))
		}
		return err
	}
	if n == 0 {
		if f == FormatIolog {
			return nil // a header and no I/O yet
		}
		return errors.New("no records")
	}
	return nil
}
