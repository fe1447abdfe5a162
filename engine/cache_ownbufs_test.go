package engine

import (
	"fmt"
	"path/filepath"
	"testing"
)

// Buffered jobs whose units keep their own call buffers (cachePath.ownBufs:
// every buffered unit fits the pool's 2×nr_requests slots) and jobs that
// take a slot per call (more units than slots) both read back through the
// page cache what they wrote: four randrw jobs with verify=crc32c
// (verify_backlog=16: the checks run among the writes) on a
// file, mixed block sizes, a cache of 512 pages (2 MiB) under 16 MiB of
// files, so reads hit, miss and evict while writers dirty the same pages.
func TestBufferedRandRWVerifiesWithOwnAndSlotBuffers(t *testing.T) {
	for _, depth := range []int{1, 16, 64, 128} { // 4×64 = 256 units: the slots exactly; 4×128: more
		t.Run(fmt.Sprint("iodepth=", depth), func(t *testing.T) {
			job := fmt.Sprintf("[global]\nioengine=io_uring\ndirect=0\nbsrange=512-16k\nsize=4m\nrw=randrw\nrwmixread=60\n"+
				"numjobs=4\nverify=crc32c\nverify_backlog=16\nverify_fatal=1\niodepth=%d\n[mix]\n", depth)
			res := run(t, job, Options{Device: "file:" + filepath.Join(t.TempDir(), "dev"), CachePages: 512})
			for _, js := range res.Run.Jobs {
				// Every block written is read back and checked (a failed
				// check is the job's error, which run reports), besides
				// the job's own reads.
				if js.Write.Bytes == 0 || js.Read.Bytes < js.Write.Bytes {
					t.Errorf("job %s: read %d, wrote %d: want the writes read back", js.Name, js.Read.Bytes, js.Write.Bytes)
				}
			}
			pc := res.PageCache
			if pc == nil || pc.ReadHits == 0 || pc.Evictions == 0 {
				t.Fatalf("page cache %+v: want read hits and evictions", pc)
			}
			t.Logf("data check %d sectors; read hits %d, misses %d, evictions %d, overcommit %d", res.Verified, pc.ReadHits, pc.ReadMisses, pc.Evictions, pc.Overcommit)
		})
	}
}
