package blkq

// sortList is an elevator's requests of one direction in sector order,
// ties in insertion order: Linux's sort_list, an rb-tree, here a slice
// (insert and delete move a few hundred pointers at most, which costs
// less than a tree's rebalancing and pointer chasing at nr_requests'
// sizes). Each request's sector is kept beside it in keys, so that a
// binary search reads one plain array of a few cache lines instead of
// every request it probes: the searches (an insert, a dispatch's next
// position, a front-merge lookup, a removal) were a fifth of the
// simulator's cost per I/O through sort.Search.
//
// keys[i] is rqs[i].Sector as it was when rqs[i] was added: a front
// merge moves a request's start down, and the elevator then calls moved,
// which puts it back in order under its new sector.
type sortList struct {
	rqs  []*Request
	keys []uint64
}

// len returns the number of requests on the list.
func (l *sortList) len() int { return len(l.rqs) }

// at returns the i-th request in sector order.
func (l *sortList) at(i int) *Request { return l.rqs[i] }

// search returns the index of the first request whose sector is at
// least sector.
func (l *sortList) search(sector uint64) int {
	k := l.keys
	lo, hi := 0, len(k)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if k[m] < sector {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// add puts rq after every request of the same sector.
func (l *sortList) add(rq *Request) {
	i := l.search(rq.Sector + 1)
	l.rqs, l.keys = append(l.rqs, nil), append(l.keys, 0)
	copy(l.rqs[i+1:], l.rqs[i:])
	copy(l.keys[i+1:], l.keys[i:])
	l.rqs[i], l.keys[i] = rq, rq.Sector
}

// index returns rq's index; rq must be on the list. A request whose
// sector moved down sits past where its new sector is found, so it is
// looked for from there, then everywhere.
func (l *sortList) index(rq *Request) int {
	for i := l.search(rq.Sector); i < len(l.rqs); i++ {
		if l.rqs[i] == rq {
			return i
		}
	}
	for i, r := range l.rqs {
		if r == rq {
			return i
		}
	}
	panic("blkq: request not on its elevator's sort list")
}

// del takes rq off the list.
func (l *sortList) del(rq *Request) { l.delAt(l.index(rq)) }

// delAt takes the i-th request off the list.
func (l *sortList) delAt(i int) {
	n := len(l.rqs) - 1
	copy(l.rqs[i:], l.rqs[i+1:])
	copy(l.keys[i:], l.keys[i+1:])
	l.rqs[n] = nil
	l.rqs, l.keys = l.rqs[:n], l.keys[:n]
}

// moved puts rq, whose sector has moved down (a front merge), back in
// order: after every request of its new sector, as add would.
func (l *sortList) moved(rq *Request) {
	l.del(rq)
	l.add(rq)
}

// fromPos returns the first request at or after sector pos, or nil.
func (l *sortList) fromPos(pos uint64) *Request {
	if i := l.search(pos); i < len(l.rqs) {
		return l.rqs[i]
	}
	return nil
}

// frontOf returns the first request of op starting at sector, or nil.
func (l *sortList) frontOf(sector uint64, op Op) *Request {
	for i := l.search(sector); i < len(l.rqs) && l.keys[i] == sector; i++ {
		if l.rqs[i].Op == op {
			return l.rqs[i]
		}
	}
	return nil
}

// neighbours returns the requests before and after rq, nil where there
// is none.
func (l *sortList) neighbours(rq *Request) (before, after *Request) {
	i := l.index(rq)
	if i > 0 {
		before = l.rqs[i-1]
	}
	if i+1 < len(l.rqs) {
		after = l.rqs[i+1]
	}
	return before, after
}
