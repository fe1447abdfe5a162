package ssd

import (
	"fmt"
	"math"
	"time"

	"github.com/blkq-dev/blkq"
)

// Model is the drive's timeline: when each die and each channel is free.
// Service schedules a request's page operations on it (see the package
// comment) and returns when the request completes, so the completion time
// of a sequence of requests is an exact function of their arrival times,
// ops and sectors.
//
// A Model is a value with state: Service changes it, Clone copies it. It is
// not safe for concurrent use.
type Model struct {
	p     Params
	spp   uint64          // sectors per page
	nch   uint64          // channels
	nd    uint64          // dies per channel
	oh    time.Duration   // CommandOverhead, ≥ 0
	xfer  []time.Duration // xfer[k]: channel time for k sectors, k ≤ spp
	die   []blkq.Time     // when each die is free, at channel×nd + die
	bus   [][]Span        // each channel's reservations, sorted, disjoint
	now   blkq.Time       // the latest Service time
	start bool            // Service has been called
}

// A Span is an interval [Start, End) during which a channel is reserved.
type Span struct {
	Start, End blkq.Time
}

// NewModel returns the idle drive p describes (every die and channel free
// from time 0), with zero fields of p set to their defaults.
func NewModel(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.withDefaults()
	m := &Model{
		p:   p,
		spp: uint64(p.PageSize) / 512,
		nch: uint64(p.Channels),
		nd:  uint64(p.DiesPerChannel),
		oh:  max(p.CommandOverhead, 0),
	}
	m.xfer = make([]time.Duration, m.spp+1)
	for k := range m.xfer {
		m.xfer[k] = transfer(uint64(k)*512, p.ChannelRate)
	}
	m.die = make([]blkq.Time, m.nch*m.nd)
	m.bus = make([][]Span, m.nch)
	return m, nil
}

// transfer returns the time to move n bytes at rate bytes/s, rounded up to
// the ns.
func transfer(n uint64, rate float64) time.Duration {
	return time.Duration(math.Ceil(float64(n) * 1e9 / rate))
}

// Params returns the drive's parameters, defaults filled in.
func (m *Model) Params() Params { return m.p }

// SectorsPerPage returns the 512-byte sectors in a flash page.
func (m *Model) SectorsPerPage() uint64 { return m.spp }

// Locate returns the channel and the die (on that channel) that hold
// logical page page: the stripe puts page p on channel p mod Channels, die
// (p / Channels) mod DiesPerChannel.
func (m *Model) Locate(page uint64) (channel, die int) {
	return int(page % m.nch), int(page / m.nch % m.nd)
}

// Transfer returns the channel time to move sectors 512-byte sectors,
// rounded up to the ns: 4 KiB take 12.301 µs at 333 MB/s (12300.3 ns), a
// whole 8 KiB page 24.601 µs.
func (m *Model) Transfer(sectors uint32) time.Duration {
	if uint64(sectors) < uint64(len(m.xfer)) {
		return m.xfer[sectors]
	}
	return transfer(uint64(sectors)*512, m.p.ChannelRate)
}

// DieFree returns when die die of channel channel finishes the last
// operation scheduled on it (0 if it has had none).
func (m *Model) DieFree(channel, die int) blkq.Time {
	return m.die[uint64(channel)*m.nd+uint64(die)]
}

// ChannelFree returns when channel finishes the last transfer reserved on
// it: the end of its latest reservation, or 0 if it has none.
func (m *Model) ChannelFree(channel int) blkq.Time {
	if b := m.bus[channel]; len(b) > 0 {
		return b[len(b)-1].End
	}
	return 0
}

// Reservations returns a copy of channel's reservations that end after the
// time of the latest Service call, in time order.
func (m *Model) Reservations(channel int) []Span {
	return append([]Span(nil), m.bus[channel]...)
}

// Clone returns an independent copy of m: Service on one does not change
// the other.
func (m *Model) Clone() *Model {
	c := *m
	c.die = append([]blkq.Time(nil), m.die...)
	c.bus = make([][]Span, len(m.bus))
	for i, b := range m.bus {
		c.bus[i] = append([]Span(nil), b...)
	}
	return &c
}

