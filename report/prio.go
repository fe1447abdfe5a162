package report

import (
	"bufio"
	"fmt"
)

// The per-priority latencies of a direction, as fio 3.33 reports them
// when at least two priorities have samples: "clat prio C/L" lines after
// the latency lines, a percentile block per priority (with its share of
// the I/Os), and JSON "prios" entries.

// prioName is fio's "C/L" of an ioprio value.
func prioName(p uint16) string { return fmt.Sprintf("%d/%d", p>>13, p&7) }

// prioShown returns the direction's priorities with samples, or nil if
// fewer than two have any.
func prioShown(ds *DirStats) []PrioLat {
	var out []PrioLat
	for _, p := range ds.Prios {
		if p.Lat.Count() > 0 {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// prioType is what the per-priority figures measure: "lat" with
// lat_percentiles, else "clat" (fio's clat_type).
func prioType(po PercentileOptions) string {
	if po.Lat {
		return "lat"
	}
	return "clat"
}

// writePrioLatLines writes the "    clat prio 3/0 (usec): min=..." lines.
func writePrioLatLines(w *bufio.Writer, ds *DirStats, po PercentileOptions) {
	for _, p := range prioShown(ds) {
		w.WriteString(latLine(prioType(po)+" prio "+prioName(p.Prio), p.Lat))
	}
}

// writePrioPercentiles writes a percentile block per priority, named with
// its share of the direction's I/Os.
func writePrioPercentiles(w *bufio.Writer, ds *DirStats, po PercentileOptions) {
	if !po.Clat && !po.Lat {
		return
	}
	total := ds.Clat.Count()
	if po.Lat {
		total = ds.Lat.Count()
	}
	for _, p := range prioShown(ds) {
		name := fmt.Sprintf("%s prio %s (%.2f%% of IOs)", prioType(po), prioName(p.Prio), 100*float64(p.Lat.Count())/float64(max(total, 1)))
		w.WriteString(percentileBlock(name, p.Lat, po))
	}
}

// priosJSON is fio's "prios" array, nil when not shown.
func priosJSON(ds *DirStats, po PercentileOptions, plus bool) jarr {
	var a jarr
	for _, p := range prioShown(ds) {
		o := &jobj{}
		o.add("prioclass", int(p.Prio>>13))
		o.add("prio", int(p.Prio&7))
		o.add(prioType(po)+"_ns", latJSON(p.Lat, po.Clat || po.Lat, po, plus))
		a = append(a, o)
	}
	return a
}

// mergePrios adds src's per-priority latencies into dst's (group_reporting).
func mergePrios(dst *DirStats, src *DirStats) {
	for _, p := range src.Prios {
		found := false
		for i := range dst.Prios {
			if dst.Prios[i].Prio == p.Prio {
				dst.Prios[i].Lat.Merge(p.Lat)
				found = true
				break
			}
		}
		if !found {
			l := &Latency{}
			l.Merge(p.Lat)
			dst.Prios = append(dst.Prios, PrioLat{Prio: p.Prio, Lat: l})
		}
	}
}
