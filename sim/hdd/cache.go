// Command overhead and the read-ahead buffer.
//
// The mechanics in model.go price a command by where the head and the
// platter are. This file adds what the drive's controller and its buffer
// memory do around them: the two effects that make many small sequential
// reads cost more than a few large ones. Ruemmler and Wilkes ("An
// introduction to disk drive modeling", IEEE Computer 27(3), March 1994)
// name them, the controller's fixed per-request overhead and the buffer's
// read-ahead, as what a model needs beyond the mechanism.
//
// Every command first costs CommandOverhead of controller time. A command
// that must go to the media (a read the buffer cannot serve, or any write)
// costs MissOverhead more before its seek begins: disk specifications quote
// the two sums as the "cache hit" and "cache not hit" command overheads.
// Media data passes through the buffer, and the host transfer overlaps the
// media transfer, so a media command's transfer costs the longer of the two
// (the media's, with the defaults).
//
// After a read from the media that ends at sector e, the drive keeps reading
// e, e+1, ... into a buffer segment, at the media rate and across track
// boundaries exactly as a transfer would, until it has read ReadAheadBytes
// beyond the end of the last read it served from that segment. The run
// needs no events: the media reaches sector x at a time the layout fixes
// (the run's start plus the transfer time from its first sector to x), so
// the state is brought up to date when the next command comes. A segment
// is a Cache: it holds [Start, Stop) once the media has reached Stop.
//
// The buffer has CacheSegments segments, so that interleaved sequential
// streams each keep their own data and window. They are kept in order of
// use. A read that starts in a segment, in what it holds or in what a
// running read-ahead is about to read, is served from it (the most
// recently used such segment, if several hold the sector): the command
// overhead, then the host transfer at BusRate, finishing no earlier than
// the media reaches the read's last sector. If the whole read was held
// when it came, that is a hit; otherwise it is a partial hit, which waits
// for the media instead of paying a seek and a rotation. The segment's
// window moves to ReadAheadBytes beyond this read, so that a sequential
// stream of reads keeps its read-ahead going (Fujitsu's ATA drive manuals,
// section "Read-Ahead Cache", describe reading ahead into the buffer space
// a sequential hit frees), and it drops what lies before the read's first
// sector. The segment becomes the most recently used.
//
// There is one head, so at most one segment reads ahead at a time, and only
// a command that needs the head stops it. A hit needs none: a running
// read-ahead, in the segment that served the hit or in another, runs on.
// When the hit's segment is not reading ahead and its window now reaches
// past what it holds, it reads ahead again from its end if the head is
// idle. If another segment's read-ahead has the head, the hit's segment
// keeps what it holds, unless the read itself goes beyond that: then it
// needs the media, the other read-ahead stops (keeping what it has read)
// and this one restarts. Either way the head leaves for the segment's end
// once the command overhead has passed, and the read-ahead starts after the
// seek and the rotational wait. Segments that are not reading ahead keep
// what they hold until they are replaced or invalidated.
//
// Any other read goes to the media: it stops the read-ahead (the head seeks
// from wherever the read-ahead had taken it when the seek begins), which
// keeps what it has read, and replaces the least recently used segment (an
// empty one first) with its own data and a new read-ahead. A write stops
// the read-ahead too, and drops every segment it overlaps. There is no
// write cache: writes go to the media and complete when they are on it, so
// the buffer never holds data the media does not. A discard drops every
// segment it overlaps as well (stopping the read-ahead if it overlaps the
// running one), and a flush costs only its overhead; neither moves the
// head.
//
// With one segment (CacheSegments 1) interleaved streams at queue depth 1
// replace each other's segment at every read, and every read is a miss. The
// default values and their sources are in Params.
//
// All times are whole ns; only the host transfer time is computed in
// floating point (a product and a quotient, rounded down), like the seek
// curve.

package hdd

import (
	"math"
	"math/bits"
	"time"

	"github.com/blkq-dev/blkq"
)

// Served says how a command was served.
type Served uint8

const (
	// Miss: from the media, after the seek and the rotational wait.
	Miss Served = iota
	// Hit: wholly from the buffer, which held the whole range when the
	// command came.
	Hit
	// PartialHit: from the buffer, which held the range's start or was
	// about to read it; the command waits for the read-ahead to reach
	// its end.
	PartialHit
	// NoData: a flush or a discard, which costs only the command
	// overhead.
	NoData
)

