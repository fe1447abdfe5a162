package engine

import (
	"path/filepath"
	"strings"
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

// BenchmarkSimCorpus is the simulator's speed on the corpus's two
// largest jobs (issue 13: at least 3 million simulated bios per wall
// second), each run unmodified but for a size cap, on sim:hdd and
// sim:ssd: basic-verify.fio (random 4 KiB writes at iodepth 16, then
// their read-back and crc32c check) and cross-stripe-verify.fio (30 jobs
// of 16 KiB writes every 128 KiB, each followed by its verify read,
// twice). One op is one whole run; bios/s counts every bio the queue
// took (its requests plus the bios merged into them), and ns/bio is
// the wall time per bio.
func BenchmarkSimCorpus(b *testing.B) {
	cases := []struct {
		file string
		cap  int64 // SizeCap per job, bytes
	}{
		{"basic-verify.fio", 1 << 30},
		{"cross-stripe-verify.fio", 128 << 20},
	}
	for _, c := range cases {
		for _, dev := range []string{"sim:hdd", "sim:ssd"} {
			b.Run(strings.TrimSuffix(c.file, ".fio")+"/"+dev, func(b *testing.B) {
				jf, err := fio.ParseFile(filepath.Join(corpusDir, c.file))
				if err != nil {
					b.Fatal(err)
				}
				var bios uint64
				cpu := cputime.Start(b)
				for range b.N {
					res, err := Run(jf, Options{Device: dev, SizeCap: c.cap})
					if err != nil {
						b.Fatal(err)
					}
					for op := range res.Disk.IOs {
						bios += res.Disk.IOs[op] + res.Disk.Merges[op]
					}
				}
				cpu.Stop(b.N)
				b.ReportMetric(float64(bios)/b.Elapsed().Seconds(), "bios/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(bios), "ns/bio")
			})
		}
	}
}
