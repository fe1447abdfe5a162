package hdd

import (
	"math"
	"math/bits"
	"time"

	"github.com/blkq-dev/blkq"
)

// Model is the disk's mechanics as a pure function of the request, the
// head's cylinder and the time: see the package comment for the geometry.
// It holds only values derived from Params at construction and is safe for
// concurrent use.
//
// Angles are kept as exact integers: one revolution is 60e9 × spt units
// (spt = sectors per track), one sector is 60e9 units and the platter turns
// RPM × spt units per ns, so both the sector boundaries and the angle at
// any whole-ns time are whole units.
type Model struct {
	p       Params
	spt     uint64  // sectors per track
	cyls    uint64  // cylinders
	skew    uint64  // sectors, < spt
	switchS uint64  // sectors of rotation a track switch inside a transfer costs
	perNs   uint64  // angle units per ns: RPM × spt
	perRev  uint64  // angle units per revolution: 60e9 × spt
	a, b, c float64 // seek time in ns: a + b·√d + c·d

	cmdOH, missOH time.Duration // CommandOverhead, MissOverhead; ≥ 0
	ra            uint64        // read-ahead window in sectors; 0: no buffer
	nseg          int           // buffer segments in use: CacheSegments
}

// unitsPerSector is the angle of one sector in the model's units.
const unitsPerSector = 60e9

// NewModel returns the model of the disk p describes, with zero fields of p
// set to their defaults.
func NewModel(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.withDefaults()
	m := &Model{p: p, spt: sectorsPerTrack(p)}
	m.cyls = (p.Capacity + m.spt - 1) / m.spt
	m.perNs = uint64(p.RPM) * m.spt
	m.perRev = unitsPerSector * m.spt

	// need: whole sectors that pass during a track-to-track seek.
	hi, lo := bits.Mul64(uint64(p.TrackToTrack), m.perNs)
	need, rem := bits.Div64(hi, lo, unitsPerSector)
	if rem != 0 {
		need++
	}
	switch {
	case p.TrackSkew == 0:
		m.skew = need % m.spt
	case p.TrackSkew > 0:
		m.skew = uint64(p.TrackSkew)
	}
	// Running off a track, the head reaches the next track's first sector
	// after the skew gap passes, or after that plus whole revolutions if
	// the gap is shorter than the seek.
	m.switchS = m.skew
	if m.switchS < need {
		m.switchS += (need - m.switchS + m.spt - 1) / m.spt * m.spt
	}
	m.fitSeek()
	m.cmdOH = max(p.CommandOverhead, 0)
	m.missOH = max(p.MissOverhead, 0)
	if p.ReadAheadBytes > 0 {
		m.ra = uint64(p.ReadAheadBytes) / 512
	}
	m.nseg = p.CacheSegments
	return m, nil
}

// fitSeek solves for the seek curve a + b·√d + c·d through
// (1, TrackToTrack), (D/3, AvgSeek) and (D, FullStroke), D being the full
// stroke in cylinders. A disk too small for three distinct points gets the
// line through the first and last (D of 2 or 3) or the constant
// track-to-track time (D of 1 or less).
//
// Products are converted explicitly so that no platform fuses them into
// multiply-adds: the curve, and so every simulated time, is the same
// everywhere.
func (m *Model) fitSeek() {
	y1 := float64(m.p.TrackToTrack)
	y2 := float64(m.p.AvgSeek)
	y3 := float64(m.p.FullStroke)
	d := float64(m.cyls - 1)
	switch {
	case m.cyls-1 >= 4:
		x2, x3 := d/3, d
		s2, s3 := math.Sqrt(x2)-1, math.Sqrt(x3)-1
		l2, l3 := x2-1, x3-1
		r2, r3 := y2-y1, y3-y1
		det := float64(s2*l3) - float64(l2*s3)
		m.b = (float64(r2*l3) - float64(l2*r3)) / det
		m.c = (float64(s2*r3) - float64(r2*s3)) / det
		m.a = y1 - m.b - m.c
	case m.cyls-1 >= 2:
		m.c = (y3 - y1) / (d - 1)
		m.a = y1 - m.c
	default:
		m.a = y1
	}
}

// Params returns the disk's parameters, defaults filled in.
func (m *Model) Params() Params { return m.p }

// SectorsPerTrack returns the 512-byte sectors on each track.
func (m *Model) SectorsPerTrack() uint64 { return m.spt }

// Cylinders returns the number of cylinders (tracks; the model has one
// surface).
func (m *Model) Cylinders() uint64 { return m.cyls }

// TrackSkew returns the rotation, in sectors, of each track's first sector
// relative to the previous track's.
func (m *Model) TrackSkew() uint64 { return m.skew }

