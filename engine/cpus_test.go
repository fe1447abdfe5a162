package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/report"
)

const us = time.Microsecond

// costs are round CPU costs for exact tests: a 5 µs switch, 50 µs per
// bio, no timeslice.
func costs(n int) CPUOptions {
	return CPUOptions{CPUs: n, ContextSwitch: 5 * us, Submit: 50 * us, SectionEvery: 1}
}

// TestCPUSyncJobSwitchesOncePerIO: a psync job of 10 reads under the model
// is woken once to start and once per completion (the last finds nothing
// to do and ends the job): 11 wake-ups and context switches; its CPU time
// is 11 switches and 10 submissions, exactly.
func TestCPUSyncJobSwitchesOncePerIO(t *testing.T) {
	res := run(t, "[r]\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=10\n", Options{CPU: costs(1)})
	js := res.Run.Jobs[0]
	c := js.Blkq.CPU
	if js.Ctx != 11 || c == nil || c.Wakeups != 11 || c.CPUs != 1 {
		t.Fatalf("ctx %d, cpu %+v; want 11 switches and wake-ups on 1 CPU", js.Ctx, c)
	}
	want := float64(11*5*us+10*50*us) * 100 / float64(js.Runtime)
	if js.SysCPU != want || js.UsrCPU != 0 {
		t.Fatalf("sys %.6f%% usr %.2f%%, want sys %.6f%% (555 µs of %d ns)", js.SysCPU, js.UsrCPU, want, js.Runtime)
	}
	if st := res.CPU; st == nil || st.Switches != 11 || st.Busy != 555*us || st.CPUs != 1 {
		t.Fatalf("run's CPU stats %+v", res.CPU)
	}
	// Alone on its CPU it never waits for one: each wake-up's latency is
	// its context switch.
	if c.RunDelay.Max() != int64(5*us) || c.RunDelay.Count() != 11 {
		t.Fatalf("wake-up latency max %d ns over %d, want 5 µs over 11", c.RunDelay.Max(), c.RunDelay.Count())
	}
	if js.Read.IOs != 10 {
		t.Fatalf("%d reads", js.Read.IOs)
	}
}

// TestCPUThirdJobWaitsForTheFirstFreeCPU: three jobs start together on
// two CPUs. Two run at once; the third runs when the first CPU frees: the
// first job's context switch and its first submission later, and its own
// switch: a 60 µs wake-up latency, exactly.
func TestCPUThirdJobWaitsForTheFirstFreeCPU(t *testing.T) {
	res := run(t, "[r]\nrw=randread\nbs=4k\nsize=1m\nnumber_ios=1\nnumjobs=3\n", Options{CPU: costs(2)})
	var got []int64
	for _, js := range res.Run.Jobs {
		got = append(got, js.Blkq.CPU.RunDelay.Max())
	}
	if got[0] != int64(5*us) || got[1] != int64(5*us) || got[2] != int64(60*us) {
		t.Fatalf("longest wake-up latencies %v ns, want 5 µs, 5 µs and 60 µs", got)
	}
}

// TestCPUSubmissionsTakeTheirTime: a libaio job submitting 8 bios in one
// io_submit (iodepth_batch=8: Linux plugs a call of more than two) takes
// 8 submissions of CPU time: its bios are queued 50 µs apart, the first
// after its context switch, yet they still merge into one request,
// dispatched when the call returns and its plug is finished, after the
// eighth submission's CPU time (5 + 8×50 µs in), where without the model
// everything happens at time 0.
func TestCPUSubmissionsTakeTheirTime(t *testing.T) {
	const job = "[w]\nrw=write\nbs=4k\nsize=32k\nioengine=libaio\niodepth=8\niodepth_batch=8\ndirect=1\n"
	for _, tc := range []struct {
		cpu      CPUOptions
		queued   string
		dispatch blkq.Time
	}{
		{CPUOptions{}, "0 0 0 0 0 0 0 0", 0},
		{costs(1), "5 55 105 155 205 255 305 355", blkq.Time(405 * us)},
	} {
		var queued []string
		var d []blkq.Time
		tr := blkq.TracerFunc(func(e *blkq.Event) {
			switch e.Action {
			case 'Q':
				queued = append(queued, fmt.Sprint(e.Time/1000))
			case 'D':
				d = append(d, e.Time)
			}
		})
		res := run(t, job, Options{CPU: tc.cpu, Tracers: []blkq.Tracer{tr}})
		if n := res.Run.Jobs[0].Blkq.RequestsIssued; n != 1 || len(d) != 1 || d[0] != tc.dispatch {
			t.Errorf("cpus=%d: %d requests dispatched at %v ns, want 1 at %d", tc.cpu.CPUs, n, d, tc.dispatch)
		}
		if got := strings.Join(queued, " "); got != tc.queued {
			t.Errorf("cpus=%d: bios queued at %s µs, want %s", tc.cpu.CPUs, got, tc.queued)
		}
	}
}

