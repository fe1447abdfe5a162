// Package cputime measures the CPU time a benchmark costs, beside the wall
// time testing.B measures: on a shared machine the wall time of a run
// includes waiting for a CPU, while the CPU time charged to the process
// (user + system, getrusage) is what an I/O costs. Benchmarks report it as
// "cpu-ns/op".
package cputime

import (
	"syscall"
	"time"
)

// Process returns the user plus system CPU time the process has used so
// far, or 0 where getrusage fails.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Benchmark is the part of *testing.B a Meter drives (an interface, so
// that blkq bench, which reads Process, does not link package testing).
type Benchmark interface {
	ReportAllocs()
	ResetTimer()
	StopTimer()
	StartTimer()
	ReportMetric(n float64, unit string)
}

// A Meter is a benchmark's CPU clock, started and stopped with its timer.
// The process's other goroutines (device workers, the garbage collector)
// are charged too: they are part of the I/O's cost.
type Meter struct {
	b       Benchmark
	start   time.Duration
	used    time.Duration
	running bool
}

// Start reports b's allocations, resets its timer and starts the meter.
func Start(b Benchmark) *Meter {
	b.ReportAllocs()
	b.ResetTimer()
	return &Meter{b: b, start: Process(), running: true}
}

// Pause stops b's timer and the meter, for work off the clock.
func (m *Meter) Pause() {
	m.b.StopTimer()
	if m.running {
		m.used += Process() - m.start
		m.running = false
	}
}

// Resume starts them again.
func (m *Meter) Resume() {
	if !m.running {
		m.start, m.running = Process(), true
	}
	m.b.StartTimer()
}

// Stop ends the measured loop of ops operations (b.N): it stops the timer
// and reports the CPU time per operation as "cpu-ns/op".
func (m *Meter) Stop(ops int) {
	m.Pause()
	if ops > 0 {
		m.b.ReportMetric(float64(m.used)/float64(ops), "cpu-ns/op")
	}
}
