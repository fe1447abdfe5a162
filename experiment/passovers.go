package experiment

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/report"
)

// passovers: the 2003 "io stalls" thread. Twenty processes stream
// buffered writes; their pages end up mixed together on the one dirty
// list, and once the cache is over its hard dirty threshold each of them
// writes back 32 of the oldest dirty pages itself (balance_dirty), waiting
// in request allocation like everyone else, while the flusher does the
// same in the background. Two synchronous readers read at random. The
// 2.4 linus elevator runs stock (read 2048, write 8192 passovers,
// max_bomb_segments 6, seek cost 16) and as Andrea Arcangeli's tree tuned
// it (128/512, no max_bomb_segments, seek cost 1),
// each with 128 and 1024 requests.

func passoverJobs(scale float64) string {
	return fmt.Sprintf(`; io stalls: 20 streaming buffered writers and 2 synchronous readers
[global]
ioengine=psync
bs=4k
size=1g
runtime=%.0fms
time_based

[writer]
rw=write
direct=0
numjobs=20

[reader]
rw=randread
direct=1
numjobs=2
`, scaled(30000, scale, 2000))
}

// passoverOptions is the linus elevator with the given passovers and seek
// cost, and nr requests per direction. Requests are limited to 127 KiB:
// 2.4's default MAX_SECTORS was 255 sectors, which with 4 KiB pages allows
// the same 31 pages per request.
func passoverOptions(read, write, bomb, seek string, nr int) engine.Options {
	return engine.Options{
		Scheduler:  "linus",
		NrRequests: nr,
		Alloc:      "fair",
		Attrs: [][2]string{{"iosched/read_latency", read}, {"iosched/write_latency", write}, {"iosched/max_bomb_segments", bomb},
			{"iosched/seek_cost", seek}, {"max_sectors_kb", "127"}},
		WakeJitter: dbenchOptions("fair").WakeJitter,
		CachePages: passoverCachePages,
	}
}

// passoverCachePages is the page cache of the writers' machine: 1 GiB, so
// that, as on a 2003 server, the dirty limits (10% and 20% of it) hold
// far more than the request queue. An assumption: the report does not
// give the machine's memory.
const passoverCachePages = 1 << 30 / 4096

func init() {
	register(&Experiment{
		Name:   "passovers",
		Title:  "io stalls: 20 streaming writers under the 2.4 linus elevator, stock vs tuned passovers, nr_requests 128 vs 1024",
		Source: source2003,
		Jobs:   passoverJobs,
		Configs: []Config{
			{Name: "stock, 128", Options: passoverOptions("2048", "8192", "6", "16", 128)},
			{Name: "stock, 1024", Options: passoverOptions("2048", "8192", "6", "16", 1024)},
			{Name: "tuned, 128", Options: passoverOptions("128", "512", "0", "1", 128)},
			{Name: "tuned, 1024", Options: passoverOptions("128", "512", "0", "1", 1024)},
		},
		Analyze: analyzePassovers,
	})
}

// waitNote compares one configuration's request waits with the 2003
// histogram.
func waitNote(name string, f passoverFigures) string {
	if f.waits == 0 {
		return fmt.Sprintf("request waits, %s: none; the pool never ran out, so the 2003 histogram has nothing to compare with here", name)
	}
	pct := 100 * float64(f.buckets[0]) / float64(f.waits)
	return fmt.Sprintf("request waits < 100 ms, %s: %d of %d (%.1f%%; 2003 with Chris Mason's fair-waiting patch: 100%%): %s. blkq's fair is the 2002 rule, under which a running task may take a free request while others sleep; the 2003 patch made every newcomer queue behind the sleepers, and is not modelled.", name, f.buckets[0], f.waits, pct, yesNo(pct >= 99))
}

// waitBuckets are the 2003 report's request-wait histogram buckets, ms.
var waitBuckets = []float64{100, 200, 300, 400, 500}

type passoverFigures struct {
	writerMBps, writerMin, writerMax float64 // per writer, MB/s
	readerAvg, readerP99, readerMax  float64 // ms
	buckets                          []int   // request waits per bucket, the last one >= 500 ms
	waits                            int
	avgRequestKiB                    float64
}

