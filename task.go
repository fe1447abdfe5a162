package blkq

// A Task is a submitter: a process in Linux terms, a fio job clone, a
// goroutine calling ReadAt. Request allocation, plugging and the trace's
// pid and process name are per task.
//
// A task that must sleep for a request stops: Enqueue returns false and the
// bio stays parked with the task (Submit, for goroutines, blocks instead). When the task may go on, the queue calls
// Wake (outside its lock) with a resume function; the task calls resume when
// it runs again (a simulated scheduler may delay that), which retries the
// allocation and, once it has a request, queues the parked bio. Until then
// the task must not submit.
type Task struct {
	PID  int
	Name string

	// Wake is called when the sleeping task may run again; the task must
	// call resume exactly once. If nil, resume is called at once. The
	// queue calls the Wake the task had when it went to sleep, so a task
	// may set a new one between sleeps (as Submit does) without racing a
	// late wake-up. resume reports false when the task sleeps again, or
	// when its sleep was cancelled (Submit's context ended).
	Wake func(resume func() bool)

	plug    plugList
	waiting *waiter     // the allocation this task sleeps in, if any
	rest    *Bio        // while it sleeps for a piece of a split bio: the rest (split.go)
	submit  *submitWait // Submit's channel and Wake, made at its first Submit (api.go)
	idle    *waiter     // its last waiter, once nothing reaches it: the next sleep's (Queue.newWaiter)
}

// NewTask returns a task with the given pid and name.
func NewTask(pid int, name string) *Task {
	return &Task{PID: pid, Name: name}
}

// Asleep reports whether the task is waiting for a request. Only the
// task's own goroutine (or a single-threaded simulation) may call it.
func (t *Task) asleep() bool { return t.waiting != nil }
