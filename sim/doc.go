// Package sim is blkq's simulator core: a deterministic discrete-event loop
// in virtual time (Loop, a blkq.Clock) and seeded random streams (RNG).
//
// A simulation runs on one goroutine. Everything it does (submitting bios,
// device completions, timers) is an event on the Loop, ordered by virtual
// time and, at equal times, by the order in which events were scheduled. No
// wall clock and no map iteration order enters the run, so the same seed and
// the same inputs replay the same run event for event.
//
// Times are blkq.Time values: nanoseconds since the loop started (time 0).
// The simulated devices live in sub-packages (sim/hdd, sim/ssd, and
// sim/traced, which serves each request in the time a trace recorded),
// and the model of the machine's CPUs in sim/cpu.
package sim
