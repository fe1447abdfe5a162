package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReadSet reads the trace arg names as blkparse -i does: an existing file
// alone, and otherwise the per-CPU files NAME.blktrace.0, .1, ... until
// one is missing (blktrace writes one per CPU). It returns the records,
// file after file, and the device name blkparse shows: the file name up to
// ".blktrace.". A file cut mid-record keeps its records before the cut,
// and the other CPUs' files are still read; the error is then the first
// cut's.
func ReadSet(arg string) ([]Record, string, error) {
	name := filepath.Base(arg)
	if i := strings.Index(name, ".blktrace."); i >= 0 {
		name = name[:i]
	}
	if _, err := os.Stat(arg); err == nil {
		recs, err := ReadFile(arg)
		return recs, name, err
	}
	base := arg
	if i := strings.Index(base, ".blktrace."); i >= 0 {
		base = base[:i]
	}
	var all []Record
	var first error
	for cpu := 0; ; cpu++ {
		file := fmt.Sprintf("%s.blktrace.%d", base, cpu)
		if _, err := os.Stat(file); err != nil {
			if cpu == 0 {
				return nil, "", fmt.Errorf("%s: no such file, and no %s", arg, file)
			}
			return all, name, first
		}
		recs, err := ReadFile(file)
		all = append(all, recs...)
		if err != nil && first == nil {
			first = err
		}
	}
}
