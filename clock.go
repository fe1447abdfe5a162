package blkq

import "time"

// A Clock gives the queue and everything driven by it the time and timers.
// The simulator's clock is virtual and advances event by event (package sim);
// NewRealClock gives the wall clock.
type Clock interface {
	// Now returns the current time in ns since the clock's start.
	Now() Time
	// AfterFunc calls f once, d from now. In simulation f runs on the event
	// loop; on the real clock it runs on its own goroutine. The returned stop
	// function cancels the call and reports whether it did so before f ran.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// realClock is the wall clock, read through the monotonic time.Since.
type realClock struct{ start time.Time }

// NewRealClock returns a wall clock whose time 0 is now.
func NewRealClock() Clock { return &realClock{start: time.Now()} }

// Now returns the ns elapsed since the clock was made.
func (c *realClock) Now() Time { return Time(time.Since(c.start)) }

// AfterFunc runs f on its own goroutine after d (time.AfterFunc).
func (c *realClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
