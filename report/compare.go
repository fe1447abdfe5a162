package report

import (
	"fmt"
	"time"
)

// CompareColumns are the columns of a comparison table (blkq replay
// --compare): one row per setting, each row made by CompareRow.Cells.
var CompareColumns = []string{"setting", "IOPS", "MB/s", "avg lat ms", "p99 lat ms", "max lat ms", "merges", "requests", "avg req KiB", "util %"}

// CompareRow is one setting's figures in a comparison of runs of the same
// input under different settings.
type CompareRow struct {
	// Setting names the setting ("sched=linus").
	Setting string
	// IOPS and MBps are completed I/Os and bytes (10^6) per second of the
	// run's elapsed time, all directions together.
	IOPS, MBps float64
	// AvgLatMs, P99LatMs and MaxLatMs are the completion latency over all
	// directions, ms.
	AvgLatMs, P99LatMs, MaxLatMs float64
	// Merges are bios merged into requests (back and front); Requests the
	// requests issued to the device.
	Merges, Requests uint64
	// AvgRequestKiB is the mean size of an issued request, KiB.
	AvgRequestKiB float64
	// Util is the first disk's utilisation, percent (0 without a disk).
	Util float64
}

// NewCompareRow summarises job js of a run that took elapsed, with disks
// its disk counters.
func NewCompareRow(setting string, js *JobStats, disks []DiskStats, elapsed time.Duration) CompareRow {
	lat := NewLatency()
	lat.Merge(js.Read.Lat)
	lat.Merge(js.Write.Lat)
	lat.Merge(js.Trim.Lat)
	secs := max(elapsed.Seconds(), 1e-9)
	ios := js.Read.IOs + js.Write.IOs + js.Trim.IOs
	bytes := float64(js.Read.Bytes + js.Write.Bytes + js.Trim.Bytes)
	row := CompareRow{Setting: setting, IOPS: float64(ios) / secs, MBps: bytes / secs / 1e6,
		AvgLatMs: lat.Mean() / 1e6, P99LatMs: float64(lat.Percentile(99)) / 1e6, MaxLatMs: float64(lat.Max()) / 1e6}
	if b := js.Blkq; b != nil {
		row.Merges, row.Requests, row.AvgRequestKiB = b.BackMerges+b.FrontMerges, b.RequestsIssued, b.AvgRequestBytes()/1024
	}
	if len(disks) > 0 {
		row.Util = disks[0].Util
	}
	return row
}

// Cells formats the row for CompareColumns.
func (r CompareRow) Cells() []string {
	return []string{r.Setting, fmt.Sprintf("%.1f", r.IOPS), fmt.Sprintf("%.2f", r.MBps),
		fmt.Sprintf("%.2f", r.AvgLatMs), fmt.Sprintf("%.2f", r.P99LatMs), fmt.Sprintf("%.2f", r.MaxLatMs),
		fmt.Sprint(r.Merges), fmt.Sprint(r.Requests), fmt.Sprintf("%.1f", r.AvgRequestKiB), fmt.Sprintf("%.1f", r.Util)}
}
