package report

import (
	"math"
	"testing"
)

func TestJainIndex(t *testing.T) {
	cases := []struct {
		name string
		x    []float64
		want float64
	}{
		{"none", nil, 1},
		{"one", []float64{123}, 1},
		{"equal", []float64{5e6, 5e6, 5e6, 5e6}, 1},
		{"one of two gets all", []float64{1e6, 0}, 0.5},
		{"one of four gets all", []float64{0, 0, 7e6, 0}, 0.25},
		{"one of ten gets all", []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 0.1},
		{"all zero", []float64{0, 0, 0}, 1},
		{"1 and 3", []float64{1, 3}, 16.0 / 20},
		{"NaN counts as 0", []float64{math.NaN(), 2}, 0.5},
	}
	for _, c := range cases {
		if got := JainIndex(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: JainIndex = %v, want %v", c.name, got, c.want)
		}
	}
}

// job returns a job that read bytes in runtimeMs.
func job(name string, group int, bytes uint64, runtimeMs int64) *JobStats {
	j := &JobStats{Name: name, GroupID: group, RW: "read", Engine: "psync", IODepth: 1, BS: bs(4096)}
	j.Read.IOs = bytes / 4096
	j.Read.Bytes = bytes
	j.Read.Runtime = runtimeMs * 1e6
	j.Read.Clat = &Latency{}
	for i := uint64(0); i < j.Read.IOs; i++ {
		j.Read.Clat.Record(int64(1000 + i))
	}
	j.IODepthHist[0] = j.Read.IOs
	return j
}

func TestGroups(t *testing.T) {
	r := &Run{Jobs: []*JobStats{
		job("a", 0, 4096*1000, 1000),
		job("b", 0, 4096*3000, 2000),
		job("c", 1, 4096*10, 10),
	}}
	gs := Groups(r)
	if len(gs) != 2 || gs[0].GroupID != 0 || gs[1].GroupID != 1 {
		t.Fatalf("groups: %+v", gs)
	}
	g := gs[0].Dirs[DirRead]
	if g.IOBytes != 4096*4000 || g.MinRun != 1000 || g.MaxRun != 2000 {
		t.Errorf("group 0 read: %+v", g)
	}
	if g.MinBW != 4096*1000 || g.MaxBW != 4096*1500 || g.AggBW != 4096*4000*1000/2000 {
		t.Errorf("group 0 bw: %+v", g)
	}
	if gs[0].Jobs != 2 || len(gs[0].JobBW) != 2 || gs[0].JobBW[0] != 4096*1000 || gs[0].JobBW[1] != 4096*1500 {
		t.Errorf("group 0 jobs: %+v", gs[0])
	}
	want := JainIndex([]float64{4096 * 1000, 4096 * 1500})
	if gs[0].JainIndex != want || gs[1].JainIndex != 1 {
		t.Errorf("jain: %v %v", gs[0].JainIndex, gs[1].JainIndex)
	}
	if gs[0].Dirs[DirWrite].MaxRun != 0 {
		t.Errorf("write direction should be empty")
	}

	// Under group_reporting the group is one reported job: min = max, as
	// fio prints it; the per-job throughputs are still there for Jain.
	r.GroupReporting = map[int]bool{0: true}
	gs = Groups(r)
	g = gs[0].Dirs[DirRead]
	if g.MinBW != g.MaxBW || g.MinBW != g.AggBW || g.MinRun != 2000 || g.MaxRun != 2000 {
		t.Errorf("group_reporting read: %+v", g)
	}
	if gs[0].JainIndex != want || !gs[0].GroupReporting {
		t.Errorf("group_reporting jain %v", gs[0].JainIndex)
	}
}

func TestGroupsOrderAndEmpty(t *testing.T) {
	if gs := Groups(&Run{}); len(gs) != 0 {
		t.Errorf("empty run has groups: %+v", gs)
	}
	r := &Run{Jobs: []*JobStats{job("x", 2, 4096, 1), nil, job("y", 0, 4096, 1)}}
	gs := Groups(r)
	if len(gs) != 2 || gs[0].GroupID != 0 || gs[1].GroupID != 2 {
		t.Errorf("groups not sorted: %+v", gs)
	}
	// A job without I/O or runtime: no division by zero, throughput 0.
	z := &JobStats{Name: "z"}
	gs = Groups(&Run{Jobs: []*JobStats{z, job("w", 0, 4096, 1)}})
	if gs[0].JobBW[0] != 0 || math.IsNaN(gs[0].JainIndex) || gs[0].JainIndex != 0.5 {
		t.Errorf("zero job: %+v", gs[0])
	}
}

