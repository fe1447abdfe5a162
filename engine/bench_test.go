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

func benchJob(b *testing.B, src string) {
	jf, err := fio.Parse("bench.fio", []byte(src), func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	jf.Jobs[0].NumberIOs = int64(b.N)
	cpu := cputime.Start(b)
	if _, err := Run(jf, Options{}); err != nil {
		b.Fatal(err)
	}
	cpu.Stop(b.N)
	// The simulator's speed, as issue 13's target puts it.
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "bios/s")
}
