package engine

import (
	"path/filepath"
	"testing"
)

// TestFileRunMeasuresCPU: on a real file the cpu figures are getrusage's:
// marked measured, with CPU time, and the jobs' shares (CPU time and
// context switches) add up to no more than the process used over the
// whole run, as measured around it. A job's context switches may be 0: on
// tmpfs (t.TempDir) an O_DIRECT pread need not sleep.
func TestFileRunMeasuresCPU(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	before, ok := rusage()
	if !ok {
		t.Fatal("getrusage failed")
	}
	res := run(t, `[global]
ioengine=psync
direct=1
bs=4k
size=2m
[rd]
rw=randread
[wr]
rw=randwrite
offset=2m
`, Options{Device: "file:" + path})
	after, _ := rusage()
	var usrNs, sysNs, ctx float64
	for _, js := range res.Run.Jobs {
		if !js.CPUMeasured {
			t.Fatalf("job %s: cpu not marked measured on a file", js.Name)
		}
		if js.UsrCPU+js.SysCPU <= 0 {
			t.Errorf("job %s: usr=%.2f%% sys=%.2f%%: no CPU time measured", js.Name, js.UsrCPU, js.SysCPU)
		}
		usrNs += js.UsrCPU / 100 * float64(js.Runtime)
		sysNs += js.SysCPU / 100 * float64(js.Runtime)
		ctx += float64(js.Ctx)
	}
	if usrNs > after.usr-before.usr+1 || sysNs > after.sys-before.sys+1 || ctx > after.ctx-before.ctx+float64(len(res.Run.Jobs)) {
		t.Errorf("jobs' shares usr=%.0fns sys=%.0fns ctx=%.0f exceed the process's %.0fns, %.0fns, %.0f over the run",
			usrNs, sysNs, ctx, after.usr-before.usr, after.sys-before.sys, after.ctx-before.ctx)
	}
}

// TestSimulatedRunCPUNotMeasured: a simulated run measures no CPU and says
// so: the figures are zero and not marked measured.
func TestSimulatedRunCPUNotMeasured(t *testing.T) {
	res := run(t, "[rd]\nrw=randread\nsize=1m\n", Options{})
	js := res.Run.Jobs[0]
	if js.CPUMeasured || js.UsrCPU != 0 || js.SysCPU != 0 || js.Ctx != 0 || js.MinFlt != 0 {
		t.Errorf("measured=%v usr=%v sys=%v ctx=%d minf=%d, want nothing measured", js.CPUMeasured, js.UsrCPU, js.SysCPU, js.Ctx, js.MinFlt)
	}
}

// TestFileReplayMeasuresCPU: a replay onto a real file measures its cpu
// figures too; onto the simulated disk it does not.
func TestFileReplayMeasuresCPU(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	res, err := Replay("synthetic", synthetic(400), Options{Device: "file:" + path, SizeCap: 8 << 20}, ReplayOptions{Timing: "afap"})
	if err != nil {
		t.Fatal(err)
	}
	if js := res.Run.Jobs[0]; !js.CPUMeasured || js.UsrCPU+js.SysCPU <= 0 {
		t.Errorf("file replay: measured=%v usr=%.2f%% sys=%.2f%%", js.CPUMeasured, js.UsrCPU, js.SysCPU)
	}
	res, err = Replay("synthetic", synthetic(400), Options{}, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if js := res.Run.Jobs[0]; js.CPUMeasured || js.Ctx != 0 {
		t.Errorf("simulated replay: measured=%v ctx=%d", js.CPUMeasured, js.Ctx)
	}
}