func TestCombine(t *testing.T) {
	a, b := job("a", 0, 4096*100, 1000), job("a", 0, 4096*300, 1500)
	a.PID, b.PID = 10, 11
	a.Runtime, b.Runtime = 1000e6, 1500e6
	a.Read.BW.Add(400)
	b.Read.BW.Add(1200)
	a.Blkq = &BlkqJobStats{Sleeps: 1, WaitMax: 5, WaitP99: 4, BackMerges: 2, RequestsIssued: 10, RequestBytes: 40960}
	b.Blkq = &BlkqJobStats{Sleeps: 2, WaitMax: 3, WaitP99: 3, FrontMerges: 1, RequestsIssued: 30, RequestBytes: 3 * 40960}
	b.Error, b.ErrorText = 5, "io error"
	b.SyncOps = &SyncStats{IOs: 2, Lat: &Latency{}}
	b.SyncOps.Lat.Record(100)
	aClat := a.Read.Clat.Count()
	c := combine([]*JobStats{a, b})
	if c.Name != "a" || c.PID != 10 || c.Read.IOs != 400 || c.Read.Bytes != 4096*400 || c.Read.Runtime != 1500e6 {
		t.Errorf("combined: %+v", c.Read)
	}
	if c.Read.Clat.Count() != 400 || a.Read.Clat.Count() != aClat {
		t.Errorf("clat merge: %d (input now %d)", c.Read.Clat.Count(), a.Read.Clat.Count())
	}
	if c.Read.BW.Mean() != 1600 || c.Read.BW.N() != 2 {
		t.Errorf("bw samples: %+v", c.Read.BW)
	}
	if c.Runtime != 2500e6 || c.Error != 5 || c.ErrorText != "io error" || c.IODepthHist[0] != 400 {
		t.Errorf("combined job: runtime %d error %d depth %v", c.Runtime, c.Error, c.IODepthHist)
	}
	if c.SyncOps == nil || c.SyncOps.IOs != 2 || c.SyncOps.Lat.Count() != 1 {
		t.Errorf("sync ops: %+v", c.SyncOps)
	}
	bq := c.Blkq
	if bq.Sleeps != 3 || bq.WaitMax != 5 || bq.WaitP99 != 4 || bq.BackMerges != 2 || bq.FrontMerges != 1 || bq.AvgRequestBytes() != 4096 {
		t.Errorf("blkq: %+v", bq)
	}
}

func TestCombineWaitLatencies(t *testing.T) {
	a, b := job("a", 0, 4096, 1), job("a", 0, 4096, 1)
	a.Blkq = &BlkqJobStats{WaitLat: &Latency{}}
	b.Blkq = &BlkqJobStats{WaitLat: &Latency{}}
	for i := int64(1); i <= 100; i++ {
		a.Blkq.WaitLat.Record(i * 1000)
		b.Blkq.WaitLat.Record(i * 10)
	}
	c := combine([]*JobStats{a, b}).Blkq.effective()
	if c.Waits != 200 || c.WaitMax != 100000 || c.WaitTotal != 5050*1000+5050*10 {
		t.Errorf("waits: %+v", c)
	}
	if c.WaitP99 < 98000 || c.WaitP99 > 99100 {
		t.Errorf("p99 = %d", c.WaitP99)
	}
}

func TestMsOf(t *testing.T) {
	for ns, want := range map[int64]uint64{0: 0, -1: 0, 1: 1, 999999: 1, 1e6: 1, 42e6: 42, 42999999: 42, 2001e6: 2001} {
		if got := msOf(ns); got != want {
			t.Errorf("msOf(%d) = %d, want %d", ns, got, want)
		}
	}
}

// TestGroupReportingCPUWeightedByRuntime: under group_reporting the CPU
// percentages are the jobs' CPU time over their summed runtime, as fio sums
// usr_time and total_run_time: 10% of 1 s and 50% of 3 s make 40%, not the
// 30% of a plain mean.
func TestGroupReportingCPUWeightedByRuntime(t *testing.T) {
	a, b := job("a", 0, 4096, 1000), job("b", 0, 4096, 3000)
	a.Runtime, b.Runtime = 1e9, 3e9
	a.UsrCPU, b.UsrCPU = 10, 50
	a.SysCPU, b.SysCPU = 20, 0
	a.CPUMeasured, b.CPUMeasured = true, true
	c := combine([]*JobStats{a, b})
	if math.Abs(c.UsrCPU-40) > 1e-9 || math.Abs(c.SysCPU-5) > 1e-9 {
		t.Errorf("usr=%v sys=%v, want 40 and 5", c.UsrCPU, c.SysCPU)
	}
	if !c.CPUMeasured {
		t.Error("two measured jobs combine into one not measured")
	}
	b.CPUMeasured = false
	if combine([]*JobStats{a, b}).CPUMeasured {
		t.Error("a job not measured makes the group measured")
	}
}
