package trace

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
)

// ioStats are blkparse's per-CPU counters. Sizes are kept as blkparse
// keeps them: whole KiB plus the remainders in bytes.
type ioStats struct {
	qreads, qwrites, creads, cwrites, mreads, mwrites uint64
	ireads, iwrites, rrqueue, wrqueue                 uint64
	qreadKB, qwriteKB, creadKB, cwriteKB              uint64
	ireadKB, iwriteKB, mreadKB, mwriteKB              uint64
	qreadB, qwriteB, creadB, cwriteB                  uint64
	ireadB, iwriteB, mreadB, mwriteB                  uint64
	qreadsPC, qwritesPC, ireadsPC, iwritesPC          uint64
	rrqueuePC, wrqueuePC, creadsPC, cwritesPC         uint64
	qreadKBPC, qwriteKBPC, ireadKBPC, iwriteKBPC      uint64
	qreadBPC, qwriteBPC, ireadBPC, iwriteBPC          uint64
	ioUnplugs, timerUnplugs                           uint64
}

// addSize counts bytes (KiB and bytes) into the counter pair.
func addSize(kb, b *uint64, bytes uint32) {
	*kb += uint64(bytes >> 10)
	*b += uint64(bytes & 1023)
}

// subSize takes bytes out of the counter pair (a requeue), wrapping as
// blkparse's unsigned counters do.
func subSize(kb, b *uint64, bytes uint32) {
	*kb -= uint64(bytes >> 10)
	*b -= uint64(bytes & 1023)
}

// summary is blkparse's per-device state at the end of a file.
type summary struct {
	cpus        map[uint32]*ioStats // by CPU, for the CPUs that have records
	curDepth    [2]uint64
	maxDepth    [2]uint64
	events      uint64
	first, last uint64
	drvData     bool // a driver-data record was seen (blkparse notes it at the end)
}

// account counts one record handled at time t (since genesis).
func (s *summary) account(r *Record, t uint64) {
	ios := s.cpus[r.CPU]
	if ios == nil {
		ios = &ioStats{}
		s.cpus[r.CPU] = ios
	}
	s.last = t
	if r.Action&0xffff0000 == 0 {
		return
	}
	w := 0
	if r.Categories()&TCWrite != 0 {
		w = 1
	}
	act := r.Action & 0xffff
	switch {
	case r.Action == ActionMessage:
	case r.Categories()&TCPC != 0:
		s.accountPC(ios, r, act, w)
	default:
		s.accountFS(ios, r, act, w)
	}
	if s.events == 0 {
		s.first = t
	}
	s.events++
}

func (s *summary) issue(w int) {
	s.curDepth[w]++
	s.maxDepth[w] = max(s.maxDepth[w], s.curDepth[w])
}

func (s *summary) done(w int) {
	if s.curDepth[w] > 0 {
		s.curDepth[w]--
	}
}

func (s *summary) accountFS(ios *ioStats, r *Record, act uint32, w int) {
	switch act {
	case TAQueue:
		if w == 1 {
			ios.qwrites++
			addSize(&ios.qwriteKB, &ios.qwriteB, r.Bytes)
		} else {
			ios.qreads++
			addSize(&ios.qreadKB, &ios.qreadB, r.Bytes)
		}
	case TABackMerge, TAFrontMerge:
		if w == 1 {
			ios.mwrites++
			addSize(&ios.mwriteKB, &ios.mwriteB, r.Bytes)
		} else {
			ios.mreads++
			addSize(&ios.mreadKB, &ios.mreadB, r.Bytes)
		}
	case TARequeue:
		s.done(w)
		if w == 1 {
			ios.wrqueue++
			subSize(&ios.iwriteKB, &ios.iwriteB, r.Bytes)
		} else {
			ios.rrqueue++
			subSize(&ios.ireadKB, &ios.ireadB, r.Bytes)
		}
	case TAIssue:
		if w == 1 {
			ios.iwrites++
			addSize(&ios.iwriteKB, &ios.iwriteB, r.Bytes)
		} else {
			ios.ireads++
			addSize(&ios.ireadKB, &ios.ireadB, r.Bytes)
		}
		s.issue(w)
	case TAComplete:
		s.done(w)
		if w == 1 {
			ios.cwrites++
			addSize(&ios.cwriteKB, &ios.cwriteB, r.Bytes)
		} else {
			ios.creads++
			addSize(&ios.creadKB, &ios.creadB, r.Bytes)
		}
	case TAUnplugIO:
		ios.ioUnplugs++
	case TAUnplugTimer:
		ios.timerUnplugs++
	case TADrvData:
		s.drvData = true
	}
}