func (s Served) String() string {
	switch s {
	case Miss:
		return "miss"
	case Hit:
		return "hit"
	case PartialHit:
		return "partial hit"
	case NoData:
		return "no data"
	}
	return "served(?)"
}

// Cache is one segment of the read-ahead buffer: the sectors [Start, Stop)
// it holds, or will hold once a running read-ahead gets to Stop. The
// read-ahead reads From, From+1, ... up to Stop; the head reaches the start
// of From at At, and the media has read up to sector x (exclusive) at At
// plus the transfer time of [From, x). From == Stop means no read-ahead is
// running: [Start, Stop) is all held. Start >= Stop means the segment is
// empty; the zero Cache is empty.
type Cache struct {
	Start uint64    // first sector held
	From  uint64    // first sector of the read-ahead run
	Stop  uint64    // end of the segment (exclusive): where the run stops
	At    blkq.Time // ns: when the head reaches the start of From
}

// Empty reports whether the segment holds and will hold nothing.
func (c Cache) Empty() bool { return c.Start >= c.Stop }

// running reports whether a read-ahead run has sectors left to read.
func (c Cache) running() bool { return c.From < c.Stop }

// holds reports whether a read from sector is served from the segment: it
// starts in what the segment holds or is about to read.
func (c Cache) holds(sector uint64) bool { return sector >= c.Start && sector < c.Stop }

// State is what the disk carries from one command to the next. It is a
// value: copying it copies the buffer's state.
type State struct {
	// Head is the cylinder the head is on, as of the end of the last
	// media command or of the read-ahead run that followed it. While a
	// run is reading, the head moves on from here with it.
	Head uint64
	// Segs are the buffer's segments, the most recently used first. Only
	// the first CacheSegments are used; the rest stay empty. At most one
	// has a read-ahead running.
	Segs [MaxCacheSegments]Cache
}

// Cost is how a command spends its service time, in ns. The command
// completes Total after it enters service.
type Cost struct {
	// Overhead is the controller's time before any data moves:
	// CommandOverhead, plus MissOverhead for a miss.
	Overhead time.Duration
	// Seek and Rotate position the head for a miss; 0 otherwise.
	Seek, Rotate time.Duration
	// Transfer is, for a miss, the longer of the media and the host
	// transfer; for a (partial) hit, the time from the end of the
	// overhead until the last byte reaches the host: the host transfer,
	// or the wait for the read-ahead to read the range's last sector if
	// that is later; 0 for NoData.
	Transfer time.Duration
	Served   Served
}

// Total returns the command's service time.
func (c Cost) Total() time.Duration { return c.Overhead + c.Seek + c.Rotate + c.Transfer }

// Service returns what serving op on sectors sectors from sector costs when
// the command enters service at now with the disk in state st, and the
// state it leaves: where the head will be and what the buffer holds and is
// reading. It is a pure function: the same arguments always give the same
// result, and st is not changed. Service expects a range within the disk
// (the Device checks); an op other than read, write, flush or discard is
// treated as a flush.
func (m *Model) Service(now blkq.Time, st State, op blkq.Op, sector uint64, sectors uint32) (Cost, State) {
	c := m.serve(now, &st, op, sector, sectors)
	return c, st
}

// serve is Service on *st in place: the Device keeps one State and would
// otherwise copy its 520 bytes in and out of Service for every command.
func (m *Model) serve(now blkq.Time, st *State, op blkq.Op, sector uint64, sectors uint32) Cost {
	end := sector + uint64(sectors)
	m.settle(st, now)
	switch op {
	case blkq.OpRead:
		if i := m.lookup(st, sector); i >= 0 {
			return m.fromBuffer(now, st, i, sector, end)
		}
	case blkq.OpWrite:
	case blkq.OpDiscard:
		if r := m.run(st); r >= 0 && overlaps(st.Segs[r], sector, end) {
			m.stop(st, now)
			m.drop(st, r)
		}
		m.dropOverlapping(st, sector, end)
		return Cost{Overhead: m.cmdOH, Served: NoData}
	default:
		return Cost{Overhead: m.cmdOH, Served: NoData}
	}

	// To the media. The read-ahead runs on until the seek begins.
	c := Cost{Overhead: m.cmdOH + m.missOH, Served: Miss}
	begin := after(now, c.Overhead)
	m.stop(st, begin)
	c.Seek, c.Rotate = m.position(begin, st.Head, sector)
	c.Transfer = max(m.Transfer(sector, sectors), m.bus(uint64(sectors)))
	st.Head = sector / m.spt
	if sectors > 0 {
		st.Head = (end - 1) / m.spt
	}
	if op == blkq.OpWrite {
		m.dropOverlapping(st, sector, end)
		return c
	}
	if m.ra > 0 {
		v := m.victim(st)
		st.Segs[v] = m.readAhead(after(now, c.Total()), st.Head, sector, end)
		use(st, v)
	}
	return c
}

