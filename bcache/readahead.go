package bcache

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/blkq-dev/blkq"
)

// Read-ahead. A read that continues a sequential stream reads ahead of it:
// the pages up to the window past the reader that are not cached get a
// buffer each, locked, and one 8-sector read-ahead bio (blkq.FlagReadAhead)
// each, submitted under a plug so that neighbours merge into one request.
// The reader does not wait for them. When such a bio completes its buffer
// is uptodate and unlocked; a reader that got there first waits on the
// buffer lock, as for any buffer under I/O. A read-ahead bio the queue
// drops under request pressure (the 2002 rule: read-ahead fails rather than
// sleep) leaves its buffer not uptodate, and the reader reads the page
// itself when it gets there.
//
// Streams are recognised by position, in a table of raStreams entries: the
// table remembers where the last raStreams sequential readers will read
// next; a read at one of those pages continues that stream, any other read
// starts a new one (replacing the oldest). A Client made with NewClient
// has a table of its own (a process's read-ahead state, as Linux keeps one
// per open file), so other clients' streams never push its own out; the
// blocking API's calls, each a client of its own, share the cache's table,
// as Linux recognised streams before per-file state. A stream
// reads ahead again when the reader comes within half a window of where
// its read-ahead ends, so one window is always in flight ahead of it.
// The stream check rides in the lock hold that finishes the read. A stream
// in a File (AddFile) never reads ahead past the file's end.
//
// Bounds, whatever read_ahead_kb says. Linux accepts any read_ahead_kb from
// 0 to 2^32-1 KiB (queue_ra_store parses it with queue_var_store, which
// refuses more than UINT_MAX) and has not tied it to max_sectors_kb since
// 2006 ("readahead: remove size limit on read_ahead_kb", Wu Fengguang: a
// large value is harmless because read-ahead consults the memory
// available). The memory check it relied on, max_sane_readahead (through
// Linux 3.14), capped a read-ahead at half of the node's free and inactive
// file pages; the cache's analogue is half its capacity, so the window is
// min(read_ahead_kb, Capacity/2) pages. Within the window, read-ahead never takes a page past
// the capacity: it evicts a clean page for each one it adds, and when none
// can be evicted it stops (the rest of the window is counted in
// ReadAheadSkipped, as Linux's read-ahead allocations give up rather than
// reclaim hard). It adds the window's buffers at most WalkChunk pages per
// hold of the cache lock, like every other walk, submitting each chunk's
// bios before taking the lock again.

// raStreams is how many sequential streams the cache follows.
const raStreams = 8

// MaxReadAheadKB is the largest read-ahead accepted, in KiB: Linux's limit
// on read_ahead_kb (UINT_MAX, from queue_var_store). The window actually
// used is also capped at half the cache's capacity.
const MaxReadAheadKB = math.MaxUint32

// raStream is one sequential reader: the page it reads next and the page
// its read-ahead reaches.
type raStream struct {
	next, end int64
}

// raState is the cache's read-ahead state, guarded by the cache lock.
type raState struct {
	window int64   // pages; 0 turns read-ahead off
	shared raTable // the blocking API's streams
}

func (s *raState) init(pages int64) {
	s.window = pages
	s.shared.init()
}

// raTable is a table of streams, guarded by the cache lock.
type raTable struct {
	streams [raStreams]raStream
	oldest  int
}

func (t *raTable) init() {
	for i := range t.streams {
		t.streams[i] = raStream{next: -1, end: -1}
	}
}

// readAheadWindow returns the read-ahead window in pages: kb
// (Config.ReadAheadKB; negative is off), or q's read_ahead_kb if kb is 0,
// capped at half of capacity pages. Out of Linux's range is an error.
func readAheadWindow(q *blkq.Queue, kb, capacity int) (int64, error) {
	n := int64(kb)
	if kb == 0 {
		v, err := q.Attr("read_ahead_kb")
		if err == nil {
			n, err = strconv.ParseInt(v, 10, 64)
		}
		if err != nil || n < 0 || n > MaxReadAheadKB {
			return 0, fmt.Errorf("bcache: queue read_ahead_kb %.200q: want 0..%d KiB", v, int64(MaxReadAheadKB))
		}
	}
	if n > MaxReadAheadKB {
		return 0, fmt.Errorf("bcache: Config.ReadAheadKB %d: want at most %d KiB (Linux's read_ahead_kb limit)", n, int64(MaxReadAheadKB))
	}
	return min(max(n, 0)*1024/PageSize, int64(capacity/2)), nil
}

