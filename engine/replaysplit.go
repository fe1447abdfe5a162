package engine

import (
	"strconv"

	"github.com/blkq-dev/blkq"
)

// A kernel's split that blkq's limits do not explain, replayed.
//
// Linux cuts a read or write where its max_sectors_kb ends, or where its
// max_segments-th segment ends, whichever comes first; a segment is a
// physically contiguous run of the bio's pages, so where that is depends
// on which pages of the submitter's buffer happen to lie side by side in
// memory. No trace records that. blkq's bios count their memory as one
// run (blkq.Bio.Runs nil), the fewest segments Linux could count, so on
// its own blkq splits only at max_sectors_kb and at max_segments whole
// segments (8 MiB by default), never where a buffer's scattered pages
// run out of segments (testdata/ktrace's read-2m: 1040 KiB bios cut at 512
// and 516 KiB).
//
// A trace that shows its X events does record the outcome, and the
// outcome bounds the layout: a piece cut off before max_sectors_kb ended
// at the max_segments-th segment, so its pages make exactly max_segments
// runs. The replay gives such a bio the least scattered layout that
// does: max_segments − 1 runs of one page, then the rest of the piece as
// one run (the pages the kernel found adjacent; it must fit one
// segment), and after the last piece one run (the kernel did not cut it
// again). The queue then splits by its own rule, and merges by the
// segments those runs are. A piece the kernel cut at blkq's own limit is
// one run; if every split is at blkq's limit, or one cannot be explained
// by segments (a piece longer than blkq's limit, or too short for
// max_segments pages), the bio keeps blkq's contiguous memory.
//
// This takes the split's position from the trace: a comparison of X
// events with the kernel's then checks that blkq splits by segments as
// the kernel does and what follows from the pieces (their requests,
// merges and dispatches), not that it could guess a buffer's layout.

// kernelRuns returns the memory of r's bio that the kernel's splits of it
// (r.Splits) imply under q's limits, or nil (see above).
func kernelRuns(q *blkq.Queue, r *ReplayRecord) []uint32 {
	if r.Op != blkq.OpRead && r.Op != blkq.OpWrite {
		return nil
	}
	attr := func(name string) uint64 {
		v, err := q.Attr(name)
		if err != nil {
			return 0
		}
		n, _ := strconv.ParseUint(v, 10, 64)
		return n
	}
	maxSectors := attr("max_sectors_kb") * 2
	segs := attr("max_segments")
	segSectors := attr("max_segment_size") >> blkq.SectorShift
	block := attr("logical_block_size") >> blkq.SectorShift
	const page = 8 // sectors: 4 KiB
	if maxSectors == 0 || segs == 0 || segSectors == 0 || block == 0 {
		return nil
	}
	own := min(maxSectors, segs*segSectors) &^ (block - 1) // blkq's limit for contiguous memory
	var runs []uint32
	var done uint64
	bySegments := false
	for _, p := range r.Splits {
		switch last := int64(p) - int64(segs-1)*page; {
		case uint64(p) == own:
			runs = append(runs, p)
		case uint64(p) < own && last >= 1 && uint64(last) <= segSectors:
			for range segs - 1 {
				runs = append(runs, page)
			}
			runs = append(runs, uint32(last))
			bySegments = true
		default:
			return nil
		}
		done += uint64(p)
	}
	if !bySegments || done >= uint64(r.Sectors) {
		return nil
	}
	return append(runs, r.Sectors-uint32(done))
}
