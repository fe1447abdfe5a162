package trace

import "slices"

// blkparse reads one file per CPU (NAME.blktrace.CPU) and merges the
// files by time: it keeps the per-CPU streams in a list ordered by the
// time of each stream's next record, always prints the head stream's next
// record, and after each record moves the head stream behind every stream
// whose next record is earlier (a stream that ties stays first). Process
// and timestamp notes are consumed while reading and are not part of the
// merge; messages are. Times print relative to the "genesis": the first
// record of the head stream once all streams are open.

// stream is one CPU's records, in file order.
type stream struct {
	idx  []int // indices into the records
	pos  int
	next *stream
}

func (s *stream) peek(recs []Record) uint64 { return recs[s.idx[s.pos]].Time }

// parseOrder returns the indices of the records blkparse prints or counts,
// in the order it handles them, and the genesis time.
func parseOrder(recs []Record) (order []int, genesis uint64) {
	byCPU := map[uint32]*stream{}
	var cpus []uint32
	for i := range recs {
		r := &recs[i]
		if r.IsNotify() && r.Action != ActionMessage {
			continue
		}
		s := byCPU[r.CPU]
		if s == nil {
			s = &stream{}
			byCPU[r.CPU] = s
			cpus = append(cpus, r.CPU)
		}
		s.idx = append(s.idx, i)
	}
	var head *stream
	insert := func(s *stream) {
		t := s.peek(recs)
		switch {
		case head == nil:
			head = s
		case t < head.peek(recs):
			s.next, head = head, s
		default:
			p := head
			for p.next != nil && p.next.peek(recs) < t {
				p = p.next
			}
			s.next, p.next = p.next, s
		}
	}
	// Streams are opened in CPU order; CPUs without records have no file.
	slices.Sort(cpus)
	for _, cpu := range cpus {
		insert(byCPU[cpu])
	}
	if head == nil {
		return nil, 0
	}
	genesis = head.peek(recs)
	for head != nil {
		s := head
		order = append(order, s.idx[s.pos])
		s.pos++
		if s.pos == len(s.idx) {
			head, s.next = s.next, nil
			continue
		}
		if s.next != nil && s.peek(recs) > s.next.peek(recs) {
			head, s.next = s.next, nil
			insert(s)
		}
	}
	return order, genesis
}
