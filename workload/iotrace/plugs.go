package iotrace

// Plugs: which bios the kernel submitted together under one plug, read
// back from the P and U events of a blkparse or ftrace trace, so that a
// replay can plug them as the kernel did (Record.Plug).
//
// A task plugs before it submits a batch of bios (io_submit of more than
// two iocbs, write-back, read-ahead; on Linux 5.x and later every
// submit_bio plugs too, so a lone bio is a plug of one). Its first request
// on the plug is traced P, after its G; the flush at the end, U with the
// number of requests released. A bio that merges traces nothing of the
// plug. Between the first bio and the U, the same task's other bios are
// on the same plug. Two things flush a plug without ending it:
//
//   - reaching the plug's limits (32 requests, or a last request of 128
//     KiB) while adding a request: U, then at once P for the request that
//     overflowed, before the task's next Q;
//   - the task going to sleep, for a request or anything else: UT, after
//     which it goes on with the same plug when it wakes (PlugSlept marks
//     the bio before it when that bio had its request already, as a
//     replay cannot know that its task would have waited for that bio's
//     completion).
//
// So a task's plug ends at a U that is followed, among that task's events,
// by its next Q rather than by a P; the Q records of a task from one such
// end to the next are one plug. A task that inserts a request (I) before
// any P since its plug opened submitted without a plug (kernels before
// 5.x, or a path that does not plug), and its plug ends there: each such
// bio is a plug of its own. This is per-task plugging, as Linux has had
// since 3.0; the queue-wide plugging of 2.6 kernels, whose P and U belong
// to no task, is not told apart. The last record of a plug can only be
// known when the task's next Q (or its P) has been read, so the reader
// holds records back until then, at most maxPlugLookahead of them: past
// that, the oldest record still open ends its plug. A trace with no P or U
// event in its first maxPlugLookahead records, or at all, says nothing of
// plugs and its records get Plug 0.

import "io"

// Plug says how the kernel plugged a record's bio, for the traces that
// show it; 0 when the trace does not.
type Plug uint8

// Plug bits.
const (
	// PlugIn: the trace shows its plugs; the bio was submitted under one.
	PlugIn Plug = 1 << iota
	// PlugFirst: the first bio of its task's plug.
	PlugFirst
	// PlugLast: the last bio of its task's plug; the plug was flushed after
	// it.
	PlugLast
	// PlugSlept: the task slept after this bio had its request (or
	// merged), before its next one, and so flushed its plug, which it
	// kept (UT): waiting for the I/O itself (a discard's BLKDISCARD, an
	// fsync). A sleep for the bio's own request (Q, UT, then its G) is
	// not marked: a replay's queue decides that one.
	PlugSlept
)

// maxPlugLookahead is the most records the plug reader holds back.
const maxPlugLookahead = 1 << 14

// plugReader is the Reader of blkparse and ftrace traces: their Q events,
// each with the plug it was submitted under.
type plugReader struct {
	next  func() (Event, error) // the trace's events, in file order
	mode  plugMode
	held  []heldRecord      // read and not yet handed out, in order
	first int64             // sequence number of held[0]
	seq   int64             // sequence number of the next Q
	plugs map[int]*openPlug // by pid
	err   error             // the event reader's error, once it has ended
	ended bool              // every plug has been closed after err
}

// plugMode is what the reader knows of the trace's plugs.
type plugMode uint8

const (
	plugsUnknown plugMode = iota // no P or U yet: records are held, plugs followed
	plugsShown                   // the trace has P or U events
	plugsNone                    // none in the first maxPlugLookahead records, or at all
)

type heldRecord struct {
	rec  Record
	done bool // its Plug bits are final
}

// openPlug is a task's plug, open since its first Q.
type openPlug struct {
	last    int64 // sequence number of its latest record
	flushed bool  // a U since that record, not yet followed by a P
	plugged bool  // a P since it opened: a request of it went on the plug
	settled bool  // the latest record's bio has its M, F or G
}

func newPlugReader(next func() (Event, error)) *plugReader {
	return &plugReader{next: next, plugs: map[int]*openPlug{}}
}

// eventRecords returns the record of each Q event of events, in order,
// with its Plug and Splits: what a plugReader of the same trace gives.
func eventRecords(events []Event) []Record {
	i := 0
	p := newPlugReader(func() (Event, error) {
		if i == len(events) {
			return Event{}, io.EOF
		}
		i++
		return events[i-1], nil
	})
	var out []Record
	for {
		r, err := p.Next()
		if err != nil {
			return out
		}
		out = append(out, r)
	}
}

