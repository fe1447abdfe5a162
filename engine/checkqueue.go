package engine

// CheckQueueOptions makes the queue opt asks for (Scheduler, NrRequests,
// BatchRequests, NoMerges, Alloc) in front of a simulated disk that never
// runs, and sets its tunables (Attrs): the checks Run and Replay make when
// they open the run's own queue (OpenQueue), made before anything is read
// or run, so that a bad value fails at once (blkq replay --compare checks
// each of its settings so).
func CheckQueueOptions(opt Options) error {
	s := opt.queueSetup(DefaultSimCapacity)
	s.Device = "sim:hdd"
	st, err := OpenQueue(s, nil)
	if err != nil {
		return err
	}
	return st.Device.Close()
}
