package blkq

import (
	"strings"
	"testing"
	"time"
)

// FuzzReadLimits: whatever text a device states for its queue limits
// ("name=value" lines), New either refuses it with an error naming the
// device or takes limits that hold together: block sizes powers of two
// from 512, physical at least logical, a transfer limit the default
// max_sectors_kb fits in, FUA only with a write cache; and writing
// write_cache never panics.
func FuzzReadLimits(f *testing.F) {
	f.Add("write_cache=write back\nfua=0")
	f.Add("rotational=1\nlogical_block_size=4096\nphysical_block_size=512")
	f.Add("max_hw_sectors_kb=124\nmax_segments=0\ndiscard_max_bytes=-1")
	f.Add("write_cache=none\nfua=1\nmax_segment_size=65536")
	f.Fuzz(func(t *testing.T, text string) {
		lim := map[string]string{}
		for _, l := range strings.Split(text, "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				lim[k] = v
			}
		}
		clk := &testClock{}
		dev := &limitDevice{newTestDevice(clk, 1, time.Millisecond), lim}
		q, err := New(dev, clk, Config{})
		if err != nil {
			if !strings.Contains(err.Error(), "device test") {
				t.Fatalf("error %q does not name the device", err)
			}
			return
		}
		l := q.lim
		switch {
		case l.logicalBlockSize < SectorSize || l.logicalBlockSize&(l.logicalBlockSize-1) != 0,
			l.physicalBlockSize < l.logicalBlockSize || l.physicalBlockSize&(l.physicalBlockSize-1) != 0,
			int(q.cfg.MaxSectors) > 2*l.maxHWSectorsKB, l.fua && !l.writeCache:
			t.Fatalf("limits %+v (max_sectors %d) from %q", l, q.cfg.MaxSectors, text)
		}
		for _, v := range []string{"write through", "write back", "none", text} {
			_ = q.SetAttr("write_cache", v)
		}
	})
}
