package trace

import (
	"encoding/binary"
	"fmt"
)

// Magic is the blktrace magic number without its version byte; a record's
// first word is Magic|version.
const Magic = 0x65617400

// Version is the record version the Writer writes.
const Version = 7

// RecordSize is the size of one record without its payload, in bytes.
const RecordSize = 48

// Trace actions: the low 16 bits of Record.Action (__BLK_TA_* in the
// kernel's uapi header). The comment gives blkparse's letter.
const (
	TAQueue       = 1  // Q: the block layer got the bio
	TABackMerge   = 2  // M: merged at the back of a request
	TAFrontMerge  = 3  // F: merged at the front of a request
	TAGetRq       = 4  // G: a request was allocated
	TASleepRq     = 5  // S: no request free; the submitter sleeps
	TARequeue     = 6  // R: the request went back to the queue
	TAIssue       = 7  // D: issued to the driver
	TAComplete    = 8  // C: completed
	TAPlug        = 9  // P: plugged
	TAUnplugIO    = 10 // U: unplugged; payload: be64 number of requests
	TAUnplugTimer = 11 // UT: unplugged by the timer (legacy)
	TAInsert      = 12 // I: inserted into the scheduler
	TASplit       = 13 // X: the bio was split; payload: be64 new sector
	TABounce      = 14 // B: bounced
	TARemap       = 15 // A: remapped; payload: a remap record
	TAAbort       = 16 // no blkparse letter
	TADrvData     = 17 // driver data (binary output only)

	// TACgroup is set in the low 16 bits when an 8-byte cgroup id comes
	// first in the payload.
	TACgroup = 1 << 8
)

// Trace categories: the high 16 bits of Record.Action (BLK_TC_* in the
// kernel; the value here is the category itself, not shifted).
const (
	TCRead     = 1 << 0
	TCWrite    = 1 << 1
	TCFlush    = 1 << 2 // a flush, or a write with a preflush
	TCSync     = 1 << 3
	TCQueue    = 1 << 4
	TCRequeue  = 1 << 5
	TCIssue    = 1 << 6
	TCComplete = 1 << 7
	TCFS       = 1 << 8 // a file-system (not pass-through) request
	TCPC       = 1 << 9 // a pass-through (SCSI command) request
	TCNotify   = 1 << 10
	TCAhead    = 1 << 11
	TCMeta     = 1 << 12
	TCDiscard  = 1 << 13
	TCDrvData  = 1 << 14
	TCFUA      = 1 << 15
)

// TCShift is where the categories start in Record.Action.
const TCShift = 16

// Notify records (category TCNotify): the low bits say which kind.
const (
	TNProcess   = 0 // payload: the task's command name (16 bytes, NUL padded)
	TNTimestamp = 1 // payload: u32 seconds, u32 nanoseconds of wall time
	TNMessage   = 2 // payload: a text message
)

// Full action words of the notify records.
const (
	ActionProcess   = TCNotify<<TCShift | TNProcess
	ActionTimestamp = TCNotify<<TCShift | TNTimestamp
	ActionMessage   = TCNotify<<TCShift | TNMessage
)

// commLen is the size of a process note's name (TASK_COMM_LEN).
const commLen = 16

// Dev is a device number packed as the kernel's dev_t is in a trace and
// as blkparse unpacks it: major<<20 | minor.
type Dev uint32

// minorBits is blkparse's MINORBITS.
const minorBits = 20

// DefaultDev is the device the Writer names unless told otherwise: 8,0
// (sda).
const DefaultDev = Dev(8 << minorBits)

// MakeDev packs a major and minor number.
func MakeDev(major, minor uint32) Dev {
	return Dev(major<<minorBits | minor&(1<<minorBits-1))
}

// Major returns the major number.
func (d Dev) Major() uint32 { return uint32(d) >> minorBits }

// Minor returns the minor number.
func (d Dev) Minor() uint32 { return uint32(d) & (1<<minorBits - 1) }

