package iobench

import (
	"fmt"
	"io"
	"sort"
)

// Print writes rep as text: per case, each contender's median IOPS and
// CPU per I/O, then the ratios.
func Print(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "blkq bench: %s; %s (%d MiB); ramp %s, runtime %s; medians of %d rounds, contenders alternating\n",
		rep.Machine, rep.File, rep.Size>>20, rep.Ramp, rep.Runtime, rep.Rounds)
	for _, c := range rep.Cases {
		fmt.Fprintf(w, "\n%s\n  %-17s %12s %12s\n", c.Case.Name, "contender", "IOPS", "CPU/IO")
		for _, r := range c.Results {
			fmt.Fprintf(w, "  %-17s %12.0f %9.0f ns\n", r.Contender, r.IOPS, r.CPUNsPerIO)
		}
		var names []string
		for k := range c.Ratios {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(w, "  %-26s %6.2f\n", k, c.Ratios[k])
		}
	}
}
