// Package bcache is the core of a buffer cache in front of the request
// layer: page-sized buffers (PageSize, 4096 bytes) keyed by page index over
// a *blkq.Queue, with buffered writes, background write-back, throttling of
// heavy writers, read-ahead, a Sync (of the whole cache or of one File)
// that terminates while others keep writing, and an Invalidate
// (BLKFLSBUF's invalidate_bdev half) that terminates too.
//
// # Design
//
// One core, two clocks (cache.go). The cache has the request queue's shape:
// a state machine under one lock, driven by the queue's Clock
// (Config.Clock), that never blocks and never reads the wall clock. Every operation (StartRead,
// StartWrite, StartSync, StartInvalidate, StartDiscard, StartClose, and the
// flusher) runs until it must wait, registers one continuation and returns;
// continuations queued under the lock run after it is released. A Client
// (client.go) is a submitter: the cache's bios for it (fills, read-ahead,
// write-back it is throttled into, its Sync's writes and flush) run as its
// task, sleep in request allocation like any bio, and resume through
// Config.Schedule. The same code runs in virtual time on a simulated device
// (one goroutine, sim's event loop; Config.NoData keeps page states only,
// Config.CopyNsPerKiB charges the copy on the clock) and on real goroutines
// over a file. The blocking API (api.go: ReadAt, WriteAt, Sync, SyncFile,
// Invalidate, Discard, Close) wraps each operation with a channel, as the
// queue's api.go does.
//
// Buffers. A buffer holds one page of the device (8 sectors). Its state
// (uptodate, dirty, locked, hashed, dirtying generation, file) is guarded
// by the cache lock. Its buffer lock is a state with a FIFO of
// continuations, like 2.4's BH_Lock: whoever holds it may read or write the
// data (a reader copying out, a writer copying in, a read I/O filling it, a
// write I/O draining it). A freed buffer lock passes straight to the oldest
// waiter, so no one can steal it from a waiter: the 2002 get_request fix's
// rule (FIFO, wake-one, no stealing) applied to buffers, which bounds every
// wait for a buffer. A writer of a page under write-back waits for that
// write (stable pages), on every device.
//
// Lists. Every buffer is on exactly one list (or on a private list of a
// running Invalidate), in a stable order:
//
//   - clean: clean buffers in LRU order (eviction takes from the front);
//   - dirty: dirty buffers in the order they were first dirtied (re-dirtying
//     a dirty buffer leaves it in place), the 2.4 BUF_DIRTY lru list;
//   - busy:  dirty buffers a walk found locked (by a reader or writer) and
//     moved aside, so that no later walk trips over them again;
//   - io:    buffers under write-back I/O (2.4's BUF_LOCKED list, jbd's
//     t_locked_list), in submission order.
//
// Bounded critical sections (docs/design.md, "House rules"; the 2004
// "CONFIG_PREEMPT and server workloads" thread). No walk under the cache lock visits more than
// WalkChunk (32) items before it releases the lock (other walks' markers,
// two per walk, are stepped over without counting as work); every other
// section is O(1) or bounded by WalkChunk (eviction, write_some). A walk keeps its place
// with a marker node in the list, so after releasing the lock it resumes
// where it left off, whatever was inserted or removed meanwhile; a second
// marker put at the tail when the walk starts bounds it by the items present
// then (everything added later goes behind that marker). A walk that must
// wait (for a buffer's lock, for its batch to be handed to the queue)
// suspends between two holds with its markers in place, and its
// continuation resumes it at its cursor. Items found busy are
// moved aside to another list instead of being stepped over, so a walk makes
// progress even when every item is busy and the lock is given up at every
// step: the jbd commit loop that restarted from the beginning each time it
// yielded never finished when thousands of buffers were locked; Chris
// Mason's fix was to move locked buffers to their own list (t_locked_list),
// and that is what the busy and io lists are.
//
// Write-back. Write-back takes up to WriteBatch (32) buffers at a time (2.4's
// write_some_buffers, NRSYNC), locks each, clears its dirty bit, moves it to
// the io list, and submits one 8-sector write bio per page under a plug,
// sorted by page so that contiguous pages merge into one request (under a
// plug only the last plugged request is a merge candidate, so the sort is
// what lets them merge). The bio's completion moves the buffer to the clean
// list and unlocks it.
//
// Background flushing and throttling (2.4's bdflush and balance_dirty, 2.6's
// balance_dirty_pages). The flusher is a task on the clock (pid 7 "bdflush"
// by default), started by a timer when dirty pages exceed the background
// ratio of the cache's page capacity; it submits the oldest batch, yields
// through a timer once the batch is handed to the queue, and goes on until
// they are back under it. A writer that finds dirty plus
// under-write-back pages above the hard ratio does write-back itself, synchronously,
// until the cache is under the ratio or it has written (or waited for)
// max(WriteBatch, 2 × the pages it dirtied), which bounds the stall. The
// ratios default to Linux's vm.dirty_background_ratio 10 and vm.dirty_ratio
// 20, but here they are fractions of the cache's page capacity, not of the
// machine's available memory.
//
// Sync (the /bin/sync livelock fix of 2002: write_unlocked_buffers gives up
// after writing the buffers that were dirty when it started). Sync stamps a
// new generation; buffers dirtied from then on carry it, so "dirty before
// Sync began" is a test on the buffer, not on the list. A Sync of one File
// (AddFile: a byte range, an inode) is fsync as Linux scopes it: it owes
// only that file's pages dirty at the call, and waits only for that file's
// write-back in flight from before the call; the walks still step over the
// other files' pages on the shared lists, bounded by the lists' lengths at
// the call. Sync then walks, in
// bounded chunks: (1) the dirty list up to its end marker, writing unlocked
// buffers and moving locked ones to the busy list; (2) the busy list, waiting
// for the buffer lock of each old-generation dirty buffer (a bounded FIFO
// wait) and writing it; (3) the io list, waiting for each write in flight
// when the walk began (write_unlocked_buffers then wait_for_locked_buffers,
// as fsync_dev did). Then it flushes the device. Each buffer it writes was
// dirty when it started and is written at most once, so Sync writes at most
// the dirty count at call time; it also enforces Andrew Morton's cap of
// twice that count.
//
// Invalidate (invalidate_bdev, the other livelock of the same thread: LILO's
// BLKFLSBUF never finished while dbench ran). It walks the clean list up to
// its end marker dropping unlocked buffers and moving locked ones to a list
// of its own, then walks that list waiting once for each and dropping it if
// it is still clean. Dirty buffers and buffers under write-back are kept;
// BLKFLSBUF proper is Sync followed by Invalidate.
//
// Discard (discard.go, BLKDISCARD): drops the range's pages, discards it on
// the device and keeps every fill of the range (read miss, partial write's
// read, read-ahead) out until the device discard has completed, as Linux's
// invalidate lock does, so that no old data comes back.
//
// Reads (rw.go) submit the fills a call needs (up to max(WalkChunk, the
// read-ahead window) pages at a time) under one plug, so that one call's
// pages merge into one request, then take the pages in order. Read-ahead
// (readahead.go): a read that continues a sequential stream (a Client's
// own, or the blocking API's shared table of streams) reads
// up to ReadAheadKB ahead (at most half the capacity, never past it, in
// chunks of WalkChunk pages per lock hold) with read-ahead bios that fail
// rather than sleep under request pressure.
//
// Write-back errors (errseq.go) reach Sync or Close as the device reported
// them, as Linux's errseq reports them to fsync; TakeWriteError takes the
// one no Sync returned, for a run that ends without one.
//
// A run's end: StartClose writes everything back; StartQuiesce stops the
// flusher and waits for what is in flight, leaving dirty pages dirty (as
// fio leaves them without end_fsync); Idle reports that nothing is in
// flight.
//
// Not yet: periodic write-back of old dirty buffers (kupdate's
// dirty_expire).
//
// Instruments. Counters of hits, reads, writes by source, evictions,
// throttling and walk steps; with Config.LockTiming, every hold of the
// cache lock is timed into an HdrHistogram too (Stats.Lock, package
// lockstat; optionally on the holder's CPU clock). The timing is the only
// wall-clock reading, and it never drives the cache.
//
// Sources (docs/design.md, docs/discussions.md): the linux-kernel threads
// "[patch] get_request starvation fix" of February 2002 (write_some_buffers,
// NRSYNC 32, write_unlocked_buffers' nr_to_write = 2 × nr_buffers_type[BUF_DIRTY],
// balance_dirty, bdflush, the invalidate_bdev livelock) and "CONFIG_PREEMPT
// and server workloads" of March 2004 (latency is the longest stretch that
// cannot yield; the jbd commit-loop restart and t_locked_list); Linux's
// vm.dirty_background_ratio and vm.dirty_ratio defaults
// (Documentation/admin-guide/sysctl/vm.rst).
//
// Units: sizes and offsets of ReadAt/WriteAt are bytes; buffers, thresholds
// and counts are pages of PageSize bytes; durations are time.Duration.
package bcache
