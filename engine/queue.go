package engine

import (
	"fmt"
	"strings"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/device"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/hdd"
	"github.com/blkq-dev/blkq/sim/ssd"
	"github.com/blkq-dev/blkq/sim/traced"
)

// The queue factory: every queue blkq runs (fio jobs, replays, the
// experiments' own loops, the latency benchmark, the CLI's check of its
// queue flags) is assembled here, so a device, a scheduler, a tunable or
// a tracer means the same thing wherever it is named.

// QueueSetup describes a request queue and its device.
type QueueSetup struct {
	// Device is "sim:hdd", "sim:ssd", "sim:trace" (with ServiceTimes),
	// "null" or "file:PATH".
	Device string
	// Capacity is the device's size in bytes: a simulated or null
	// device's, the size a file is created or extended to.
	Capacity int64
	// Direct opens a file device with O_DIRECT. ReadOnly opens it
	// read-only, as it is (it must already hold Capacity bytes).
	Direct, ReadOnly bool
	// NoInline has a file device serve every request on its workers
	// (device.FileOptions.NoInline): for submitters that share one
	// goroutine, such as the jobs of one run on its executor.
	NoInline bool
	// InlineEach has a file device serve each synchronous submitter's
	// I/O on its own goroutine, whatever else is in flight
	// (device.FileOptions.InlineEach): for submitters that each have one.
	InlineEach bool
	// Config is the queue's configuration (scheduler, nr_requests,
	// nomerges, allocation policy, a lock hook, ...).
	Config blkq.Config
	// Attrs are queue tunables set after the queue is made, by their
	// Linux name (/sys/block/DEV/queue/NAME), in order.
	Attrs [][2]string
	// Tracers receive the queue's event stream, in order.
	Tracers []blkq.Tracer
	// FailRequest, if set, may fail each request the device completes
	// without error (fault injection, faults.go).
	FailRequest func(rq *blkq.Request) error
	// ServiceTimes are sim:trace's (Options.ServiceTimes).
	ServiceTimes *traced.Times
}

// A Stack is a request queue in front of its device.
type Stack struct {
	Queue  *blkq.Queue
	Device blkq.Device
	// Loop is the event loop that runs the stack: a simulated device's,
	// or the clock given to OpenQueue if it was one; nil otherwise.
	Loop *sim.Loop
}

// OpenQueue assembles the queue s describes on clk. A simulated device
// runs on clk if clk is a *sim.Loop and on a new event loop otherwise
// (Stack.Loop); null and file devices run on clk (nil: a blkq.RealClock).
// On error nothing is left open.
func OpenQueue(s QueueSetup, clk blkq.Clock) (*Stack, error) {
	kind, arg, _ := strings.Cut(s.Device, ":")
	capSectors := uint64(s.Capacity) >> blkq.SectorShift
	st := &Stack{}
	st.Loop, _ = clk.(*sim.Loop)
	switch kind {
	case "sim":
		if st.Loop == nil {
			st.Loop = sim.NewLoop()
		}
		clk = st.Loop
		switch arg {
		case "hdd":
			p := hdd.DefaultParams()
			p.Capacity = capSectors
			st.Device = hdd.New(st.Loop, p)
		case "ssd":
			p := ssd.DefaultParams()
			p.Capacity = capSectors
			st.Device = ssd.New(st.Loop, p)
		case "trace":
			if s.ServiceTimes == nil {
				return nil, fmt.Errorf("sim:trace serves each request in the time a trace recorded for it: only a replay of a blkparse or ftrace trace has those")
			}
			st.Device = traced.New(st.Loop, traced.Params{Capacity: capSectors, Times: s.ServiceTimes})
		default:
			return nil, fmt.Errorf("unknown simulated device %q: want sim:hdd, sim:ssd or sim:trace", s.Device)
		}
	case "null":
		if arg != "" {
			return nil, fmt.Errorf("unknown device %q: want null", s.Device)
		}
		if clk == nil {
			clk = blkq.NewRealClock()
		}
		st.Device = device.NewNull(clk, capSectors, 32)
	case "file":
		if clk == nil {
			clk = blkq.NewRealClock()
		}
		o := device.FileOptions{Direct: s.Direct, Depth: 32, Size: s.Capacity, NoInline: s.NoInline, InlineEach: s.InlineEach}
		if s.ReadOnly {
			o.ReadOnly, o.Size = true, 0
		}
		f, err := device.OpenFile(arg, o)
		if err != nil {
			return nil, err
		}
		if f.Capacity() < capSectors {
			f.Close()
			return nil, fmt.Errorf("%s: %d bytes, the jobs need %d", arg, f.Capacity()<<blkq.SectorShift, s.Capacity)
		}
		st.Device = f
	default:
		return nil, fmt.Errorf("unknown device %q: want sim:hdd, sim:ssd, null or file:PATH", s.Device)
	}
	if s.FailRequest != nil {
		st.Device = &failingDevice{Device: st.Device, fail: s.FailRequest}
	}
	q, err := blkq.New(st.Device, clk, s.Config)
	if err != nil {
		st.Device.Close()
		return nil, err
	}
	for _, a := range s.Attrs {
		if err := q.SetAttr(a[0], a[1]); err != nil {
			st.Device.Close()
			return nil, err
		}
	}
	for _, t := range s.Tracers {
		q.AddTracer(t)
	}
	st.Queue = q
	return st, nil
}

// queueSetup is the part of a run's options that describes its queue, on
// a device of capacity bytes.
func (o *Options) queueSetup(capacity int64) QueueSetup {
	return QueueSetup{
		Device:   o.Device,
		Capacity: capacity,
		Config:   blkq.Config{Scheduler: o.Scheduler, NrRequests: o.NrRequests, BatchRequests: o.BatchRequests, NoMerges: o.NoMerges, Alloc: o.Alloc},
		Attrs:    o.Attrs,

		FailRequest:  o.FailRequest,
		ServiceTimes: o.ServiceTimes,
	}
}
