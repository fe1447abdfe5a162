package iotrace_test

import (
	"fmt"
	"strings"

	"github.com/blkq-dev/blkq/workload/iotrace"
)

// Two MSR Cambridge lines, read as records: FILETIME ticks become time since
// the first record, bytes become 512-byte sectors.
func ExampleNewReader() {
	src := "128166385295514663,hm,0,Write,9056014336,2048,2833\n" +
		"128166385295514878,hm,0,Read,11855351808,512,2617\n"
	r, err := iotrace.NewReader(strings.NewReader(src), "hm_0.csv", iotrace.FormatMSR)
	if err != nil {
		panic(err)
	}
	recs, err := iotrace.ReadAll(r)
	for _, rec := range recs {
		fmt.Println(rec.Time, rec.Process, rec.PID, rec.Op, rec.Sector, rec.Sectors)
	}
	fmt.Println(err)
	// Output:
	// 0s hm 0 write 17687528 4
	// 21.5µs hm 0 read 23154984 1
	// <nil>
}

// The kernel's merge decisions, from its blk tracer in blk_classic mode: the
// first bio gets a request (G), the second is back-merged into it (M).
func ExampleReadKernelMerges() {
	src := "" +
		"  7,0    0   385.069815948 11078  Q  WS 0 + 8 [fio]\n" +
		"  7,0    0   385.069862204 11078  G  WS 0 + 8 [fio]\n" +
		"  7,0    0   385.069864699 11078  P   N [fio]\n" +
		"  7,0    0   385.069867975 11078  Q  WS 8 + 8 [fio]\n" +
		"  7,0    0   385.069869568 11078  M  WS 8 + 8 [fio]\n"
	qs, err := iotrace.ReadKernelMerges(strings.NewReader(src), "loop0", iotrace.FormatFtrace)
	for _, q := range qs {
		fmt.Printf("line %d: %v %d+%d at %v merged=%v %q\n", q.Line, q.Op, q.Sector, q.Sectors, q.Time, q.Merged(), q.Merge)
	}
	fmt.Println(err)
	// Output:
	// line 1: write 0+8 at 0s merged=false '\x00'
	// line 4: write 8+8 at 52.027µs merged=true 'M'
	// <nil>
}
