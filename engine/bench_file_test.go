package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/blkq-dev/blkq/internal/cputime"
	"github.com/blkq-dev/blkq/workload/fio"
)

// BenchmarkFileRandReads is blkq run's cost per I/O on a file: device
// (issue 13; docs/performance.md): random 4 KiB psync reads at iodepth 1
// of a 16 MiB file, as blkq bench's randread-4k-1job cases run them,
// through the page cache (buffered: every read after the file's first
// pass, 4096 misses, is a hit) and with O_DIRECT (direct: a pread per
// read, served inline on the executor), by one job, and by four at once
// (the -4jobs cases: each job on an executor of its own, engine/parallel.go;
// b.N/4 reads each). ns/op is wall time per read,
// cpu-ns/op the process's CPU time per read, the device's included.
// Profile it with -cpuprofile.
func BenchmarkFileRandReads(b *testing.B) {
	const size = 16 << 20
	path := filepath.Join(b.TempDir(), "bench.dat")
	if err := os.WriteFile(path, bytes.Repeat([]byte("blkq bench data\n"), size/16), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		direct string
		jobs   int
	}{{"buffered", "0", 1}, {"direct", "1", 1}, {"buffered-4jobs", "0", 4}, {"direct-4jobs", "1", 4}} {
		b.Run(c.name, func(b *testing.B) {
			src := "[r]\nfilename=" + path + "\nsize=16m\nbs=4k\nrw=randread\nioengine=psync\ninvalidate=0\n" +
				"time_based\nruntime=1h\ndirect=" + c.direct + "\nnumjobs=" + string(rune('0'+c.jobs)) + "\n"
			jf, err := fio.Parse("bench.fio", []byte(src), func(string) string { return "" })
			if err != nil {
				b.Fatal(err)
			}
			per := max(b.N/c.jobs, 1)
			jf.Jobs[0].NumberIOs = int64(per)
			cpu := cputime.Start(b)
			res, err := Run(jf, Options{Device: "file:" + path})
			cpu.Stop(b.N)
			if err != nil {
				b.Fatal(err)
			}
			for _, js := range res.Run.Jobs {
				if n := js.Read.IOs; n != uint64(per) {
					b.Fatalf("job %s: %d reads; want %d", js.Name, n, per)
				}
			}
		})
	}
}