func (p *plugReader) Next() (Record, error) {
	for {
		if len(p.held) > 0 && p.held[0].done && p.mode != plugsUnknown {
			r := p.held[0].rec
			p.held[0] = heldRecord{}
			p.held = p.held[1:]
			p.first++
			return r, nil
		}
		if p.err != nil {
			if p.ended {
				return Record{}, p.err
			}
			p.end()
			continue
		}
		ev, err := p.next()
		if err != nil {
			p.err = err
			continue
		}
		p.event(ev)
		if len(p.held) > maxPlugLookahead && (!p.held[0].done || p.mode == plugsUnknown) {
			if p.mode == plugsUnknown {
				p.giveUp()
			} else {
				p.close(p.held[0].rec.PID) // a plug too long to follow: end it here
			}
		}
	}
}

// event follows one event of the trace.
func (p *plugReader) event(ev Event) {
	if p.mode == plugsNone {
		if ev.Action == 'Q' {
			p.held = append(p.held, heldRecord{rec: ev.Record, done: true})
			p.seq++
		}
		return
	}
	switch ev.Action {
	case 'Q':
		pl := p.plugs[ev.PID]
		if pl != nil && pl.flushed {
			p.close(ev.PID)
			pl = nil
		}
		plug := PlugIn
		if pl == nil {
			plug |= PlugFirst
			pl = &openPlug{}
			p.plugs[ev.PID] = pl
		} else {
			p.at(pl.last).done = true
		}
		pl.last = p.seq
		pl.settled = false
		p.seq++
		h := heldRecord{rec: ev.Record}
		h.rec.Plug = plug
		p.held = append(p.held, h)
	case 'P':
		p.mode = plugsShown
		if pl := p.plugs[ev.PID]; pl != nil {
			pl.flushed, pl.plugged = false, true
		}
	case 'I':
		if pl := p.plugs[ev.PID]; pl != nil && !pl.plugged {
			p.close(ev.PID) // inserted at once: the task submitted unplugged
		}
	case 'U':
		p.mode = plugsShown
		if pl := p.plugs[ev.PID]; pl != nil {
			pl.flushed = true
		}
	case 'M', 'F', 'G':
		if pl := p.plugs[ev.PID]; pl != nil {
			pl.settled = true
		}
	case 'X':
		// A piece split off the task's latest bio (Record.Splits): it
		// starts where the pieces before it end, as the kernel cuts the
		// front off the rest, and leaves some of the bio after it. The
		// pieces after the first come after the G of the one before.
		if pl := p.plugs[ev.PID]; pl != nil && pl.last >= p.first {
			r := &p.at(pl.last).rec
			var off uint64
			for _, n := range r.Splits {
				off += uint64(n)
			}
			if r.Op == ev.Op && ev.Sector == r.Sector+off && uint64(ev.Sectors) < uint64(r.Sectors)-off {
				r.Splits = append(r.Splits, ev.Sectors)
			}
		}
	case 'T':
		p.mode = plugsShown
		if pl := p.plugs[ev.PID]; pl != nil && pl.settled {
			// The task slept after its bio had its request: for the
			// bio's completion (a discard's, an fsync's). A sleep before
			// (for a request: Q, UT, then G) is the replay's own to make.
			p.at(pl.last).rec.Plug |= PlugSlept
		}
	}
}

// at returns the held record with sequence number seq.
func (p *plugReader) at(seq int64) *heldRecord {
	return &p.held[seq-p.first]
}

// close ends pid's plug at its latest record.
func (p *plugReader) close(pid int) {
	pl := p.plugs[pid]
	if pl == nil {
		return
	}
	if pl.last >= p.first {
		h := p.at(pl.last)
		h.rec.Plug |= PlugLast
		h.done = true
	}
	delete(p.plugs, pid)
}

// end ends every open plug: the trace has ended.
func (p *plugReader) end() {
	if p.mode == plugsUnknown {
		p.giveUp()
	}
	for pid := range p.plugs {
		p.close(pid)
	}
	p.ended = true
}

// giveUp clears the plug bits of every record held: the trace shows no
// plugs (none in its first maxPlugLookahead records, or none at all), and
// from now on none are followed.
func (p *plugReader) giveUp() {
	for i := range p.held {
		p.held[i].rec.Plug = 0
		p.held[i].done = true
	}
	clear(p.plugs)
	p.mode = plugsNone
}
