package engine

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq"
)

// TestQueueLimitsByDeviceKind: each device kind's queue shows the limits
// docs/linux-block-layer.md lists for it ("Queue limits by device kind"),
// nr_requests under the 2.4 pools and under blk-mq tags, and the default
// scheduler; a device wrapped for fault injection keeps its limits.
func TestQueueLimitsByDeviceKind(t *testing.T) {
	names := []string{"rotational", "logical_block_size", "physical_block_size", "max_hw_sectors_kb", "max_sectors_kb",
		"max_segments", "max_segment_size", "max_discard_segments", "discard_max_bytes", "write_cache", "fua", "nr_requests", "scheduler"}
	file := "file:" + filepath.Join(t.TempDir(), "f")
	for _, c := range []struct{ device, want, blkmqNr string }{
		{"sim:hdd", "1 512 512 32767 1280 128 65536 1 4294966784 write back 0 128 mq-deadline", "2"},
		{"sim:ssd", "0 512 512 32767 1280 128 65536 256 2199023255040 write back 1 128 mq-deadline", "64"},
		{"null", "0 512 512 32767 1280 128 65536 1 4294966784 write through 0 128 mq-deadline", "64"},
		{file, "0 512 512 32767 1280 128 65536 1 4294966784 write back 1 128 mq-deadline", "64"},
	} {
		for _, blkmq := range []bool{false, true} {
			cfg := blkq.Config{}
			if blkmq {
				cfg.Alloc = "blk-mq"
			}
			st, err := OpenQueue(QueueSetup{Device: c.device, Capacity: 1 << 30, Config: cfg, FailRequest: func(*blkq.Request) error { return nil }}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range names {
				v, err := st.Queue.Attr(n)
				if err != nil {
					t.Fatalf("%s: %s: %v", c.device, n, err)
				}
				if n == "scheduler" {
					v = strings.TrimSuffix(strings.TrimPrefix(v[strings.Index(v, "["):strings.Index(v, "]")+1], "["), "]")
				}
				got = append(got, v)
			}
			want := c.want
			if blkmq {
				want = strings.Replace(want, " 128 mq-deadline", " "+c.blkmqNr+" mq-deadline", 1)
			}
			if g := strings.Join(got, " "); g != want {
				t.Errorf("%s (blk-mq %v):\n got %s\nwant %s", c.device, blkmq, g, want)
			}
			st.Device.Close()
		}
	}
}