// Revolution returns the time of one revolution, rounded to the ns
// (8.333333 ms at 7200 rpm).
func (m *Model) Revolution() time.Duration {
	return time.Duration((60e9 + uint64(m.p.RPM)/2) / uint64(m.p.RPM))
}

// Cylinder returns the cylinder that holds sector.
func (m *Model) Cylinder(sector uint64) uint64 { return sector / m.spt }

// Seek returns the time to move the head over distance cylinders: 0 for 0,
// otherwise the fitted curve rounded to the ns (TrackToTrack for 1,
// FullStroke for Cylinders()-1).
func (m *Model) Seek(distance uint64) time.Duration {
	if distance == 0 {
		return 0
	}
	x := float64(distance)
	t := m.a + float64(m.b*math.Sqrt(x)) + float64(m.c*x)
	if t <= 0 {
		return 0
	}
	return time.Duration(math.Round(t))
}

// angleAt returns the platter's angle at time t, in units.
func (m *Model) angleAt(t blkq.Time) uint64 {
	u := uint64(t)
	if t < 0 {
		u = uint64(-t)
	}
	// u·perNs mod perRev is spt·(u·RPM mod 60e9), as perNs and perRev
	// are RPM·spt and 60e9·spt: while u·RPM fits in 64 bits (29 days
	// at 7200 rpm) that is a remainder by a constant, which compiles to
	// multiplications, where the 128-bit remainder is a division.
	var a uint64
	if hi, lo := bits.Mul64(u, uint64(m.p.RPM)); hi == 0 {
		a = lo % unitsPerSector * m.spt
	} else {
		hi, lo := bits.Mul64(u, m.perNs)
		_, a = bits.Div64(hi, lo, m.perRev)
	}
	if t < 0 && a != 0 {
		a = m.perRev - a
	}
	return a
}

// sectorAngle returns the angle, in units, at which sector starts.
func (m *Model) sectorAngle(sector uint64) uint64 {
	cyl := sector / m.spt
	pos := (sector%m.spt + (cyl%m.spt)*m.skew) % m.spt
	return pos * unitsPerSector
}

// RotationalWait returns how long a head that is on sector's track at time
// t waits for the start of sector to come under it: 0 up to (but not
// including) one revolution, rounded up to the ns. A head that is less than
// 1 ns past the sector's start counts as on time, so that rounding to whole
// ns never costs a sequential stream a revolution.
func (m *Model) RotationalWait(t blkq.Time, sector uint64) time.Duration {
	w := (m.sectorAngle(sector) + m.perRev - m.angleAt(t)) % m.perRev
	if w != 0 && m.perRev-w < m.perNs {
		return 0
	}
	return time.Duration((w + m.perNs - 1) / m.perNs)
}

// Transfer returns the time to read or write sectors starting at sector
// once the head is at its start: the time for those sectors, and the skew
// gap at each track boundary crossed, to pass under the head, rounded down
// to the ns. Without track crossings that is sectors/SectorsPerTrack of a
// revolution: 4 KiB take 27.311 µs with the defaults, since 2441 whole
// sectors fit on a track (the nominal 150 MB/s would give 27.307 µs).
func (m *Model) Transfer(sector uint64, sectors uint32) time.Duration {
	return m.transfer(sector, uint64(sectors))
}

// transfer is Transfer for any number of sectors (a read-ahead run can
// outgrow 32 bits); it saturates at math.MaxInt64.
func (m *Model) transfer(sector, sectors uint64) time.Duration {
	if sectors == 0 {
		return 0
	}
	if sectors > math.MaxUint64-sector {
		return math.MaxInt64
	}
	first := sector / m.spt
	last := (sector + sectors - 1) / m.spt
	gh, gaps := bits.Mul64(last-first, m.switchS)
	units, carry := bits.Add64(sectors, gaps, 0)
	if gh != 0 || carry != 0 {
		return math.MaxInt64
	}
	hi, lo := bits.Mul64(units, unitsPerSector)
	if hi >= m.perNs {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, m.perNs)
	return time.Duration(min(q, math.MaxInt64))
}

// position returns the time for a head on cylinder head at time t to reach
// the start of sector: the seek to its cylinder, then the rotational wait
// once there.
func (m *Model) position(t blkq.Time, head, sector uint64) (seek, rotate time.Duration) {
	cyl := sector / m.spt
	dist := cyl - head
	if head > cyl {
		dist = head - cyl
	}
	seek = m.Seek(dist)
	return seek, m.RotationalWait(after(t, seek), sector)
}

// after returns t + d, saturating at the largest Time.
func after(t blkq.Time, d time.Duration) blkq.Time {
	if d > 0 && t > blkq.Time(math.MaxInt64-d) {
		return math.MaxInt64
	}
	return t + blkq.Time(d)
}
