package engine

import (
	"testing"

	"github.com/blkq-dev/blkq/internal/cputime"
	"github.com/blkq-dev/blkq/workload/fio"
)

// BenchmarkSimRandomWrites is the engine's cost per simulated I/O
// (ns/op = wall ns per I/O, cpu-ns/op, bios/s) for random 4 KiB writes at iodepth 16 on
// sim:hdd: generator, queue, elevator, disk model and statistics.
func BenchmarkSimRandomWrites(b *testing.B) {
	benchJob(b, "[w]\nrw=randwrite\nbs=4k\ndirect=1\nioengine=libaio\niodepth=16\nfilename=/dev/sdb\n")
}

// BenchmarkSimSequentialReads is the same for sequential 4 KiB reads,
// which merge.
func BenchmarkSimSequentialReads(b *testing.B) {
	benchJob(b, "[r]\nrw=read\nbs=4k\ndirect=1\nioengine=libaio\niodepth=16\nfilename=/dev/sdb\n")
}

func benchJob(b *testing.B, src string) { benchJobOn(b, "", src) }

// benchJobOn runs the job of src for b.N I/Os on device ("": the job's
// default) and reports its CPU time per I/O.
func benchJobOn(b *testing.B, device, src string) {
	jf, err := fio.Parse("bench.fio", []byte(src), func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	jf.Jobs[0].NumberIOs = int64(b.N)
	cpu := cputime.Start(b)
	if _, err := Run(jf, Options{Device: device}); err != nil {
		b.Fatal(err)
	}
	cpu.Stop(b.N)
	// The simulator's speed, as issue 13's target puts it.
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bios/s")
}

// BenchmarkNullRandomReads is blkq run's cost per I/O on the null device
// with fio's null engine (issue 13: at most twice fio's own): random
// 4 KiB reads at iodepth 1 on the wall clock, through the generator, the
// queue, mq-deadline, the null device, completion and statistics. The
// job is time_based so that only number_ios (b.N) ends it.
func BenchmarkNullRandomReads(b *testing.B) {
	benchJobOn(b, "null", "[n]\nioengine=null\nrw=randread\nbs=4k\nsize=1g\ntime_based\nruntime=1h\n")
}
