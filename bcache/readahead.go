package bcache

import (
	"context"
	"errors"

	"github.com/blkq-dev/blkq"
)

// Read-ahead. A read that continues a sequential stream reads ahead of it:
// the pages up to ReadAheadKB past the reader that are not cached get a
// buffer each, locked, and one 8-sector read-ahead bio (blkq.FlagReadAhead)
// each, submitted under a plug so that neighbours merge into one request.
// The reader does not wait for them. When such a bio completes its buffer
// is uptodate and unlocked; a reader that got there first waits on the
// buffer lock, as for any buffer under I/O. A read-ahead bio the queue
// drops under request pressure (the 2002 rule: read-ahead fails rather than
// sleep) leaves its buffer not uptodate, and the reader reads the page
// itself when it gets there.
//
// Streams are recognised as Linux recognised them before per-file state:
// by position. The cache remembers where the last raStreams sequential
// readers will read next; a read at one of those pages continues that
// stream, any other read starts a new one (replacing the oldest). A stream
// reads ahead again when the reader comes within half a window of where
// its read-ahead ends, so one window is always in flight ahead of it.
// The stream check rides in the lock hold that finishes the read; a
// trigger adds at most one window of pages (32 for the default 128 KiB)
// to that hold.

// raStreams is how many sequential streams the cache follows.
const raStreams = 8

// raStream is one sequential reader: the page it reads next and the page
// its read-ahead reaches.
type raStream struct {
	next, end int64
}

// raState is the cache's read-ahead state, guarded by the cache lock.
type raState struct {
	window  int64 // pages; 0 turns read-ahead off
	streams [raStreams]raStream
	oldest  int
}

func (s *raState) init(pages int64) {
	s.window = pages
	for i := range s.streams {
		s.streams[i] = raStream{next: -1, end: -1}
	}
}

// noteRead notes a read of page p and, if p continues a stream whose
// read-ahead it is about to reach, returns new locked buffers to read
// ahead (submitReadAhead, after the lock is released). Called with the
// cache lock held, in the hold that finishes the read.
func (c *Cache) noteRead(p int64) []*buffer {
	if c.ra.window == 0 || c.closed {
		return nil
	}
	var st *raStream
	for i := range c.ra.streams {
		if c.ra.streams[i].next == p {
			st = &c.ra.streams[i]
			break
		}
	}
	if st == nil { // a new stream: no read-ahead until it reads on
		c.ra.streams[c.ra.oldest] = raStream{next: p + 1, end: p + 1}
		c.ra.oldest = (c.ra.oldest + 1) % raStreams
		return nil
	}
	st.next = p + 1
	if st.end-p > c.ra.window/2 {
		return nil
	}
	from := max(st.end, p+1)
	to := min(p+1+c.ra.window, c.npages)
	st.end = max(to, st.end)
	var bufs []*buffer
	for q := from; q < to; q++ {
		if c.index[q] == nil {
			bufs = append(bufs, c.newBuffer(q))
		}
	}
	c.st.ReadAheadPages += int64(len(bufs))
	c.raWG.Add(len(bufs)) // under the lock that saw !closed: before Close waits
	return bufs
}

// submitReadAhead reads bufs (new, locked, in page order) with read-ahead
// bios under one plug.
func (c *Cache) submitReadAhead(bufs []*buffer) {
	if len(bufs) == 0 {
		return
	}
	for _, b := range bufs {
		b.data = make([]byte, PageSize)
	}
	t := blkq.NewGoroutineTask("bcache-ra")
	ctx := blkq.WithTask(context.Background(), t)
	c.q.Plug(t)
	for _, b := range bufs {
		bio := &blkq.Bio{Op: blkq.OpRead, Flags: blkq.FlagReadAhead, Sector: uint64(b.page) * sectorsPerPage,
			Sectors: sectorsPerPage, Buf: b.data, Private: b, EndIO: c.endReadAhead}
		c.q.Submit(ctx, bio) // never sleeps: a read-ahead bio fails instead
	}
	c.q.Finish(t)
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
	c.unlock()
	c.raWG.Done()
}
