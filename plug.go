package blkq

// Plugging: a task that is about to submit several bios opens a plug; the
// requests it allocates collect on the task's plug list, where the next bio
// can merge with the last request cheaply, and go to the elevator together
// when the plug is flushed: on Finish, when PlugLimit requests have
// collected (BLK_MAX_REQUEST_COUNT, 32), when the last request reached
// 128 KiB (BLK_PLUG_FLUSH_SIZE, only while merging is on), or when the task
// goes to sleep for a request.

// plugList is a task's plug.
type plugList struct {
	active int // nesting depth of Plug calls
	rqs    []*Request
}

// Plug opens (or nests) a plug for task t (blk_start_plug).
func (q *Queue) Plug(t *Task) {
	q.lock()
	t.plug.active++
	q.release()
}

// Finish closes t's plug (blk_finish_plug); the outermost Finish flushes
// the plugged requests into the elevator.
func (q *Queue) Finish(t *Task) {
	q.lock()
	if t.plug.active > 0 {
		t.plug.active--
	}
	if t.plug.active == 0 {
		q.flushPlug(t)
	}
	q.unlock()
}

// addToPlug puts a new request on t's plug, flushing first if the plug is
// full.
func (q *Queue) addToPlug(t *Task, rq *Request) {
	p := &t.plug
	if n := len(p.rqs); n > 0 {
		if n >= q.cfg.PlugLimit || (q.cfg.NoMerges != 2 && p.rqs[n-1].Bytes() >= plugFlushBytes) {
			q.flushPlug(t)
		}
	}
	if len(p.rqs) == 0 {
		e := q.trace(actPlug, nil, nil)
		e.PID, e.Task = t.PID, t
		q.emit(e)
	}
	rq.state = rqPlugged
	p.rqs = append(p.rqs, rq)
}

// plugMerge tries to merge b with the request t plugged last
// (blk_attempt_plug_merge): if b continues it at either end and fits. A
// bio that does not fit marks the request unmergeable (fits), and the
// elevator is tried next.
func (q *Queue) plugMerge(t *Task, b *Bio) bool {
	n := len(t.plug.rqs)
	if n == 0 {
		return false
	}
	rq := t.plug.rqs[n-1]
	if !q.bioMergeOK(rq, b) {
		return false
	}
	back := rq.end() == b.Sector
	if !back && b.end() != rq.Sector {
		return false
	}
	segs, ok := q.fits(rq, b)
	if !ok {
		return false
	}
	if back {
		appendBio(rq, b, segs)
		q.emit(q.trace(actBackMerge, b, rq))
	} else {
		prependBio(rq, b, segs)
		q.emit(q.trace(actFrontMerge, b, rq))
	}
	return true
}

// flushPlug inserts t's plugged requests into the elevator (U, then an I
// for each) and runs the queue.
func (q *Queue) flushPlug(t *Task) {
	p := &t.plug
	if len(p.rqs) == 0 {
		return
	}
	e := q.trace(actUnplug, nil, nil)
	e.PID, e.Task, e.Depth = t.PID, t, len(p.rqs)
	q.emit(e)
	for i, rq := range p.rqs {
		q.insert(rq)
		p.rqs[i] = nil
	}
	p.rqs = p.rqs[:0]
	q.run()
}
