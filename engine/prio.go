package engine

import (
	"math/rand/v2"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/workload/fio"
)

// I/O priorities as fio 3.33 gives them: every I/O of a job carries the
// job's priority (prio, prioclass; none without them), and the libaio and
// io_uring engines' cmdprio options send a share of the I/Os with another
// (fio's engines/cmdprio.c): per direction cmdprio_percentage percent at
// cmdprio_class/cmdprio, or per block size the shares of cmdprio_bssplit,
// each I/O drawn from 0..99 against them. The priority rides on the bio
// (blkq.Bio.Prio) to the request and the device; the schedulers do not
// act on it yet. Each direction's completion latency is also kept per
// priority, in fio's order (the job's own first, then cmdprio's as they
// are listed), for fio's "clat prio" lines and JSON "prios".

// prioState is a job's priority choice.
type prioState struct {
	def uint16 // the job's own priority
	o   *fio.Priority
	rng *rand.Rand // nil: no cmdprio
}

// newPrioState sets up j's priorities, drawing from rng, and its stats'
// per-priority latencies. Called by openStats, once j has its stats.
func newPrioState(j *job, rng *rand.Rand) prioState {
	o := &j.spec.Priority
	p := prioState{o: o}
	if o.Set {
		p.def = uint16(fio.IOPrio(o.Class, o.Level))
	}
	if !o.UsesCmdprio() {
		return p
	}
	p.rng = rng
	for d := range 2 {
		if d == 0 && !j.spec.RW.Reads() || d == 1 && !j.spec.RW.Writes() {
			continue
		}
		prios := []uint16{p.def}
		add := func(v uint16) {
			for _, x := range prios {
				if x == v {
					return
				}
			}
			prios = append(prios, v)
		}
		switch {
		case o.CmdBSSplit[d] != nil:
			for _, s := range o.CmdBSSplit[d] {
				add(p.split(d, s))
			}
		case o.CmdPercentage[d] > 0:
			add(p.cmd(d))
		default:
			continue
		}
		ds := j.st.dirStats(report.Dir(d))
		for _, v := range prios {
			ds.Prios = append(ds.Prios, report.PrioLat{Prio: v, Lat: report.NewLatency()})
		}
	}
	return p
}

// cmd is direction d's cmdprio_class/cmdprio priority (real-time when
// cmdprio_class is unset, as fio takes it).
func (p *prioState) cmd(d int) uint16 {
	class := p.o.CmdClass[d]
	if class == 0 {
		class = 1
	}
	return uint16(fio.IOPrio(class, p.o.CmdLevel[d]))
}

// split is a cmdprio_bssplit entry's priority.
func (p *prioState) split(d int, s fio.PrioSplit) uint16 {
	if s.Prio < 0 {
		return p.cmd(d)
	}
	return uint16(s.Prio)
}

// of returns the priority of an I/O of op and n bytes.
func (p *prioState) of(op blkq.Op, n int64) uint16 {
	d := int(rwt(op))
	if p.rng == nil || d > 1 {
		return p.def
	}
	if sp := p.o.CmdBSSplit[d]; sp != nil {
		total := 0
		for _, s := range sp {
			if s.BS == n {
				total += s.Percent
			}
		}
		if total == 0 {
			return p.def
		}
		r, acc := p.rng.IntN(100), 0
		if r >= total {
			return p.def
		}
		for _, s := range sp {
			if s.BS == n {
				if acc += s.Percent; r < acc {
					return p.split(d, s)
				}
			}
		}
		return p.def
	}
	if pc := p.o.CmdPercentage[d]; pc > 0 && p.rng.IntN(100) < pc {
		return p.cmd(d)
	}
	return p.def
}
