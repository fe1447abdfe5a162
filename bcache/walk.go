package bcache

// Intrusive lists and the bounded walk over them.

// WalkChunk is the most items a walk visits per hold of the cache lock.
const WalkChunk = 32

// node links a buffer, or a walk's marker, into a list.
type node struct {
	prev, next *node
	list       *blist
	buf        *buffer // nil for a marker
}

// blist is a doubly linked list of nodes with a sentinel root. Markers may
// sit anywhere on it; n counts buffers only.
type blist struct {
	root node
	n    int
}

func (l *blist) init() {
	l.root.prev, l.root.next = &l.root, &l.root
}

// front returns the first node (buffer or marker), or nil.
func (l *blist) front() *node { return l.next(&l.root) }

// next returns the node after n on l, or nil at the end.
func (l *blist) next(n *node) *node {
	if n.next == &l.root {
		return nil
	}
	return n.next
}

// firstBuffer returns the first buffer on l, stepping over markers (at most
// maxSteps nodes), or nil.
func (l *blist) firstBuffer(maxSteps int) *buffer {
	for n, i := l.front(), 0; n != nil && i < maxSteps; n, i = l.next(n), i+1 {
		if n.buf != nil {
			return n.buf
		}
	}
	return nil
}

// insertAfter puts n, which is on no list, after at on l.
func (l *blist) insertAfter(n, at *node) {
	n.prev, n.next = at, at.next
	at.next.prev = n
	at.next = n
	n.list = l
	if n.buf != nil {
		l.n++
	}
}

func (l *blist) pushBack(n *node)  { l.insertAfter(n, l.root.prev) }
func (l *blist) pushFront(n *node) { l.insertAfter(n, &l.root) }

// unlink takes n off its list, if any.
func (n *node) unlink() {
	l := n.list
	if l == nil {
		return
	}
	n.prev.next = n.next
	n.next.prev = n.prev
	n.prev, n.next, n.list = nil, nil, nil
	if n.buf != nil {
		l.n--
	}
}

// moveTo puts n at the tail of l.
func (n *node) moveTo(l *blist) {
	n.unlink()
	l.pushBack(n)
}

// verdict is what a walk's visit function decided about an item.
type verdict uint8

const (
	vKeep  verdict = iota // leave it in place; the cursor passes it
	vTake                 // visit took it off the list (into a batch, or dropped it)
	vAside                // busy: move it to the walk's aside list
	vWait                 // leave it in place, pass it, and release the lock now (between waits for it)
	vStop                 // end the walk
)

// A walk visits, in order, the items of src that were on it when the walk
// began and are still on it when the cursor reaches them, holding the lock
// for at most chunk items at a time. The cursor and the end are marker
// nodes, so the walk survives any insertion or removal made while the lock is
// released, and never visits an item added after it began (new items go to
// the tail, behind the end marker). Each step moves the cursor past one item
// or moves the item off src, and every hold takes at least one step, so the
// walk completes in at most (items at start) steps and as many holds plus
// one, even if yield asks for the lock at every step and every item is busy.
// A hold covers at most chunk items plus the markers of other walks (two
// each) it steps over.
//
// A walk never blocks: between holds, wait may suspend it (a buffer lock
// it waits for, its batch being handed to the queue); the continuation then
// calls run again, and the walk goes on where its cursor is.
type walk struct {
	src   *blist
	aside *blist // where vAside items go
	chunk int    // items per lock hold; 0 means WalkChunk

	lock, unlock func()

	// before, if set, is called under the lock before visit (a test hook).
	before func(b *buffer)
	// visit decides about one item, under the lock. It must not release
	// the lock. For vTake it must have unlinked the item from src.
	visit func(b *buffer) verdict
	// yield, if set, is asked under the lock after each step whether to
	// release the lock now (need_resched).
	yield func() bool
	// between runs with the lock released after each hold and once at the
	// end, without waiting.
	between func()
	// wait, if set, runs after between, with the lock released: it
	// submits what visit collected and waits for what visit asked to wait
	// for. It returns true when it has suspended the walk (resume will be
	// called once); it is then called again, until it returns false,
	// before the walk's next hold.
	wait func(resume func()) bool
	// then, if set, runs once the walk has ended, with the lock released.
	then func()

	// Results.
	steps      int // items visited
	markers    int // other walks' markers stepped over (not steps)
	holds      int // lock holds
	maxPerHold int // most steps in one hold

	cur, end node // markers: buf == nil
	started  bool
	waiting  bool // in wait
	done     bool // the last hold has run
	lp       loop
}

// run performs the walk, or goes on with it after a suspension. The lock
// must not be held.
func (w *walk) run() { w.lp.kick(w.step) }

func (w *walk) step() bool {
	if w.waiting {
		if w.wait(w.run) {
			return false
		}
		w.waiting = false
		return w.next()
	}
	w.hold()
	if w.between != nil {
		w.between()
	}
	if w.wait != nil {
		w.waiting = true
		if w.wait(w.run) {
			return false
		}
		w.waiting = false
	}
	return w.next()
}

// next ends the walk after its last hold, or asks for the next hold.
func (w *walk) next() bool {
	if !w.done {
		return true
	}
	if w.then != nil {
		w.then()
	}
	return false
}

// hold runs one hold of the lock.
func (w *walk) hold() {
	chunk := w.chunk
	if chunk <= 0 {
		chunk = WalkChunk
	}
	w.lock()
	if !w.started {
		w.started = true
		w.src.pushFront(&w.cur)
		w.src.pushBack(&w.end)
	}
	n := 0
	for n < chunk {
		nx := w.cur.next
		// Step over other walks' markers (at most two per walk) in the
		// same hold: they are not work, and ending a hold on one would
		// let two walks leapfrog each other's cursors for ever.
		for nx != &w.end && nx.buf == nil {
			w.cur.unlink()
			w.src.insertAfter(&w.cur, nx)
			w.markers++
			nx = w.cur.next
		}
		if nx == &w.end {
			w.done = true
			break
		}
		n++
		b := nx.buf
		if w.before != nil {
			w.before(b)
		}
		v := w.visit(b)
		switch v {
		case vKeep, vWait:
			w.cur.unlink()
			w.src.insertAfter(&w.cur, nx)
		case vTake:
			if nx.list == w.src {
				panic("bcache: walk visit took an item it left on the list")
			}
		case vAside:
			nx.moveTo(w.aside)
		case vStop:
			w.done = true
		}
		if w.done || v == vWait || (w.yield != nil && w.yield()) {
			break
		}
	}
	w.steps += n
	w.maxPerHold = max(w.maxPerHold, n)
	w.holds++
	if w.done {
		w.cur.unlink()
		w.end.unlink()
	}
	w.unlock()
}