// noteRead notes a read of page p in the streams t (a client's own; nil:
// the shared table) and, if p continues a stream whose read-ahead it is
// about to reach, returns the pages [from, to) to read ahead (readAhead,
// after the lock is released). Called with the cache lock held, in the
// hold that finishes the read; it does O(raStreams + log files) work.
func (c *Cache) noteRead(t *raTable, p int64) (from, to int64) {
	if c.ra.window == 0 || c.closed {
		return 0, 0
	}
	if t == nil {
		t = &c.ra.shared
	}
	var st *raStream
	for i := range t.streams {
		if t.streams[i].next == p {
			st = &t.streams[i]
			break
		}
	}
	if st == nil { // a new stream: no read-ahead until it reads on
		t.streams[t.oldest] = raStream{next: p + 1, end: p + 1}
		t.oldest = (t.oldest + 1) % raStreams
		return 0, 0
	}
	st.next = p + 1
	if st.end-p > c.ra.window/2 {
		return 0, 0
	}
	from = max(st.end, p+1)
	to = min(p+1+c.ra.window, c.npages)
	if f := c.fileOf(p); f != nil {
		to = min(to, f.last+1) // never past the end of the file, as Linux never reads ahead past EOF
	}
	st.end = max(to, st.end)
	return from, to
}

// readAhead reads the pages of [from, to) that are not cached with
// read-ahead bios submitted as cl, adding their buffers at most WalkChunk
// pages per hold of the cache lock and never past the capacity, and
// submitting each hold's bios before taking the lock again. Pages of a
// discard in progress are skipped. It never waits: a read-ahead bio that
// finds no request fails instead.
func (c *Cache) readAhead(cl *Client, from, to int64) {
	if from >= to {
		return
	}
	bufs := make([]*buffer, 0, WalkChunk)
	for p, stop := from, false; p < to && !stop; {
		bufs = bufs[:0]
		c.lock()
		steps := 0
		for ; steps < WalkChunk && p < to; steps, p = steps+1, p+1 {
			if c.closed {
				stop = true
				break
			}
			if c.index[p] != nil {
				continue
			}
			if c.discarding(p) != nil {
				c.st.ReadAheadSkipped++
				continue
			}
			if c.nrPages >= c.capacity && !c.evictOne() {
				c.st.ReadAheadSkipped += to - p
				stop = true
				break
			}
			bufs = append(bufs, c.newBuffer(p))
		}
		c.st.ReadAheadPages += int64(len(bufs))
		c.raInFlight += len(bufs) // under the lock that saw !closed: before Close waits
		if c.raHook != nil {
			c.raHook(steps, len(bufs))
		}
		c.unlock()
		bios := make([]*blkq.Bio, len(bufs))
		for i, b := range bufs {
			bios[i] = c.pageBio(b, blkq.OpRead, blkq.FlagReadAhead, c.endReadAhead)
		}
		cl.submit(bios, nil) // never sleeps: a read-ahead bio fails instead
	}
}

// endReadAhead completes a read-ahead page: uptodate unless the bio failed
// (dropped under request pressure, or an error); then unlocked.
func (c *Cache) endReadAhead(bio *blkq.Bio, err error) {
	b := bio.Private.(*buffer)
	c.lock()
	switch {
	case err == nil:
		b.uptodate = true
	case errors.Is(err, blkq.ErrReadAheadDropped):
		c.st.ReadAheadDropped++
	default:
		c.st.ReadAheadErrors++
	}
	c.unlockBuffer(b)
	c.raInFlight--
	c.checkIdle()
	c.unlock()
}
