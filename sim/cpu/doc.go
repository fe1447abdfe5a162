// Package cpu models a machine's CPUs in the virtual time of a sim.Loop:
// the submitters of a simulated run are threads that need a CPU to do
// their work, so that what a CPU costs (a context switch, a system call,
// a stretch under a lock) takes time and can delay others.
//
// The model, as far as the Linux discussions blkq grows from describe the
// kernels of 2002-2004 (docs/cpus.md has the sources):
//
//   - A Sched has Config.CPUs identical CPUs. A thread is asleep, runnable
//     (waiting in the run queue) or running on one CPU.
//   - Work is posted to a thread (Thread.Post). A sleeping thread it wakes
//     goes to an idle CPU at once (the lowest-numbered one) or waits in
//     the run queue; a runnable or running thread does it after the work
//     already posted, in order.
//   - Putting a thread on a CPU is a context switch: it costs the CPU
//     Config.ContextSwitch before the thread's work runs, and counts one
//     switch for the thread.
//   - A thread's work items run in virtual time 0; the CPU time they stand
//     for is asked for with Thread.Spend (a system call, the request
//     layer's work for a bio) or Thread.Section (a stretch that cannot be
//     preempted, such as a walk under a spinlock, optionally with a
//     preemption point every so often: lock breaking). The thread keeps
//     its CPU until that time has passed.
//   - A thread whose posted work is done sleeps and frees its CPU, which
//     takes the first thread of the run queue.
//   - The run queue is ordered by priority (a nice value, -20 to 19, lower
//     first) and, within one, first come first served, like 2.6's
//     per-priority run lists.
//   - A running thread is preempted only at a preemption point: the end of
//     each stretch of CPU time (a system call's return to user space, the
//     end of a section) and, inside a section, each of its break points.
//     There it gives up its CPU to a waiting thread of better priority (as
//     a woken task of higher priority sets need_resched), or to one of
//     equal priority once it has run Config.Timeslice without sleeping.
//     Without a break point a section holds its CPU to its end whatever
//     waits: preemption does not shorten a stretch run under a lock, the
//     2004 thread's point. A preempted thread keeps its place at the head
//     of its priority's queue; one whose timeslice ran out goes to the
//     tail.
//
// Left out: interrupts and softirqs (device completions cost no CPU), CPU
// affinity and migration (the CPUs are interchangeable), the interactivity
// bonus 2.6 gave to sleepers, and user-space preemption between preemption
// points (the work between them is short).
//
// Everything runs on the loop's goroutine and is deterministic: the same
// posts at the same times give the same schedule.
package cpu