// String returns "major,minor".
func (d Dev) String() string { return fmt.Sprintf("%d,%d", d.Major(), d.Minor()) }

// A Record is one struct blk_io_trace and its payload.
type Record struct {
	Version  uint8  // the low byte of the magic word (6 or 7)
	Sequence uint32 // per-CPU event number from 1 (0 in notify records)
	Time     uint64 // ns (the Writer: since the run's clock started)
	Sector   uint64 // 512-byte sectors
	Bytes    uint32
	Action   uint32 // categories<<16 | action
	PID      uint32
	Device   Dev
	CPU      uint32
	Error    uint16 // a negative errno, truncated to 16 bits, as the kernel stores it
	PDU      []byte // the payload (pdu_len bytes)
}

// What returns the action without its categories and the cgroup flag:
// one of the TA constants, or a TN constant in a notify record.
func (r *Record) What() uint16 { return uint16(r.Action) &^ TACgroup }

// Categories returns the category bits (the TC constants).
func (r *Record) Categories() uint16 { return uint16(r.Action >> TCShift) }

// IsNotify reports whether the record is a notify record (a process name,
// a timestamp or a message) rather than an event.
func (r *Record) IsNotify() bool { return r.Categories()&TCNotify != 0 }

// Sectors returns the length in 512-byte sectors (bytes >> 9, as blkparse
// computes it).
func (r *Record) Sectors() uint32 { return r.Bytes >> 9 }

// payload returns the payload after the cgroup id, if any.
func (r *Record) payload() []byte {
	if r.Action&TACgroup != 0 {
		if len(r.PDU) < 8 {
			return nil
		}
		return r.PDU[8:]
	}
	return r.PDU
}

// PDUInt returns the big-endian 64-bit integer that U, UT and X records
// carry (the number of requests unplugged; the split sector).
func (r *Record) PDUInt() (uint64, bool) {
	p := r.payload()
	if len(p) < 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(p), true
}

// Name returns the command name a process note carries.
func (r *Record) Name() string {
	p := r.payload()
	for i, c := range p {
		if c == 0 {
			return string(p[:i])
		}
	}
	return string(p)
}

// Letter returns blkparse's name for the action: "Q", "M", ..., "UT" for a
// timer unplug, "m" for a message; "" for other notify records and for
// actions blkparse does not print.
func (r *Record) Letter() string {
	if r.IsNotify() {
		if r.What() == TNMessage {
			return "m"
		}
		return ""
	}
	if w := int(r.What()); w < len(letters) {
		return letters[w]
	}
	return ""
}

var letters = [...]string{
	TAQueue: "Q", TABackMerge: "M", TAFrontMerge: "F", TAGetRq: "G", TASleepRq: "S",
	TARequeue: "R", TAIssue: "D", TAComplete: "C", TAPlug: "P", TAUnplugIO: "U",
	TAUnplugTimer: "UT", TAInsert: "I", TASplit: "X", TABounce: "B", TARemap: "A",
}

// RWBS returns blkparse's RWBS column: F for a flush or preflush, then one
// of D (discard), W (write), R (read with data) or N (none), then F for
// FUA, A for read-ahead, S for sync and M for metadata, in that order.
func (r *Record) RWBS() string {
	c := r.Categories()
	var b [8]byte
	n := 0
	if c&TCFlush != 0 {
		b[n] = 'F'
		n++
	}
	switch {
	case c&TCDiscard != 0:
		b[n] = 'D'
	case c&TCWrite != 0:
		b[n] = 'W'
	case r.Bytes != 0:
		b[n] = 'R'
	default:
		b[n] = 'N'
	}
	n++
	for _, f := range [...]struct {
		bit uint16
		c   byte
	}{{TCFUA, 'F'}, {TCAhead, 'A'}, {TCSync, 'S'}, {TCMeta, 'M'}} {
		if c&f.bit != 0 {
			b[n] = f.c
			n++
		}
	}
	return string(b[:n])
}
