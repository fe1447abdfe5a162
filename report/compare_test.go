package report

import (
	"testing"
	"time"
)

// TestCompareRowFromAJob: the row's rates are over the elapsed time, all
// directions together; latency merges the directions; the cells are in
// CompareColumns' order.
func TestCompareRowFromAJob(t *testing.T) {
	js := &JobStats{}
	js.Read.Lat, js.Write.Lat = NewLatency(), NewLatency()
	js.Read.IOs, js.Read.Bytes = 300, 300*4096
	js.Write.IOs, js.Write.Bytes = 100, 100*8192
	for range 300 {
		js.Read.Lat.Record(1e6) // 1 ms
	}
	for range 100 {
		js.Write.Lat.Record(5e6) // 5 ms
	}
	js.Blkq = &BlkqJobStats{}
	js.Blkq.BackMerges, js.Blkq.FrontMerges, js.Blkq.RequestsIssued, js.Blkq.RequestBytes = 30, 10, 360, 360*4096
	r := NewCompareRow("sched=none", js, []DiskStats{{Util: 87.5}}, 2*time.Second)
	if r.IOPS != 200 || r.MBps != float64(300*4096+100*8192)/2/1e6 {
		t.Errorf("IOPS %v MB/s %v; want 200 and %v", r.IOPS, r.MBps, float64(300*4096+100*8192)/2/1e6)
	}
	if r.Merges != 40 || r.Requests != 360 || r.AvgRequestKiB != 4 || r.Util != 87.5 {
		t.Errorf("merges %d requests %d avg KiB %v util %v", r.Merges, r.Requests, r.AvgRequestKiB, r.Util)
	}
	if r.AvgLatMs < 1.9 || r.AvgLatMs > 2.1 || r.MaxLatMs < 4.9 || r.MaxLatMs > 5.1 {
		t.Errorf("avg lat %v ms, max %v ms; want about 2 and 5 (both directions)", r.AvgLatMs, r.MaxLatMs)
	}
	c := r.Cells()
	if len(c) != len(CompareColumns) || c[0] != "sched=none" || c[1] != "200.0" || c[6] != "40" || c[9] != "87.5" {
		t.Errorf("cells %q", c)
	}
	if z := NewCompareRow("x", &JobStats{}, nil, 0); z.IOPS != 0 || z.Util != 0 {
		t.Errorf("an empty job: %+v", z)
	}
}
