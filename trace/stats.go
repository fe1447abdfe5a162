package trace

import (
	"fmt"
	"io"
	"sync"

	"github.com/blkq-dev/blkq"
)

// A Latency is one of btt's metrics: the number of intervals measured and
// their minimum, maximum and sum, in ns.
type Latency struct {
	N        int64
	Min, Max blkq.Time
	Sum      blkq.Time
}

// add measures the interval from..to as btt does: an interval that is
// not positive counts as 1 ns.
func (l *Latency) add(from, to blkq.Time) {
	d := to - from
	if d <= 0 {
		d = 1
	}
	if l.N == 0 || d < l.Min {
		l.Min = d
	}
	if l.N == 0 || d > l.Max {
		l.Max = d
	}
	l.N++
	l.Sum += d
}

// Avg returns the mean interval in seconds (0 when nothing was measured),
// the unit btt prints.
func (l Latency) Avg() float64 {
	if l.N == 0 {
		return 0
	}
	return float64(l.Sum) / 1e9 / float64(l.N)
}

// Metrics are btt's per-I/O latencies ("All Devices" table). Each
// interval is measured per bio (btt's "IO", one Q), paired the way btt
// pairs a trace's events.
type Metrics struct {
	Q2Q Latency // between successive Qs
	Q2G Latency // Q to the G of the bio that got a request
	S2G Latency // the bio's last S to its G (a sleep for a request)
	G2I Latency // G to I, for the bio at the start of the request when it is inserted
	Q2M Latency // Q to M or F, for a bio merged into a request
	I2D Latency // I to D, for each bio that was at the start of a request when it was inserted
	M2D Latency // M or F to D, for the merged bios
	D2C Latency // D to C, for every bio of the request
	Q2C Latency // Q to C, for every bio of the request
}

// ioTimes are the times (ns; -1: none yet) of one bio's events, btt's
// "iop" for a Q.
type ioTimes struct {
	q, s, g, i, m, d blkq.Time
}

// Stats is a blkq.Tracer computing btt's Metrics from the queue's own
// event stream, for comparison with btt on the trace a Writer wrote of
// the same run. btt pairs events by sector: a G, S, M or I belongs to
// the Q whose range holds its sector; a D or C to every Q inside its
// range. Stats pairs them by the bio and request objects, which is the
// same pairing for a trace without overlapping I/O in flight (btt keeps
// one Q per start sector and drops a second one until the first
// completes). Zero-length bios (flushes) are left out, as btt leaves out
// records of no bytes; an interval of 0 counts as 1 ns, and a sleep at the
// trace's first instant is not a sleep, as in btt.
type Stats struct {
	mu    sync.Mutex
	m     Metrics
	ios   map[*blkq.Bio]*ioTimes
	lastQ blkq.Time
	anyQ  bool
	// start is the time of the first event with a record: blkparse's
	// genesis, time 0 in the trace btt reads.
	start   blkq.Time
	started bool
}

// NewStats returns an empty Stats.
func NewStats() *Stats {
	return &Stats{ios: map[*blkq.Bio]*ioTimes{}}
}

// Trace accounts one event.
func (s *Stats) Trace(e *blkq.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		if _, _, _, ok := eventAction(e); ok {
			s.start, s.started = e.Time, true
		}
	}
	if e.Sectors == 0 {
		return
	}
	t := e.Time
	switch e.Action {
	case 'Q':
		if s.anyQ {
			s.m.Q2Q.add(s.lastQ, t)
		}
		s.anyQ, s.lastQ = true, t
		s.ios[e.Bio] = &ioTimes{q: t, s: -1, g: -1, i: -1, m: -1, d: -1}
	case 'S':
		if io := s.ios[e.Bio]; io != nil {
			io.s = t
		}
	case 'G':
		if io := s.ios[e.Bio]; io != nil {
			io.g = t
			s.m.Q2G.add(io.q, t)
			// btt takes a sleep at time 0 of the trace for no sleep.
			if io.s >= 0 && io.s != s.start {
				s.m.S2G.add(io.s, t)
			}
		}
	case 'M', 'F':
		if io := s.ios[e.Bio]; io != nil {
			io.m = t
			s.m.Q2M.add(io.q, t)
		}
	case 'I':
		if io := s.ios[firstBio(e.Rq)]; io != nil {
			io.i = t
			if io.g >= 0 {
				s.m.G2I.add(io.g, t)
			}
		}
	case 'D':
		e.Rq.Bios(func(b *blkq.Bio) {
			if io := s.ios[b]; io != nil {
				switch {
				case io.i >= 0:
					s.m.I2D.add(io.i, t)
				case io.m >= 0:
					s.m.M2D.add(io.m, t)
				}
				io.d = t
			}
		})
	case 'C':
		if e.Rq == nil {
			delete(s.ios, e.Bio) // a dropped read-ahead: it never reached a request
			return
		}
		e.Rq.Bios(func(b *blkq.Bio) {
			if io := s.ios[b]; io != nil {
				s.m.Q2C.add(io.q, t)
				if io.d >= 0 {
					s.m.D2C.add(io.d, t)
				}
				delete(s.ios, b)
			}
		})
	}
}

// firstBio returns the bio at rq's start sector.
func firstBio(rq *blkq.Request) *blkq.Bio {
	var first *blkq.Bio
	rq.Bios(func(b *blkq.Bio) {
		if first == nil {
			first = b
		}
	})
	return first
}

// Metrics returns the metrics so far.
func (s *Stats) Metrics() Metrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m
}

// WriteTable writes m as btt's "All Devices" section: MIN, AVG and MAX in
// seconds, and N, for each metric that measured something.
func (m Metrics) WriteTable(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "==================== All Devices ====================\n\n"); err != nil {
		return err
	}
	fmt.Fprintf(w, "%15s %13s %13s %13s %11s\n", "ALL", "MIN", "AVG", "MAX", "N")
	fmt.Fprintf(w, "--------------- ------------- ------------- ------------- -----------\n\n")
	for _, row := range m.rows() {
		if row.l.N == 0 {
			continue
		}
		fmt.Fprintf(w, "%-15s %13.9f %13.9f %13.9f %11d\n", row.name,
			float64(row.l.Min)/1e9, row.l.Avg(), float64(row.l.Max)/1e9, row.l.N)
	}
	_, err := fmt.Fprintln(w)
	return err
}

type metricRow struct {
	name string
	l    Latency
}

func (m Metrics) rows() []metricRow {
	return []metricRow{{"Q2Q", m.Q2Q}, {"Q2G", m.Q2G}, {"S2G", m.S2G}, {"G2I", m.G2I}, {"Q2M", m.Q2M},
		{"I2D", m.I2D}, {"M2D", m.M2D}, {"D2C", m.D2C}, {"Q2C", m.Q2C}}
}
