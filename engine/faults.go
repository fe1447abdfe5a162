package engine

import "github.com/blkq-dev/blkq"

// Fault injection, after Linux's fail_make_request: a run's
// Options.FailRequest is asked about every request its device completes
// without error, and the error it returns (an errno inside it, EIO when
// none) fails the request, as a medium error would after the device's
// service time. It lets tests give fio's error options (continue_on_error,
// ignore_error) a device that fails chosen I/O, deterministically on the
// simulated devices.

// failingDevice is a device whose good completions fail may turn into errors.
type failingDevice struct {
	blkq.Device
	fail func(rq *blkq.Request) error
}

// Attach hands the device a completion that asks fail first.
func (d *failingDevice) Attach(complete func(rq *blkq.Request, err error)) {
	d.Device.Attach(func(rq *blkq.Request, err error) {
		if err == nil {
			err = d.fail(rq)
		}
		complete(rq, err)
	})
}

// QueueLimit passes on the wrapped device's limits (its write cache and
// FUA decide how the queue sends it flushes), if it states any.
func (d *failingDevice) QueueLimit(name string) (string, bool) {
	if l, ok := d.Device.(interface {
		QueueLimit(string) (string, bool)
	}); ok {
		return l.QueueLimit(name)
	}
	return "", false
}