// TestCPUNiceProbeWaitsForTheSection: one CPU, a buffered writer that
// runs a 2 ms section after every write, and a nice -20 reader of a cached
// page at 1 kHz (rate_iops: each read due at its own time, as a periodic
// timer fires). Without lock breaking the reader waits up to the whole
// section for the CPU (the model's bound is the section and a context
// switch); with a break point every 100 µs, up to 100 µs. The writer gets
// about as much done either way: a broken section resumes where it left
// off.
func TestCPUNiceProbeWaitsForTheSection(t *testing.T) {
	const jobs = "[global]\nruntime=200ms\ntime_based\nbs=4k\ndirect=0\n[w]\nrw=write\nsize=64m\n[probe]\nrw=read\nsize=4k\nrate_iops=1000\nnice=-20\n"
	var writes []uint64
	for _, tc := range []struct {
		brk      time.Duration
		min, max time.Duration
	}{
		{0, 1900 * us, 2000*us + 5*us},
		{100 * us, 95 * us, 100*us + 5*us},
	} {
		o := costs(1)
		o.Section, o.LockBreak = 2*time.Millisecond, tc.brk
		res := run(t, jobs, Options{CPU: o})
		probe := res.Run.Jobs[1]
		got := time.Duration(probe.Blkq.CPU.RunDelay.Max())
		t.Logf("lock_break=%v: longest %v, %d reads, %d writes", tc.brk, got, probe.Read.IOs, res.Run.Jobs[0].Write.IOs)
		if got < tc.min || got > tc.max {
			t.Errorf("lock_break=%v: the probe's longest wake-up latency %v, want %v to %v", tc.brk, got, tc.min, tc.max)
		}
		if probe.Read.IOs != 200 {
			t.Errorf("lock_break=%v: %d probe reads in 200 ms at 1 kHz", tc.brk, probe.Read.IOs)
		}
		writes = append(writes, res.Run.Jobs[0].Write.IOs)
	}
	if writes[1] == 0 || float64(writes[1]) < 0.9*float64(writes[0]) {
		t.Errorf("the writer wrote %d times without lock breaking, %d with: want at least 90%%", writes[0], writes[1])
	}
}

// TestCPUModelIsDeterministic: the same seed gives the same report.
func TestCPUModelIsDeterministic(t *testing.T) {
	const job = "[global]\nrw=randrw\nbs=4k\nsize=16m\nioengine=libaio\niodepth=64\ndirect=1\nruntime=300ms\ntime_based\n[a]\nnumjobs=8\n"
	var out [2]string
	for i := range out {
		res := run(t, job, Options{CPU: DefaultCPUOptions(2), Alloc: "legacy", NrRequests: 16})
		res.Run.Timestamp, res.Run.TimestampMs, res.Run.Time = 0, 0, ""
		var b bytes.Buffer
		if err := report.WriteJSON(&b, res.Run); err != nil {
			t.Fatal(err)
		}
		out[i] = b.String()
	}
	if out[0] != out[1] {
		t.Fatal("two runs with the same seed differ")
	}
}

// TestCPUOptionsErrors: the model runs on simulated devices and fio jobs
// only; its settings are checked by name.
func TestCPUOptionsErrors(t *testing.T) {
	if _, err := Run(parse(t, "[r]\nrw=read\nsize=1m\n"), Options{Device: "null", CPU: costs(1)}); err == nil || !strings.Contains(err.Error(), "simulated devices") {
		t.Errorf("null device: %v", err)
	}
	if _, err := Replay("t", nil, Options{CPU: costs(1)}, ReplayOptions{}); err == nil || !strings.Contains(err.Error(), "not replays") {
		t.Errorf("replay: %v", err)
	}
	if _, err := Run(parse(t, "[r]\nrw=read\nsize=1m\n"), Options{CPU: CPUOptions{CPUs: 1, ContextSwitch: -1}}); err == nil || !strings.Contains(err.Error(), "context switch") {
		t.Errorf("negative switch: %v", err)
	}
	var o CPUOptions
	for _, bad := range [][2]string{{"submit", "-1us"}, {"submit", "fast"}, {"section_every", "0"}, {"turbo", "1"}} {
		if err := o.Set(bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("Set(%s, %s): %v", bad[0], bad[1], err)
		}
	}
	o = DefaultCPUOptions(2)
	for _, kv := range [][2]string{{"submit", "10us"}, {"section", "8ms"}, {"section_every", "16"}, {"lock_break", "100us"}} {
		if err := o.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := o.String(), "cpus=2 context_switch=5µs submit=10µs timeslice=100ms section=8ms section_every=16 lock_break=100µs"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
