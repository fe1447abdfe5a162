package blkq

// none is the FIFO elevator: requests are served in insertion order.
// Merging still happens in the queue (one-hit cache and back-merge hash);
// there is no sorted order, so it implements none of the optional hooks:
// no front merge through the elevator and no request+request merge.
type none struct{ fifo rqList }

func (e *none) Name() string { return "none" }

func (e *none) Insert(rq *Request, atHead bool, _ Time) {
	if atHead {
		e.fifo.PushFront(rq)
	} else {
		e.fifo.PushBack(rq)
	}
}

func (e *none) Dispatch(Time) *Request {
	rq := e.fifo.Front()
	if rq != nil {
		e.fifo.Remove(rq)
	}
	return rq
}

func (e *none) Len() int { return e.fifo.Len() }
