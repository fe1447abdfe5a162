package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq/workload/fio"
)

// TestStonewallChainCostsLinearDependencies: a chain of stonewalled jobs
// (with numjobs clones and a non-stonewalled job inside a segment) links
// each job to at most one gate and each gate to its successor, so the
// dependency edges grow with the jobs, not with their square.
func TestStonewallChainCostsLinearDependencies(t *testing.T) {
	var b strings.Builder
	b.WriteString("[global]\nioengine=null\nsize=4k\nfilename=/dev/nullb0\n")
	const sections = 1000
	for i := range sections {
		fmt.Fprintf(&b, "[j%d]\nstonewall\nnumjobs=2\n[k%d]\n", i, i)
	}
	jf, err := fio.Parse("chain.fio", []byte(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(Options{Device: "null", Seed: 1})
	r.jf = jf
	if _, err := r.plan(); err != nil {
		t.Fatal(err)
	}
	edges, gates := 0, map[*gate]bool{}
	for _, j := range r.jobs {
		edges += len(j.waiters)
		if j.after != nil {
			gates[j.after] = true
		}
	}
	for g := range gates {
		edges += len(g.jobs) + 1
	}
	if n := len(r.jobs); n != 3*sections || edges > 2*n {
		t.Fatalf("%d jobs, %d dependency edges: want 3000 jobs and at most 2 edges per job", n, edges)
	}
	for _, j := range r.jobs[3:] {
		if j.deps != 1 {
			t.Fatalf("job %s.%d waits on %d dependencies, want 1 (its gate)", j.name, j.clone, j.deps)
		}
	}
}

// TestStonewallWaitsForEveryEarlierJob: a stonewalled job starts only
// after every job before it has ended, including a long one two segments
// back, so a chain's run takes the sum of its segments' longest jobs.
func TestStonewallWaitsForEveryEarlierJob(t *testing.T) {
	src := "[global]\nioengine=psync\nbs=4k\nrw=randread\nsize=64m\ntime_based\nfilename=/dev/sdb\n" +
		"[long]\nruntime=300ms\n" +
		"[short]\nruntime=100ms\n" +
		"[s1]\nstonewall\nruntime=100ms\n" +
		"[s2]\nstonewall\nruntime=100ms\n"
	res := run(t, src, Options{})
	// long (300 ms), then s1, then s2: 500 ms plus at most one I/O each.
	if res.Elapsed < 500*time.Millisecond || res.Elapsed > 600*time.Millisecond {
		t.Fatalf("the chain took %v of virtual time, want 500 ms and a few I/Os", res.Elapsed)
	}
}
