package trace

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
)

// sized is a count of records and their size, kept as blkparse keeps
// it: whole KiB plus the remainders in bytes.
type sized struct{ n, kb, b uint64 }

// add counts one record of bytes.
func (c *sized) add(bytes uint32) {
	c.n++
	c.kb += uint64(bytes >> 10)
	c.b += uint64(bytes & 1023)
}

// sub takes a record's bytes out of the size (a requeue), wrapping as
// blkparse's unsigned counters do; the count stays.
func (c *sized) sub(bytes uint32) {
	c.kb -= uint64(bytes >> 10)
	c.b -= uint64(bytes & 1023)
}

func (c *sized) addAll(o sized) { c.n += o.n; c.kb += o.kb; c.b += o.b }

// KiB returns the size in whole KiB, as blkparse prints it.
func (c sized) KiB() uint64 { return c.kb + c.b>>10 }

// classStats are blkparse's counters of one class of requests (file
// system or pass-through), by direction (0 read, 1 write).
type classStats struct {
	queued, merged, issued, completed [2]sized
	requeued                          [2]uint64
}

func (c *classStats) addAll(o *classStats) {
	for w := range 2 {
		c.queued[w].addAll(o.queued[w])
		c.merged[w].addAll(o.merged[w])
		c.issued[w].addAll(o.issued[w])
		c.completed[w].addAll(o.completed[w])
		c.requeued[w] += o.requeued[w]
	}
}

// ioStats are blkparse's per-CPU counters.
type ioStats struct {
	fs, pc                  classStats
	ioUnplugs, timerUnplugs uint64
}

func (t *ioStats) addAll(o *ioStats) {
	t.fs.addAll(&o.fs)
	t.pc.addAll(&o.pc)
	t.ioUnplugs += o.ioUnplugs
	t.timerUnplugs += o.timerUnplugs
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
	default:
		s.accountRecord(ios, r, act, w, r.Categories()&TCPC != 0)
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

// accountRecord counts a file-system record (pc false) or a
// pass-through one into ios. blkparse 1.2.0 treats the two alike except:
// pass-through requests do not merge, their completions count no size,
// and a queued pass-through read's whole KiB go into the file-system read
// KiB (its remainder stays with pass-through), a quirk kept here.
func (s *summary) accountRecord(ios *ioStats, r *Record, act uint32, w int, pc bool) {
	c := &ios.fs
	if pc {
		c = &ios.pc
	}
	switch act {
	case TAQueue:
		c.queued[w].add(r.Bytes)
		if pc && w == 0 {
			c.queued[0].kb -= uint64(r.Bytes >> 10)
			ios.fs.queued[0].kb += uint64(r.Bytes >> 10)
		}
	case TABackMerge, TAFrontMerge:
		if !pc {
			c.merged[w].add(r.Bytes)
		}
	case TARequeue:
		s.done(w)
		c.requeued[w]++
		c.issued[w].sub(r.Bytes)
	case TAIssue:
		c.issued[w].add(r.Bytes)
		s.issue(w)
	case TAComplete:
		s.done(w)
		if pc {
			c.completed[w].n++
		} else {
			c.completed[w].add(r.Bytes)
		}
	case TAUnplugIO:
		if !pc {
			ios.ioUnplugs++
		}
	case TAUnplugTimer:
		if !pc {
			ios.timerUnplugs++
		}
	case TADrvData:
		if !pc {
			s.drvData = true
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
		rrate = (1000*total.fs.completed[0].kb + total.fs.completed[0].b) / msec
		wrate = (1000*total.fs.completed[1].kb + total.fs.completed[1].b) / msec
	}
	fmt.Fprintf(bw, "\nThroughput (R/W): %dKiB/s / %dKiB/s\n", rrate, wrate)
	fmt.Fprintf(bw, "Events (%s): %d entries\n", name, s.events)
	fmt.Fprintf(bw, "Skips: %d forward (%d - %5.1f%%)\n", 0, 0, 0.0)
	if s.drvData {
		fmt.Fprintf(bw, "\ndiscarded traces containing low-level device driver specific data (only available in binary output)\n")
	}
	return bw.Flush()
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
	fs, pc := &s.fs, &s.pc
	n := func(c sized) string { return sizeCnv(c.n, false) }
	kib := func(c sized) string { return sizeCnv(c.KiB(), true) }
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, " Reads Queued:    %s, %siB\t", n(fs.queued[0]), kib(fs.queued[0]))
	fmt.Fprintf(w, " Writes Queued:    %s, %siB\n", n(fs.queued[1]), kib(fs.queued[1]))
	fmt.Fprintf(w, " Read Dispatches: %s, %siB\t", n(fs.issued[0]), kib(fs.issued[0]))
	fmt.Fprintf(w, " Write Dispatches: %s, %siB\n", n(fs.issued[1]), kib(fs.issued[1]))
	fmt.Fprintf(w, " Reads Requeued:  %s\t\t", sizeCnv(fs.requeued[0], false))
	fmt.Fprintf(w, " Writes Requeued:  %s\n", sizeCnv(fs.requeued[1], false))
	fmt.Fprintf(w, " Reads Completed: %s, %siB\t", n(fs.completed[0]), kib(fs.completed[0]))
	fmt.Fprintf(w, " Writes Completed: %s, %siB\n", n(fs.completed[1]), kib(fs.completed[1]))
	fmt.Fprintf(w, " Read Merges:     %s, %siB\t", n(fs.merged[0]), kib(fs.merged[0]))
	fmt.Fprintf(w, " Write Merges:     %s, %siB\n", n(fs.merged[1]), kib(fs.merged[1]))
	if depth != nil {
		fmt.Fprintf(w, " Read depth:      %8d%8c\t", depth[0], ' ')
		fmt.Fprintf(w, " Write depth:      %8d\n", depth[1])
	}
	if pc.queued[0].n != 0 || pc.queued[1].n != 0 || pc.issued[0].n != 0 || pc.issued[1].n != 0 ||
		pc.requeued[0] != 0 || pc.requeued[1] != 0 || pc.completed[0].n != 0 || pc.completed[1].n != 0 {
		fmt.Fprintf(w, " PC Reads Queued: %s, %siB\t", n(pc.queued[0]), kib(pc.queued[0]))
		fmt.Fprintf(w, " PC Writes Queued: %s, %siB\n", n(pc.queued[1]), kib(pc.queued[1]))
		fmt.Fprintf(w, " PC Read Disp.:   %s, %siB\t", n(pc.issued[0]), kib(pc.issued[0]))
		fmt.Fprintf(w, " PC Write Disp.:   %s, %siB\n", n(pc.issued[1]), kib(pc.issued[1]))
		fmt.Fprintf(w, " PC Reads Req.:   %s\t\t", sizeCnv(pc.requeued[0], false))
		fmt.Fprintf(w, " PC Writes Req.:   %s\n", sizeCnv(pc.requeued[1], false))
		fmt.Fprintf(w, " PC Reads Compl.: %s\t\t", n(pc.completed[0]))
		fmt.Fprintf(w, " PC Writes Compl.: %s\n", n(pc.completed[1]))
	}
	fmt.Fprintf(w, " IO unplugs:      %8d%8c\t", s.ioUnplugs, ' ')
	fmt.Fprintf(w, " Timer unplugs:    %8d\n", s.timerUnplugs)
}