// accountPC mirrors blkparse 1.2.0's pass-through counters, including its
// habit of counting queued pass-through reads into the file-system read
// KiB.
func (s *summary) accountPC(ios *ioStats, r *Record, act uint32, w int) {
	switch act {
	case TAQueue:
		if w == 1 {
			ios.qwritesPC++
			addSize(&ios.qwriteKBPC, &ios.qwriteBPC, r.Bytes)
		} else {
			ios.qreadsPC++
			ios.qreadKB += uint64(r.Bytes >> 10)
			ios.qreadBPC += uint64(r.Bytes & 1023)
		}
	case TARequeue:
		s.done(w)
		if w == 1 {
			ios.wrqueuePC++
			subSize(&ios.iwriteKBPC, &ios.iwriteBPC, r.Bytes)
		} else {
			ios.rrqueuePC++
			subSize(&ios.ireadKBPC, &ios.ireadBPC, r.Bytes)
		}
	case TAIssue:
		if w == 1 {
			ios.iwritesPC++
			addSize(&ios.iwriteKBPC, &ios.iwriteBPC, r.Bytes)
		} else {
			ios.ireadsPC++
			addSize(&ios.ireadKBPC, &ios.ireadBPC, r.Bytes)
		}
		s.issue(w)
	case TAComplete:
		s.done(w)
		if w == 1 {
			ios.cwritesPC++
		} else {
			ios.creadsPC++
		}
	}
}

// PrintSummary writes the statistics blkparse prints after the records of
// a device: a section per CPU that has records (and a total when there are
// several), then throughput, the number of events and the sequence skips.
// name is the device's name as blkparse shows it: the -i argument without
// its directory and ".blktrace.CPU" suffix ("" prints major,minor, as
// blkparse does for standard input). Counts are printed without thousands
// separators, as blkparse does where its en_US locale is not installed
// (Debian's default); skips are always 0 (the Writer never skips a
// sequence number, and gaps in other traces are not counted). A trace
// with driver data ends with blkparse's note that it was left out.
func PrintSummary(w io.Writer, recs []Record, name string) error {
	order, genesis := parseOrder(recs)
	s := summary{cpus: map[uint32]*ioStats{}}
	for _, i := range order {
		s.account(&recs[i], recs[i].Time-genesis)
	}
	if name == "" {
		dev := DefaultDev
		if len(order) > 0 {
			dev = recs[order[0]].Device
		}
		name = dev.String()
	}
	bw := bufio.NewWriter(w)
	var total ioStats
	sections := 0
	for _, c := range slices.Sorted(maps.Keys(s.cpus)) {
		total.addAll(s.cpus[c])
		dumpIOStats(bw, s.cpus[c], fmt.Sprintf("CPU%d (%s):", c, name), &s.maxDepth)
		sections++
	}
	if sections > 1 {
		fmt.Fprintf(bw, "\n")
		dumpIOStats(bw, &total, fmt.Sprintf("Total (%s):", name), nil)
	}
	var rrate, wrate uint64
	if msec := (s.last - s.first) / 1e6; msec != 0 {
		rrate = (1000*total.creadKB + total.creadB) / msec
		wrate = (1000*total.cwriteKB + total.cwriteB) / msec
	}
	fmt.Fprintf(bw, "\nThroughput (R/W): %dKiB/s / %dKiB/s\n", rrate, wrate)
	fmt.Fprintf(bw, "Events (%s): %d entries\n", name, s.events)
	fmt.Fprintf(bw, "Skips: %d forward (%d - %5.1f%%)\n", 0, 0, 0.0)
	if s.drvData {
		fmt.Fprintf(bw, "\ndiscarded traces containing low-level device driver specific data (only available in binary output)\n")
	}
	return bw.Flush()
}

func (t *ioStats) addAll(o *ioStats) {
	t.qreads += o.qreads
	t.qwrites += o.qwrites
	t.creads += o.creads
	t.cwrites += o.cwrites
	t.mreads += o.mreads
	t.mwrites += o.mwrites
	t.ireads += o.ireads
	t.iwrites += o.iwrites
	t.rrqueue += o.rrqueue
	t.wrqueue += o.wrqueue
	t.qreadKB += o.qreadKB
	t.qwriteKB += o.qwriteKB
	t.creadKB += o.creadKB
	t.cwriteKB += o.cwriteKB
	t.ireadKB += o.ireadKB
	t.iwriteKB += o.iwriteKB
	t.mreadKB += o.mreadKB
	t.mwriteKB += o.mwriteKB
	t.qreadB += o.qreadB
	t.qwriteB += o.qwriteB
	t.creadB += o.creadB
	t.cwriteB += o.cwriteB
	t.ireadB += o.ireadB
	t.iwriteB += o.iwriteB
	t.mreadB += o.mreadB
	t.mwriteB += o.mwriteB
	t.qreadsPC += o.qreadsPC
	t.qwritesPC += o.qwritesPC
	t.creadsPC += o.creadsPC
	t.cwritesPC += o.cwritesPC
	t.ireadsPC += o.ireadsPC
	t.iwritesPC += o.iwritesPC
	t.rrqueuePC += o.rrqueuePC
	t.wrqueuePC += o.wrqueuePC
	t.qreadKBPC += o.qreadKBPC
	t.qwriteKBPC += o.qwriteKBPC
	t.ireadKBPC += o.ireadKBPC
	t.iwriteKBPC += o.iwriteKBPC
	t.qreadBPC += o.qreadBPC
	t.qwriteBPC += o.qwriteBPC
	t.ireadBPC += o.ireadBPC
	t.iwriteBPC += o.iwriteBPC
	t.timerUnplugs += o.timerUnplugs
	t.ioUnplugs += o.ioUnplugs
}