// Service schedules a request that arrives at now: its page operations go
// on the timeline as early as their dies and channels allow after now +
// CommandOverhead, and Service returns when the last of them completes. A
// flush, a discard or a read or write of no sectors completes after the
// command overhead alone and uses no die or channel.
//
// now must not be earlier than in the previous call (Service forgets
// channel reservations that end before it); Service panics if it is, or
// if the sectors reach beyond the drive's page count (the Device checks
// the capacity first).
func (m *Model) Service(now blkq.Time, op blkq.Op, sector uint64, sectors uint32) blkq.Time {
	if m.start && now < m.now {
		panic(fmt.Sprintf("ssd: Service at %d after a call at %d", now, m.now))
	}
	m.start = true
	if now > m.now {
		m.now = now
		m.prune(now)
	}
	t0 := now + blkq.Time(m.oh)
	if (op != blkq.OpRead && op != blkq.OpWrite) || sectors == 0 {
		return t0
	}
	end := sector + uint64(sectors)
	if end < sector {
		panic(fmt.Sprintf("ssd: %d sectors at sector %d wrap around", sectors, sector))
	}
	done := t0
	for s := sector; s < end; {
		page := s / m.spp
		next := min((page+1)*m.spp, end)
		var t blkq.Time
		if op == blkq.OpRead {
			t = m.read(t0, page, next-s)
		} else {
			t = m.write(t0, page, next-s)
		}
		done = max(done, t)
		s = next
	}
	return done
}

// read schedules the array read of page and the transfer of n of its
// sectors out over the channel, starting no earlier than t0, and returns
// when the data is out. The die is busy until then.
func (m *Model) read(t0 blkq.Time, page, n uint64) blkq.Time {
	ch, d := page%m.nch, page/m.nch%m.nd
	di := ch*m.nd + d
	ready := max(t0, m.die[di]) + blkq.Time(m.p.ReadLatency)
	s := m.reserve(ch, ready, m.xfer[n])
	end := s + blkq.Time(m.xfer[n])
	m.die[di] = end
	return end
}

// write schedules the transfer of n sectors of page over the channel into
// its die, no earlier than t0 and than the die is free, then the page's
// program, and returns when the program ends. The die is busy from the
// transfer to the end of the program.
func (m *Model) write(t0 blkq.Time, page, n uint64) blkq.Time {
	ch, d := page%m.nch, page/m.nch%m.nd
	di := ch*m.nd + d
	s := m.reserve(ch, max(t0, m.die[di]), m.xfer[n])
	end := s + blkq.Time(m.xfer[n]) + blkq.Time(m.p.ProgramLatency)
	m.die[di] = end
	return end
}

// reserve books channel ch for length l at the earliest start ≥ t at which
// it is free for that long, and returns the start.
func (m *Model) reserve(ch uint64, t blkq.Time, l time.Duration) blkq.Time {
	b := m.bus[ch]
	s := t
	i := 0
	for ; i < len(b); i++ {
		if b[i].End <= s {
			continue
		}
		if b[i].Start >= s+blkq.Time(l) {
			break // fits in the gap before b[i]
		}
		s = b[i].End
	}
	e := s + blkq.Time(l)
	switch {
	case i > 0 && b[i-1].End == s && i < len(b) && b[i].Start == e:
		b[i-1].End = b[i].End
		b = append(b[:i], b[i+1:]...)
	case i > 0 && b[i-1].End == s:
		b[i-1].End = e
	case i < len(b) && b[i].Start == e:
		b[i].Start = s
	default:
		b = append(b, Span{})
		copy(b[i+1:], b[i:])
		b[i] = Span{s, e}
	}
	m.bus[ch] = b
	return s
}

// prune drops the channel reservations that end at or before now: every
// later transfer starts at or after now.
func (m *Model) prune(now blkq.Time) {
	for c, b := range m.bus {
		k := 0
		for k < len(b) && b[k].End <= now {
			k++
		}
		if k > 0 {
			n := copy(b, b[k:])
			m.bus[c] = b[:n]
		}
	}
}
