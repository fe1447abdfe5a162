package trace

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// Print writes recs as blkparse's default output does (blkparse -i NAME,
// the lines between "Input file ... added" and the closing summary; see
// PrintSummary): records merged across CPUs by time as blkparse merges its
// per-CPU files, times relative to the first record, each line the header
// "%D %2c %8s %5T.%9t %5p %2a %3d " and the action's tail. Task names come
// from the process notes anywhere in recs ("(null)" for a pid with none,
// as glibc prints blkparse's missing name; blkparse itself knows a note
// only once it has read it, at most 512 records ahead). Records blkparse
// 1.2.0 rejects on standard error ("Bad fs action", "Bad pc action"),
// driver data and records without categories print nothing.
func Print(w io.Writer, recs []Record) error {
	names := Names(recs)
	order, genesis := parseOrder(recs)
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, i := range order {
		printRecord(bw, &recs[i], recs[i].Time-genesis, names)
	}
	return bw.Flush()
}

// printRecord writes one record's line, t being its time since genesis.
func printRecord(w *bufio.Writer, r *Record, t uint64, names map[uint32]string) {
	if r.Action&0xffff0000 == 0 {
		return // blkparse's default action mask passes only records with a category
	}
	if r.Action == ActionMessage {
		if len(r.PDU) > 0 {
			fmt.Fprintf(w, "%3d,%-3d %2d %8s %5d.%09d %5d %2s %3s %s\n",
				r.Device.Major(), r.Device.Minor(), r.CPU, "0", int32(t/1e9), t%1e9, 0, "m", "N", cString(r.PDU))
		}
		return
	}
	act := r.Action & 0xffff
	var letter string
	if r.Categories()&TCPC != 0 {
		switch act {
		case TAQueue, TAGetRq, TASleepRq, TARequeue, TAIssue, TAComplete, TAInsert:
			letter = letters[act]
		}
	} else {
		switch act {
		case TAQueue, TAInsert, TABackMerge, TAFrontMerge, TAGetRq, TASleepRq, TARequeue, TAIssue,
			TAComplete, TAPlug, TAUnplugIO, TAUnplugTimer, TASplit, TABounce, TARemap:
			letter = letters[act]
		}
	}
	if letter == "" {
		return
	}
	name, ok := names[r.PID]
	if !ok {
		name = "(null)"
	}
	dev := r.Device
	var remap struct {
		from, to Dev
		sector   uint64
	}
	if act == TARemap {
		p := make([]byte, 16)
		copy(p, r.PDU)
		remap.from = Dev(binary.BigEndian.Uint32(p[0:]))
		remap.to = Dev(binary.BigEndian.Uint32(p[4:]))
		remap.sector = binary.BigEndian.Uint64(p[8:])
		dev = remap.to
	}
	fmt.Fprintf(w, "%3d,%-3d %2d %8d %5d.%09d %5d %2s %3s ",
		dev.Major(), dev.Minor(), r.CPU, int32(r.Sequence), int32(t/1e9), t%1e9, r.PID, letter, r.RWBS())
	pc := r.Categories()&TCPC != 0
	// blkparse hands the payload to the formatter only for a pass-through
	// request's D, I and C.
	var pdu []byte
	if pc && (act == TAIssue || act == TAInsert || act == TAComplete) {
		pdu = r.PDU
	}
	switch letter[0] {
	case 'R', 'C':
		switch {
		case pc:
			if p := dumpPDU(pdu); p != "" {
				fmt.Fprintf(w, "(%s) ", p)
			}
			fmt.Fprintf(w, "[%d]\n", r.Error)
		case r.Sectors() != 0:
			fmt.Fprintf(w, "%d + %d [%d]\n", r.Sector, r.Sectors(), r.Error)
		default:
			fmt.Fprintf(w, "%d [%d]\n", r.Sector, r.Error)
		}
	case 'D', 'I', 'Q', 'B':
		switch {
		case pc:
			fmt.Fprintf(w, "%d ", r.Bytes)
			if p := dumpPDU(pdu); p != "" {
				fmt.Fprintf(w, "(%s) ", p)
			}
			fmt.Fprintf(w, "[%s]\n", name)
		case r.Sectors() != 0:
			fmt.Fprintf(w, "%d + %d [%s]\n", r.Sector, r.Sectors(), name)
		default:
			fmt.Fprintf(w, "[%s]\n", name)
		}
	case 'M', 'F', 'G', 'S':
		if r.Sectors() != 0 {
			fmt.Fprintf(w, "%d + %d [%s]\n", r.Sector, r.Sectors(), name)
		} else {
			fmt.Fprintf(w, "[%s]\n", name)
		}
	case 'P':
		fmt.Fprintf(w, "[%s]\n", name)
	case 'U':
		n, _ := r.PDUInt()
		fmt.Fprintf(w, "[%s] %d\n", name, uint32(n))
	case 'A':
		fmt.Fprintf(w, "%d + %d <- (%d,%d) %d\n", r.Sector, r.Sectors(),
			remap.from.Major(), remap.from.Minor(), remap.sector)
	case 'X':
		n, _ := r.PDUInt()
		fmt.Fprintf(w, "%d / %d [%s]\n", r.Sector, uint32(n), name)
	}
}

// dumpPDU formats a payload as blkparse does: hex bytes separated by
// spaces, cut short with " .." where only zero bytes remain.
func dumpPDU(p []byte) string {
	var b strings.Builder
	for i, c := range p {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%02x", c)
		if c == 0 && allZero(p[i:]) {
			b.WriteString(" ..")
			break
		}
	}
	return b.String()
}

func allZero(p []byte) bool {
	for _, c := range p {
		if c != 0 {
			return false
		}
	}
	return true
}

// cString returns p up to its first NUL byte.
func cString(p []byte) string {
	for i, c := range p {
		if c == 0 {
			return string(p[:i])
		}
	}
	return string(p)
}