// sizeCnv formats a count as blkparse's size_cnv does: eight columns,
// divided by 1000 with a K, M, G or P suffix while above a million (kb:
// the count is already in KiB, so the first suffix is K).
func sizeCnv(n uint64, kb bool) string {
	suff := []string{"", "K", "M", "G", "P"}
	i := 0
	if kb {
		i = 1
	}
	for n > 1000*1000 && i < len(suff)-1 {
		i++
		n /= 1000
	}
	return fmt.Sprintf("%8d%s", n, suff[i])
}

func dumpIOStats(w io.Writer, s *ioStats, title string, depth *[2]uint64) {
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, " Reads Queued:    %s, %siB\t", sizeCnv(s.qreads, false), sizeCnv(s.qreadKB+s.qreadB>>10, true))
	fmt.Fprintf(w, " Writes Queued:    %s, %siB\n", sizeCnv(s.qwrites, false), sizeCnv(s.qwriteKB+s.qwriteB>>10, true))
	fmt.Fprintf(w, " Read Dispatches: %s, %siB\t", sizeCnv(s.ireads, false), sizeCnv(s.ireadKB+s.ireadB>>10, true))
	fmt.Fprintf(w, " Write Dispatches: %s, %siB\n", sizeCnv(s.iwrites, false), sizeCnv(s.iwriteKB+s.iwriteB>>10, true))
	fmt.Fprintf(w, " Reads Requeued:  %s\t\t", sizeCnv(s.rrqueue, false))
	fmt.Fprintf(w, " Writes Requeued:  %s\n", sizeCnv(s.wrqueue, false))
	fmt.Fprintf(w, " Reads Completed: %s, %siB\t", sizeCnv(s.creads, false), sizeCnv(s.creadKB+s.creadB>>10, true))
	fmt.Fprintf(w, " Writes Completed: %s, %siB\n", sizeCnv(s.cwrites, false), sizeCnv(s.cwriteKB+s.cwriteB>>10, true))
	fmt.Fprintf(w, " Read Merges:     %s, %siB\t", sizeCnv(s.mreads, false), sizeCnv(s.mreadKB+s.mreadB>>10, true))
	fmt.Fprintf(w, " Write Merges:     %s, %siB\n", sizeCnv(s.mwrites, false), sizeCnv(s.mwriteKB+s.mwriteB>>10, true))
	if depth != nil {
		fmt.Fprintf(w, " Read depth:      %8d%8c\t", depth[0], ' ')
		fmt.Fprintf(w, " Write depth:      %8d\n", depth[1])
	}
	if s.qreadsPC != 0 || s.qwritesPC != 0 || s.ireadsPC != 0 || s.iwritesPC != 0 ||
		s.rrqueuePC != 0 || s.wrqueuePC != 0 || s.creadsPC != 0 || s.cwritesPC != 0 {
		fmt.Fprintf(w, " PC Reads Queued: %s, %siB\t", sizeCnv(s.qreadsPC, false), sizeCnv(s.qreadKBPC+s.qreadBPC>>10, true))
		fmt.Fprintf(w, " PC Writes Queued: %s, %siB\n", sizeCnv(s.qwritesPC, false), sizeCnv(s.qwriteKBPC+s.qwriteBPC>>10, true))
		fmt.Fprintf(w, " PC Read Disp.:   %s, %siB\t", sizeCnv(s.ireadsPC, false), sizeCnv(s.ireadKBPC+s.ireadBPC>>10, true))
		fmt.Fprintf(w, " PC Write Disp.:   %s, %siB\n", sizeCnv(s.iwritesPC, false), sizeCnv(s.iwriteKBPC+s.iwriteBPC>>10, true))
		fmt.Fprintf(w, " PC Reads Req.:   %s\t\t", sizeCnv(s.rrqueuePC, false))
		fmt.Fprintf(w, " PC Writes Req.:   %s\n", sizeCnv(s.wrqueuePC, false))
		fmt.Fprintf(w, " PC Reads Compl.: %s\t\t", sizeCnv(s.creadsPC, false))
		fmt.Fprintf(w, " PC Writes Compl.: %s\n", sizeCnv(s.cwritesPC, false))
	}
	fmt.Fprintf(w, " IO unplugs:      %8d%8c\t", s.ioUnplugs, ' ')
	fmt.Fprintf(w, " Timer unplugs:    %8d\n", s.timerUnplugs)
}
