package engine

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/workload/fio"
	"golang.org/x/sys/unix"
)

// flowRun runs jf on sim:ssd (unless opt names a device) and returns each
// job's I/Os, reads and writes, and its errno, in job order.
func flowRun(t *testing.T, jf *fio.JobFile, opt Options) (ios []int64, errnos []int) {
	t.Helper()
	if opt.Device == "" {
		opt.Device = "sim:ssd"
	}
	res, err := Run(jf, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, js := range res.Run.Jobs {
		ios = append(ios, int64(js.Read.IOs+js.Write.IOs))
		errnos = append(errnos, js.Error)
	}
	return ios, errnos
}

// TestFlowExampleRatio: fio's flow.fio, unmodified and with no option
// ignored, gives its flow=8 reader 8 times the I/Os of its flow=1 writer,
// on a fast device and on a slow one. fio 3.33 on the same file with
// ioengine=null gave 868.2 and 6942.3 IOPS here (7.996); blkq, capped to
// 3 s of virtual time, the exact counts below.
func TestFlowExampleRatio(t *testing.T) {
	jf, err := fio.ParseFile(filepath.Join(corpusDir, "flow.fio"))
	if err != nil {
		t.Fatal(err)
	}
	if len(jf.Ignored) > 0 {
		t.Errorf("flow.fio: options ignored: %v", jf.Ignored)
	}
	for _, c := range []struct {
		device string
		want   []int64 // job2 (write, flow=1), job1 (randread, flow=8)
	}{
		{"sim:ssd", []int64{3363, 26897}},
		{"sim:hdd", []int64{51, 401}},
	} {
		ios, _ := flowRun(t, jf, Options{Device: c.device, RuntimeCap: 3 * time.Second})
		if !slices.Equal(ios, c.want) {
			t.Errorf("%s: I/Os %v; want %v", c.device, ios, c.want)
		}
		// fio's bound: a job passes while its share of the flow's I/Os
		// (counted from 1) is within its share of the weight, 8/9.
		if ios[1] > 8*(1+ios[0])+1 {
			t.Errorf("%s: job1 did %d I/Os, past its share of 8/9 with job2's %d", c.device, ios[1], ios[0])
		}
		if r := float64(ios[1]) / float64(ios[0]); r < 7.5 || r > 8.5 {
			t.Errorf("%s: job1/job2 I/Os %d/%d = %.3f; want 8 within 0.5", c.device, ios[1], ios[0], r)
		}
	}
}

// TestFlowWithoutSleep is fio's t0011 on a simulated device: flow=1 at
// rate_iops=1000 against flow=8, no flow_sleep. The fast job looks again
// each time the flow moves and ends at its bound, 8 for every I/O the
// slow one counted (2001: its last, counted, still waits for its rate)
// plus the flow's initial 1, plus the last that passes.
func TestFlowWithoutSleep(t *testing.T) {
	jf := parse(t, "[global]\nbs=4k\nsize=1g\nflow_id=1\nruntime=2\n[flow1]\nflow=1\nrate_iops=1000\n[flow2]\nflow=8\n")
	if ios, _ := flowRun(t, jf, Options{}); !slices.Equal(ios, []int64{2000, 8*(1+2001) + 1}) {
		t.Errorf("I/Os %v; want [2000 %d]", ios, 8*(1+2001)+1)
	}
}

// TestFlowJobLeaves: weights 1, 2, 3, the third done after 300 I/Os. Its
// weight and its I/Os leave the flow with it, as fio's flow_put takes
// them: the other two go on 1:2 (had its weight stayed, they would stop
// at about 300 I/Os together).
func TestFlowJobLeaves(t *testing.T) {
	jf := parse(t, "[global]\nbs=4k\nsize=1g\nflow_id=1\ntime_based\nruntime=300ms\n[flow1]\nflow=1\n[flow2]\nflow=2\n[flow3]\nflow=3\nnumber_ios=300\ntime_based=0\n")
	ios, _ := flowRun(t, jf, Options{})
	if ios[2] != 300 || ios[0] < 10000 || ios[1]-2*ios[0] < -2 || ios[1]-2*ios[0] > 2 {
		t.Errorf("I/Os %v; want job3 300, job2 twice job1 within 2, job1 past 10000", ios)
	}
}

// TestFlowNegativeWeight: fio 3.33 stores flow= unsigned, so flow=-2 is
// 2^32-2 and the sum of -2 and 1 is 2^32-1: b's share of it is near 0,
// and b is held after its first I/O (fio: 1 I/O). With -1 and 1 the sum
// is 0: every share is +Inf, no one is held, and both do what they do
// without flow=.
func TestFlowNegativeWeight(t *testing.T) {
	const global = "[global]\nioengine=libaio\niodepth=4\nrw=randread\nsize=1g\nruntime=1\ntime_based\n"
	free, _ := flowRun(t, parse(t, global+"[a]\n[b]\n"), Options{})
	if ios, _ := flowRun(t, parse(t, global+"[a]\nflow=-2\n[b]\nflow=1\n"), Options{}); ios[1] != 1 || ios[0] < free[0] {
		t.Errorf("flow=-2 and 1: I/Os %v; want b 1, a at least its %d without flow", ios, free[0])
	}
	if ios, _ := flowRun(t, parse(t, global+"[a]\nflow=-1\n[b]\nflow=1\n"), Options{}); !slices.Equal(ios, free) {
		t.Errorf("flow=-1 and 1: I/Os %v; want %v, as without flow", ios, free)
	}
}

// TestFlowStuck: two flow=1 jobs with a stonewall between them. The
// second's weight is in the sum from the start, so the first is held
// after 2 I/Os (2 of 1+2 past 1/2) and nothing can move the flow again:
// fio 3.33 waits for ever. blkq fails the held job with EDEADLK, and the
// second then runs its 256 I/Os. With a runtime the first waits it out,
// as fio does (fio: 2 and 256 I/Os).
func TestFlowStuck(t *testing.T) {
	const global = "[global]\nbs=4k\nsize=1m\nflow=1\n"
	ios, errnos := flowRun(t, parse(t, global+"[a]\n[b]\nstonewall\n"), Options{})
	if !slices.Equal(ios, []int64{2, 256}) || !slices.Equal(errnos, []int{int(unix.EDEADLK), 0}) {
		t.Errorf("I/Os %v errnos %v; want [2 256] [%d 0]", ios, errnos, unix.EDEADLK)
	}
	ios, errnos = flowRun(t, parse(t, global+"runtime=2\n[a]\n[b]\nstonewall\n"), Options{})
	if !slices.Equal(ios, []int64{2, 256}) || !slices.Equal(errnos, []int{0, 0}) {
		t.Errorf("with runtime=2: I/Os %v errnos %v; want [2 256] [0 0]", ios, errnos)
	}
}
