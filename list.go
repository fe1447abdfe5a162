package blkq

// One intrusive list for the core's two kinds of queue: requests on an
// elevator's lists and sleepers on a wait queue. Intrusive, because the
// links live in the item: a push or remove allocates nothing and a
// remove from the middle is O(1), which the hot path needs. An item is on
// at most one list at a time through one links field.

// links are an item's pointers to its neighbours on the list it is on.
type links[T any] struct{ prev, next *T }

// linked is a pointer to an item that keeps links.
type linked[T any] interface {
	*T
	link() *links[T]
}

// ilist is a doubly linked list of *T through the items' links. The zero
// value is an empty list.
type ilist[T any, P linked[T]] struct {
	head, tail *T
	n          int
}

// insert puts x between prev and next, neighbours on l (nil: the end).
func (l *ilist[T, P]) insert(x, prev, next *T) {
	lx := P(x).link()
	lx.prev, lx.next = prev, next
	if prev != nil {
		P(prev).link().next = x
	} else {
		l.head = x
	}
	if next != nil {
		P(next).link().prev = x
	} else {
		l.tail = x
	}
	l.n++
}

// PushBack appends x; PushFront prepends it.
func (l *ilist[T, P]) PushBack(x *T)  { l.insert(x, l.tail, nil) }
func (l *ilist[T, P]) PushFront(x *T) { l.insert(x, nil, l.head) }

// InsertAfter puts x just after mark, InsertBefore just before it; mark
// must be on l.
func (l *ilist[T, P]) InsertAfter(x, mark *T)  { l.insert(x, mark, P(mark).link().next) }
func (l *ilist[T, P]) InsertBefore(x, mark *T) { l.insert(x, P(mark).link().prev, mark) }

// Remove unlinks x, which must be on l.
func (l *ilist[T, P]) Remove(x *T) {
	lx := P(x).link()
	if lx.prev != nil {
		P(lx.prev).link().next = lx.next
	} else {
		l.head = lx.next
	}
	if lx.next != nil {
		P(lx.next).link().prev = lx.prev
	} else {
		l.tail = lx.prev
	}
	lx.prev, lx.next = nil, nil
	l.n--
}

// Front returns the first item or nil; Back the last.
func (l *ilist[T, P]) Front() *T { return l.head }
func (l *ilist[T, P]) Back() *T  { return l.tail }

// Len returns the number of items on l.
func (l *ilist[T, P]) Len() int { return l.n }

// rqList is a list of requests, for elevators.
type rqList = ilist[Request, *Request]

// waitList is a FIFO wait queue of sleepers.
type waitList = ilist[waiter, *waiter]
