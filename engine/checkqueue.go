package engine

import (
	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/sim"
	"github.com/blkq-dev/blkq/sim/hdd"
)

// CheckQueueOptions makes the queue opt asks for (Scheduler, NrRequests,
// BatchRequests, NoMerges, Alloc) in front of a simulated disk that never
// runs, and sets its tunables (Attrs): the checks Run and Replay make when
// they open the run's own queue, made before anything is read or run, so
// that a bad value fails at once (blkq replay --compare checks each of its
// settings so).
func CheckQueueOptions(opt Options) error {
	cfg := blkq.Config{Scheduler: opt.Scheduler, NrRequests: opt.NrRequests, BatchRequests: opt.BatchRequests, NoMerges: opt.NoMerges, Alloc: opt.Alloc}
	loop := sim.NewLoop()
	q, err := blkq.New(hdd.New(loop, hdd.DefaultParams()), loop, cfg)
	if err != nil {
		return err
	}
	for _, a := range opt.Attrs {
		if err := q.SetAttr(a[0], a[1]); err != nil {
			return err
		}
	}
	return nil
}
