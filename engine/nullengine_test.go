package engine

import "testing"

// TestNullEngineBypassesPageCache: a direct=0 job on fio's null engine
// has no data to cache, so it goes straight to the queue: no page cache
// is opened, and every read reaches the device, as many as a direct=1
// job's. A psync job with direct=0 on the same device goes through the
// cache (its second pass over 1 MiB is served from it).
func TestNullEngineBypassesPageCache(t *testing.T) {
	for _, tc := range []struct {
		engine string
		direct int
		cache  bool
	}{
		{"null", 0, false},
		{"null", 1, false},
		{"psync", 0, true},
	} {
		src := "[n]\nioengine=" + tc.engine + "\nrw=read\nbs=4k\nsize=1m\nloops=2\ndirect=" + string(rune('0'+tc.direct)) + "\n"
		res := run(t, src, Options{Device: "sim:hdd"})
		if (res.PageCache != nil) != tc.cache {
			t.Errorf("%s direct=%d: page cache %v, want %v", tc.engine, tc.direct, res.PageCache != nil, tc.cache)
		}
		sectors := res.Disk.Sectors[0]
		if tc.cache {
			if sectors >= 2*2048 {
				t.Errorf("%s direct=%d: %d sectors read from the disk for two passes over 1 MiB: the cache served none", tc.engine, tc.direct, sectors)
			}
			continue
		}
		if sectors != 2*2048 {
			t.Errorf("%s direct=%d: %d sectors read from the disk, want both passes' 4096", tc.engine, tc.direct, sectors)
		}
	}
}