// A positioner gives the seek and rotational wait that Service(now, st, ...)
// charges each of several commands, sharing the work that does not depend
// on the command: an NCQ disk compares them all each time it picks one.
type positioner struct {
	m     *Model
	st    State     // the buffer at now
	begin blkq.Time // when a miss's seek begins
	head  uint64    // and the cylinder it begins from
}

func (m *Model) positioner(now blkq.Time, st State) positioner {
	m.settle(&st, now)
	p := positioner{m: m, st: st, begin: after(now, m.cmdOH+m.missOH)}
	m.stop(&st, p.begin)
	p.head = st.Head
	return p
}

// wait returns Cost.Seek + Cost.Rotate for op from sector.
func (p *positioner) wait(op blkq.Op, sector uint64) time.Duration {
	if (op != blkq.OpRead && op != blkq.OpWrite) || (op == blkq.OpRead && p.m.lookup(&p.st, sector) >= 0) {
		return 0
	}
	seek, rot := p.m.position(p.begin, p.head, sector)
	return seek + rot
}

// fromBuffer serves a read of [s, e) whose start is in segment i, and
// returns its cost; st becomes the state it leaves.
func (m *Model) fromBuffer(now blkq.Time, st *State, i int, s, e uint64) Cost {
	c := st.Segs[i]
	// Keep the read-ahead ReadAheadBytes beyond this read.
	want := m.p.Capacity
	if m.ra < want-e {
		want = e + m.ra
	}
	if want > c.Stop {
		switch r := m.run(st); {
		case r == i:
			c.Stop = want
		case r < 0 || e > c.Stop:
			// The head is idle, or this read needs it: it leaves
			// the other segment's read-ahead (which keeps what it
			// has read) once the command is decoded, and this
			// segment's starts again at its end.
			t := after(now, m.cmdOH)
			if r >= 0 {
				m.stop(st, t)
			}
			seek, rot := m.position(t, st.Head, c.Stop)
			c.From, c.At, c.Stop = c.Stop, after(t, seek+rot), want
		}
		// Otherwise another segment's read-ahead keeps the head, and
		// this one keeps what it holds.
	}
	cost := Cost{Overhead: m.cmdOH, Served: Hit}
	done := after(after(now, m.cmdOH), m.bus(e-s))
	if e > c.From {
		if held := m.heldAt(c, e); held > now {
			cost.Served = PartialHit
			done = max(done, held)
		}
	}
	cost.Transfer = time.Duration(done-now) - m.cmdOH
	c.Start = s
	st.Segs[i] = c
	use(st, i)
	return cost
}

// readAhead returns the segment a media read of [s, e) leaves, the head on
// cylinder head when the read ends at t: it holds the read's data, and a
// read-ahead from e starts as soon as the head is at e's start (at once,
// unless e is on the next track).
func (m *Model) readAhead(t blkq.Time, head, s, e uint64) Cache {
	if m.ra == 0 {
		return Cache{}
	}
	c := Cache{Start: s, From: e, Stop: e, At: t}
	if e < m.p.Capacity {
		c.Stop = e + min(m.ra, m.p.Capacity-e)
		seek, rot := m.position(t, head, e)
		c.At = after(t, seek+rot)
	}
	return c
}

// heldAt returns when the read-ahead in c has read up to sector x
// (exclusive), x > c.From.
func (m *Model) heldAt(c Cache, x uint64) blkq.Time {
	return after(c.At, m.transfer(c.From, x-c.From))
}

