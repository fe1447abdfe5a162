// Package experiment reproduces the measurements of the Linux discussions
// blkq grows from: each experiment is a set of embedded fio jobs run under
// two or more configurations in one invocation, followed by a table that
// puts the originally reported figure beside ours.
//
// Experiments run on the simulated disk in virtual time, so they are
// deterministic for a seed; --scale shortens them for tests. Where the
// model does not reproduce the direction a report found, the table says so
// rather than the model being tuned until it does.
package experiment

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/workload/fio"
)

// The discussions the experiments reproduce, cited by the subject line
// they were posted under, the mailing list and the date; what each
// measured is in docs/discussions.md.
const (
	source2002 = `linux-kernel, February 2002: "[patch] get_request starvation fix"`
	source2003 = `linux-kernel, June 2003: "[PATCH] io stalls"`
	source2004 = `linux-kernel, March 2004: "CONFIG_PREEMPT and server workloads"`
	source2008 = `linux-kernel, April 2008: "Skip I/O merges when disabled"`
)

// An Experiment is a workload run under several configurations.
type Experiment struct {
	Name    string
	Title   string
	Source  string // the discussion it reproduces: its public subject, list and date
	Jobs    func(scale float64) string
	Configs []Config
	// Analyze builds the comparison table from one outcome per config,
	// in Configs order.
	Analyze func(out []*Outcome) *Table
	// PlotGroup, if set, names the group of a configuration: --plot draws
	// one set of pictures per group (for experiments with many).
	PlotGroup func(config string) string
}

// Config is one configuration an experiment's jobs run under.
type Config struct {
	Name    string
	Options engine.Options
	// Jobs, if set, replaces the experiment's jobs for this configuration
	// (for experiments that vary the workload as well as the settings).
	Jobs func(scale float64) string
}

// Outcome is one configuration's run.
type Outcome struct {
	Config Config
	Result *engine.Result
	Waits  []Wait // every allocation wait, in time order
	// Throughput is bytes completed in each second of the run (virtual
	// time), for the throughput-over-time picture.
	Throughput []int64
}

// Wait is one allocation sleep: when it ended, whose, how long (S2G).
type Wait struct {
	End  blkq.Time
	PID  int
	Wait blkq.Time
}

// Table is an experiment's comparison: rows of figures per configuration,
// with the reported figures and notes on what the model does and does not
// reproduce.
type Table struct {
	Columns []string
	Rows    [][]string
	Notes   []string
}

var registry = map[string]*Experiment{}

// Scheduler is the elevator of every configuration that names none:
// blkq's mq-deadline before Linux 6.x's priority levels, the one the
// experiments' published results were measured with (the default,
// Linux 6.x's mq-deadline, goes on from a request's start rather than its
// end and would shift them).
const Scheduler = "mq-deadline-noprio"

// register adds e, its configurations' elevator defaulting to Scheduler.
func register(e *Experiment) {
	for i := range e.Configs {
		if e.Configs[i].Options.Scheduler == "" {
			e.Configs[i].Options.Scheduler = Scheduler
		}
	}
	registry[e.Name] = e
}

// List returns the experiments, by name.
func List() []*Experiment {
	var out []*Experiment
	for _, e := range registry {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Get returns the named experiment.
func Get(name string) (*Experiment, bool) {
	e, ok := registry[name]
	return e, ok
}

// Options apply to every configuration of a run.
type Options struct {
	Seed  uint64
	Scale float64 // 1 = full size; smaller runs shorter
	// Tracer, if set, gives each configuration's run an extra tracer (a
	// blktrace writer, say) and is told when the run is over.
	Tracer func(config string) (t blkq.Tracer, done func() error, err error)
	// Stop, when closed, interrupts the experiment (engine.Options.Stop):
	// the configuration running ends early, the later ones do not run,
	// and Run returns the outcomes so far with ErrInterrupted.
	Stop <-chan struct{}
}

// ErrInterrupted is Run's error when Options.Stop ended it: the outcomes
// it returns are those of the configurations that ran, the last one cut
// short, and there is no table.
var ErrInterrupted = errors.New("experiment interrupted")

// waitLog records allocation waits and per-second throughput from the
// event stream.
type waitLog struct {
	waits []Wait
	bytes []int64
}

func (w *waitLog) Trace(e *blkq.Event) {
	switch {
	case e.Action == 'G' && e.Wait > 0:
		w.waits = append(w.waits, Wait{End: e.Time, PID: e.PID, Wait: e.Wait})
	case e.Action == 'C' && e.Err == nil:
		sec := int(e.Time / 1e9)
		for len(w.bytes) <= sec {
			w.bytes = append(w.bytes, 0)
		}
		w.bytes[sec] += int64(e.Sectors) << blkq.SectorShift
	}
}

// Run runs every configuration of e and returns the outcomes and table.
func Run(e *Experiment, o Options) ([]*Outcome, *Table, error) {
	if o.Scale <= 0 {
		o.Scale = 1
	}
	var outs []*Outcome
	for _, c := range e.Configs {
		src := ""
		if c.Jobs != nil {
			src = c.Jobs(o.Scale)
		} else {
			src = e.Jobs(o.Scale)
		}
		jf, err := fio.Parse(e.Name+".fio (embedded)", []byte(src), func(string) string { return "" })
		if err != nil {
			return nil, nil, fmt.Errorf("experiment %s: %w", e.Name, err)
		}
		opt := c.Options
		opt.Seed = o.Seed
		opt.Stop = o.Stop
		log := &waitLog{}
		opt.Tracers = append(append([]blkq.Tracer(nil), opt.Tracers...), log)
		var done func() error
		if o.Tracer != nil {
			tr, d, err := o.Tracer(c.Name)
			if err != nil {
				return nil, nil, err
			}
			opt.Tracers, done = append(opt.Tracers, tr), d
		}
		res, err := engine.Run(jf, opt)
		if done != nil {
			if derr := done(); derr != nil && err == nil {
				err = derr
			}
		}
		if errors.Is(err, engine.ErrInterrupted) {
			return outs, nil, ErrInterrupted // stopped while this one was set up
		}
		if err != nil {
			return nil, nil, fmt.Errorf("experiment %s, %s: %w", e.Name, c.Name, err)
		}
		outs = append(outs, &Outcome{Config: c, Result: res, Waits: log.waits, Throughput: log.bytes})
		if res.Interrupted {
			return outs, nil, ErrInterrupted
		}
	}
	return outs, e.Analyze(outs), nil
}

// runSource runs a job file given as text.
func runSource(name, src string, opt engine.Options) (*engine.Result, error) {
	jf, err := fio.Parse(name+".fio (embedded)", []byte(src), func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	return engine.Run(jf, opt)
}

// Format writes t as aligned text.
func (t *Table) Format() string {
	w := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		w[i] = len(c)
	}
	for _, r := range t.Rows {
		for i, c := range r {
			w[i] = max(w[i], len(c))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i == 0 {
				fmt.Fprintf(&b, "%-*s", w[i], c)
			} else {
				fmt.Fprintf(&b, "  %*s", w[i], c)
			}
		}
		b.WriteString("\n")
	}
	line(t.Columns)
	for _, r := range t.Rows {
		line(r)
	}
	for _, n := range t.Notes {
		b.WriteString("\n" + n + "\n")
	}
	return b.String()
}

// scaled returns n×scale, at least min.
func scaled(n float64, scale float64, min float64) float64 {
	return max(n*scale, min)
}