func passoverFigs(o *Outcome) passoverFigures {
	f := passoverFigures{buckets: make([]int, len(waitBuckets)+1), writerMin: -1}
	readLat := report.NewLatency()
	var writers int
	var reqBytes, reqs uint64
	for _, js := range o.Result.Run.Jobs {
		reqBytes += js.Blkq.RequestBytes
		reqs += js.Blkq.RequestsIssued
		if strings.HasPrefix(js.Name, "reader") {
			readLat.Merge(js.Read.Lat)
			continue
		}
		mbps := float64(js.Write.Bytes) / (float64(js.Runtime) / 1e9) / 1e6
		f.writerMBps += mbps
		writers++
		if f.writerMin < 0 || mbps < f.writerMin {
			f.writerMin = mbps
		}
		f.writerMax = max(f.writerMax, mbps)
	}
	if writers > 0 {
		f.writerMBps /= float64(writers)
	}
	f.readerAvg = readLat.Mean() / 1e6
	f.readerP99 = float64(readLat.Percentile(99)) / 1e6
	f.readerMax = float64(readLat.Max()) / 1e6
	for _, w := range o.Waits {
		ms := float64(w.Wait) / 1e6
		i := sort.SearchFloat64s(waitBuckets, ms)
		if i < len(waitBuckets) && waitBuckets[i] == ms {
			i++ // a bucket is "< limit"
		}
		f.buckets[i]++
		f.waits++
	}
	if d := o.Result.Disk; d.IOs[1] > 0 {
		f.avgRequestKiB = float64(d.Sectors[1]) * 512 / float64(d.IOs[1]) / 1024
	}
	return f
}

func analyzePassovers(out []*Outcome) *Table {
	t := &Table{Columns: []string{"config", "writer MB/s", "min", "max", "write rq KiB", "reader avg ms", "p99", "max",
		"waits", "<100", "<200", "<300", "<400", "<500", ">=500"}}
	figs := map[string]passoverFigures{}
	for _, o := range out {
		f := passoverFigs(o)
		figs[o.Config.Name] = f
		row := []string{o.Config.Name, f2(f.writerMBps), f2(f.writerMin), f2(f.writerMax), fmt.Sprintf("%.1f", f.avgRequestKiB),
			f2(f.readerAvg), f2(f.readerP99), f2(f.readerMax), fmt.Sprint(f.waits)}
		for _, n := range f.buckets {
			row = append(row, fmt.Sprint(n))
		}
		t.Rows = append(t.Rows, row)
	}
	s128, s1024, t128 := figs["stock, 128"], figs["stock, 1024"], figs["tuned, 128"]
	t.Notes = append(t.Notes,
		"Reported in 2003 (20 iozone writers, 2.4.21-rc7): 3 MB/s per writer on the stock kernel; 1.3 MB/s the best a fair-waiting patch managed with more requests; with fair waiting, all 130,671 request waits < 100 ms (0 in every other bucket).",
		waitNote("stock, 128", s128), waitNote("stock, 1024", s1024),
		fmt.Sprintf("writer throughput, 1024 requests vs 128 (stock): %.2f vs %.2f MB/s per writer, write requests %.1f vs %.1f KiB (2003: more requests let more of the 20 x 32-page batches merge before the unplug): %s",
			s1024.writerMBps, s128.writerMBps, s1024.avgRequestKiB, s128.avgRequestKiB, yesNo(s1024.writerMBps > s128.writerMBps)),
		fmt.Sprintf("reader p99 latency, 1024 requests vs 128 (stock): %.1f vs %.1f ms. Not a figure of the 2003 report but its subject: a longer queue holds more writes ahead of each read.",
			s1024.readerP99, s128.readerP99),
		fmt.Sprintf("reader latency, tuned vs stock passovers (128 requests): average %.1f vs %.1f ms, p99 %.1f vs %.1f ms. Not a figure of the 2003 report: the tuned setting has no max_bomb_segments, so a read no longer jumps ahead of the writes queued before it.",
			t128.readerAvg, s128.readerAvg, t128.readerP99, s128.readerP99),
		fmt.Sprintf("per-writer throughput, stock 128: %.2f MB/s (2003: 3 MB/s): %s. The simulated disk has no write cache and serves one request at a time, so 20 interleaved streams cost a seek and most of a rotation per ~100 KiB request.",
			s128.writerMBps, yesNo(s128.writerMBps >= 2.5)))
	return t
}
