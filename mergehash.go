package blkq

// The back-merge hash's table: the queued requests that a bio could
// back-merge into, by end sector (merge.go says when a request is on it).
//
// It is a table of chains linked through Request.hashNext, as Linux's
// elevator hash is a table of hlists: a request goes on the chain of its
// end sector's bucket, at the head, and a lookup walks one chain. A Go
// map did the same work before, at about three times the cost per I/O
// (hashing, an assignment and a delete on every request's way through the
// queue), and allocated as it grew. The table starts small and doubles
// when it holds more requests than buckets, so a chain stays about one
// request long whatever nr_requests is; it never shrinks (its size is
// bounded by the most requests ever queued at once). Buckets are the top
// bits of the end sector times 2^64/φ (Fibonacci hashing): sequential
// end sectors, 8 apart for 4 KiB requests, spread over the table.
//
// Requests with the same end sector share a chain, newest first, and
// keep that order when the table grows: a lookup finds the same request
// a map of lists found.

const (
	mergeHashMinBits = 6                  // 64 buckets to start with
	fibonacci64      = 0x9E3779B97F4A7C15 // 2^64 / golden ratio
)

// mergeHash is the table. The zero value is an empty table.
type mergeHash struct {
	buckets []*Request // chain heads; len is 1<<bits
	bits    uint
	n       int        // requests on the table
	scratch []*Request // one chain, reversed, while the table grows
}

// index returns the bucket of end sector key.
func (h *mergeHash) index(key uint64) uint64 {
	return (key * fibonacci64) >> (64 - h.bits)
}

// add puts rq, which is on no chain, at the head of its end sector's.
func (h *mergeHash) add(rq *Request) {
	if h.n >= len(h.buckets) {
		h.grow()
	}
	b := &h.buckets[h.index(rq.end())]
	rq.hashNext = *b
	*b = rq
	h.n++
}

// del takes rq, which is on the table, off its chain; rq's end sector
// must be the one it was added with.
func (h *mergeHash) del(rq *Request) {
	p := &h.buckets[h.index(rq.end())]
	for *p != nil && *p != rq {
		p = &(*p).hashNext
	}
	if *p == rq {
		*p = rq.hashNext
		h.n--
	}
	rq.hashNext = nil
}

// find returns the newest request of op on the table ending at sector.
func (h *mergeHash) find(sector uint64, op Op) *Request {
	if h.n == 0 {
		return nil
	}
	for rq := h.buckets[h.index(sector)]; rq != nil; rq = rq.hashNext {
		if rq.Op == op && rq.end() == sector {
			return rq
		}
	}
	return nil
}

// first returns the newest request on the table ending at sector,
// whatever its op (elv_rqhash_find's first entry with the key).
func (h *mergeHash) first(sector uint64) *Request {
	if h.n == 0 {
		return nil
	}
	for rq := h.buckets[h.index(sector)]; rq != nil; rq = rq.hashNext {
		if rq.end() == sector {
			return rq
		}
	}
	return nil
}

// grow doubles the table (or makes the first one) and moves every
// chain's requests to the new table in their order. Each new bucket's
// requests come from one old bucket (the new index's top bits are the
// old one's), so pushing an old chain's requests from its tail keeps the
// order of requests with the same end sector.
func (h *mergeHash) grow() {
	old := h.buckets
	h.bits = max(h.bits+1, mergeHashMinBits)
	h.buckets = make([]*Request, 1<<h.bits)
	for _, head := range old {
		s := h.scratch[:0]
		for rq := head; rq != nil; rq = rq.hashNext {
			s = append(s, rq)
		}
		for i := len(s) - 1; i >= 0; i-- {
			rq := s[i]
			b := &h.buckets[h.index(rq.end())]
			rq.hashNext = *b
			*b = rq
		}
		clear(s)
		h.scratch = s[:0]
	}
}

// each calls f for every request on the table with the bucket it is in
// and the bucket its end sector belongs in (for Check); f returns false
// to stop.
func (h *mergeHash) each(f func(rq *Request, in, want uint64) bool) {
	for i, head := range h.buckets {
		for rq := head; rq != nil; rq = rq.hashNext {
			if !f(rq, uint64(i), h.index(rq.end())) {
				return
			}
		}
	}
}

// len returns the number of requests on the table.
func (h *mergeHash) len() int { return h.n }