// reached returns the sector the read-ahead in c has read up to
// (exclusive) at time t: the largest x in [From, Stop] with heldAt(x) <= t.
func (m *Model) reached(c Cache, t blkq.Time) uint64 {
	if !c.running() || t <= c.At {
		return c.From
	}
	n := c.Stop - c.From
	if t == math.MaxInt64 || c.At < 0 {
		return c.From + m.reachedSearch(c, t, n)
	}
	// heldAt(From+k) <= t is transfer(From, k) <= e, e = t - At: no
	// saturation in after, as t < MaxInt64.
	e := uint64(t - c.At)
	if m.heldAt(c, c.Stop) <= t {
		return c.Stop
	}
	// transfer(From, k) = floor(U(k)·60e9 / perNs) with U(k) = k + the
	// skew gaps crossed, so transfer(From, k) <= e exactly when U(k) <=
	// umax = floor(((e+1)·perNs - 1) / 60e9). U(k) < U(n) here, which the
	// transfer of n computed without overflow, so nothing below
	// overflows either.
	hi, lo := bits.Mul64(e+1, m.perNs)
	lo, borrow := bits.Sub64(lo, 1, 0)
	hi -= borrow
	if hi >= unitsPerSector {
		return c.From + m.reachedSearch(c, t, n)
	}
	umax, _ := bits.Div64(hi, lo, unitsPerSector)
	if umax == 0 {
		return c.From
	}
	// U(k) = k + g·switchS for the g-th track after From's (k in
	// [g·spt - f + 1, (g+1)·spt - f], f = From's offset on its track):
	// the last track whose first k fits is g = (umax + f - 1) / (spt +
	// switchS), and within it k = umax - g·switchS, up to its last.
	f := c.From % m.spt
	g := (umax + f - 1) / (m.spt + m.switchS)
	k := min(umax-g*m.switchS, (g+1)*m.spt-f, n)
	return c.From + k
}

// reachedSearch is reached by bisection over [0, n]: the largest k with
// heldAt(From+k) <= t, for the cases the closed form leaves out.
func (m *Model) reachedSearch(c Cache, t blkq.Time, n uint64) uint64 {
	lo, hi := uint64(0), n // heldAt(From+lo) <= t
	for lo < hi {
		mid := hi - (hi-lo)/2
		if m.heldAt(c, c.From+mid) <= t {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// run returns the index of the segment whose read-ahead is running, or -1.
func (m *Model) run(st *State) int {
	for i := range m.nseg {
		if st.Segs[i].running() {
			return i
		}
	}
	return -1
}

// lookup returns the index of the most recently used segment that serves a
// read from sector, or -1.
func (m *Model) lookup(st *State, sector uint64) int {
	for i := range m.nseg {
		if st.Segs[i].holds(sector) {
			return i
		}
	}
	return -1
}

// victim returns the index of the segment a miss replaces: the first empty
// one, else the least recently used.
func (m *Model) victim(st *State) int {
	for i := range m.nseg {
		if st.Segs[i].Empty() {
			return i
		}
	}
	return m.nseg - 1
}

// use makes segment i the most recently used.
func use(st *State, i int) {
	c := st.Segs[i]
	copy(st.Segs[1:i+1], st.Segs[:i])
	st.Segs[0] = c
}

// drop empties segment i and makes it the least recently used.
func (m *Model) drop(st *State, i int) {
	copy(st.Segs[i:m.nseg-1], st.Segs[i+1:m.nseg])
	st.Segs[m.nseg-1] = Cache{}
}

// dropOverlapping drops every segment that overlaps [s, e).
func (m *Model) dropOverlapping(st *State, s, e uint64) {
	for i := 0; i < m.nseg; {
		if overlaps(st.Segs[i], s, e) {
			m.drop(st, i)
		} else {
			i++
		}
	}
}

// settle brings st up to time t: a read-ahead that has reached its end by
// then stops, and the head stays on the cylinder of the last sector read.
func (m *Model) settle(st *State, t blkq.Time) {
	if r := m.run(st); r >= 0 {
		if c := &st.Segs[r]; m.heldAt(*c, c.Stop) <= t {
			st.Head = (c.Stop - 1) / m.spt
			c.From = c.Stop
		}
	}
}

// stop cancels st's read-ahead at time t: the segment keeps what was read
// by then, and the head is where the read-ahead had taken it. A run that
// has not started yet (its head still moving to From) counts as having
// taken the head to From's cylinder.
func (m *Model) stop(st *State, t blkq.Time) {
	m.settle(st, t)
	if r := m.run(st); r >= 0 {
		c := &st.Segs[r]
		x := m.reached(*c, t)
		st.Head = x / m.spt
		c.From, c.Stop = x, x
	}
}

// overlaps reports whether [s, e) overlaps the segment c.
func overlaps(c Cache, s, e uint64) bool {
	return !c.Empty() && s < c.Stop && e > c.Start
}

// bus returns the host transfer time of sectors sectors at BusRate,
// rounded down to the ns.
func (m *Model) bus(sectors uint64) time.Duration {
	ns := float64(float64(sectors)*512e9) / m.p.BusRate
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}
