package sim

import (
	"fmt"
	"reflect"

	"github.com/blkq-dev/blkq"
)

// Device is the part every simulated device shares: the blkq.Device
// methods, the capacity check and the completion callback. What differs
// between a disk and an SSD is only how requests are served (one head
// serving in turn, or dies and channels serving at once), so a model embeds
// a Device and gives it that as a Server; the shell is written once.
//
// A Device must be used on its loop's goroutine, as the queue does.
type Device struct {
	loop     *Loop
	name     string
	capacity uint64 // sectors (512 bytes)
	depth    int
	serve    func(rq *blkq.Request)
	complete func(*blkq.Request, error)
}

// Init sets up the shell of a device called name ("sim:hdd") with capacity
// 512-byte sectors and queue depth depth, on loop; serve takes each request
// that passed the capacity check and must end it, later, with Complete.
func (d *Device) Init(loop *Loop, name string, capacity uint64, depth int, serve func(rq *blkq.Request)) {
	d.loop, d.name, d.capacity, d.depth, d.serve = loop, name, capacity, depth, serve
}

// Name returns the device's name ("sim:hdd", "sim:ssd").
func (d *Device) Name() string { return d.name }

// Capacity returns the device's size in 512-byte sectors.
func (d *Device) Capacity() uint64 { return d.capacity }

// Depth returns the number of requests the device accepts at once.
func (d *Device) Depth() int { return d.depth }

// Loop returns the loop the device runs on.
func (d *Device) Loop() *Loop { return d.loop }

// Attach sets the function the device calls, on the loop, when a request
// completes.
func (d *Device) Attach(complete func(rq *blkq.Request, err error)) { d.complete = complete }

// Issue accepts rq. A request that reaches beyond the capacity completes
// with an error at once (on the loop, never inside Issue); the others go to
// the model's server.
func (d *Device) Issue(rq *blkq.Request) {
	if err := d.check(rq); err != nil {
		d.loop.Post(func() { d.complete(rq, err) })
		return
	}
	d.serve(rq)
}

// Complete ends rq with err: the model calls it when service ends.
func (d *Device) Complete(rq *blkq.Request, err error) { d.complete(rq, err) }

// Close does nothing: requests in flight complete as the loop runs on.
func (d *Device) Close() error { return nil }

// check returns an error if rq reaches beyond the device. A flush has no
// sectors and always fits.
func (d *Device) check(rq *blkq.Request) error {
	if rq.Op == blkq.OpFlush {
		return nil
	}
	c := d.capacity
	if rq.Sector >= c || uint64(rq.Sectors) > c-rq.Sector {
		return fmt.Errorf("%s: %s of %d sectors at sector %d reaches beyond the capacity of %d sectors",
			d.name, rq.Op, rq.Sectors, rq.Sector, c)
	}
	return nil
}

// WithDefaults returns p with every zero field set from the same field of
// defaults: the models' parameters take "zero means the default" as their
// rule, and this is that rule once. P must be a struct type.
func WithDefaults[P any](p, defaults P) P {
	v, d := reflect.ValueOf(&p).Elem(), reflect.ValueOf(defaults)
	for i := range v.NumField() {
		if f := v.Field(i); f.CanSet() && f.IsZero() {
			f.Set(d.Field(i))
		}
	}
	return p
}
