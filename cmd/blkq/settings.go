package main

import (
	"strings"

	"github.com/blkq-dev/blkq/engine"
)

// A compareSetting is one value of replay --compare: its name in the
// table ("sched=linus") and the options it runs with.
type compareSetting struct {
	name string
	opt  engine.Options
}

// compareSettings turns --compare NAME=V1,V2,... into one setting per
// value. Each is tried on a queue of its own before any replay starts, so
// that a bad third value does not cost the first two replays.
func compareSettings(spec string, base engine.Options) ([]compareSetting, error) {
	key, vals, ok := strings.Cut(spec, "=")
	if !ok || key == "" || vals == "" {
		return nil, usagef("--compare=%.80q: want NAME=V1,V2,... (sched, nomerges, alloc, nr_requests, or any tunable)", spec)
	}
	var out []compareSetting
	for i, v := range strings.Split(vals, ",") {
		if v == "" {
			return nil, usagef("--compare %.80q: value %d is empty", spec, i+1)
		}
		opt := base
		switch key {
		case "sched", "scheduler":
			opt.Scheduler = v
		case "alloc":
			opt.Alloc = v
		case "nomerges":
			if v != "0" && v != "1" && v != "2" {
				return nil, usagef("--compare nomerges=%.40q: want 0, 1 or 2", v)
			}
			opt.NoMerges = int(v[0] - '0')
		default:
			opt.Attrs = append(append([][2]string(nil), base.Attrs...), [2]string{key, v})
		}
		if err := engine.CheckQueueOptions(opt); err != nil {
			return nil, usagef("--compare %s=%.40s: %s", key, v, strings.TrimPrefix(err.Error(), "blkq: "))
		}
		out = append(out, compareSetting{name: key + "=" + v, opt: opt})
	}
	return out, nil
}

// powerOfTen reports whether n is 1, 10, 100, ...
func powerOfTen(n int64) bool {
	for ; n >= 10 && n%10 == 0; n /= 10 {
	}
	return n == 1
}
