package main

import "github.com/blkq-dev/blkq/workload/fio"

// checkMaxJobs refuses a run whose job files define more jobs (numjobs
// clones counted) than --max-jobs allows. fio takes the flag to size its
// job table; past the limit fio 3.33 drops numjobs clones without a word
// (--max-jobs=1 with numjobs=2 runs one job). blkq has no such table, so
// the flag's one effect here is the limit, and blkq refuses rather than
// run other I/O than the files ask for.
func (f *cliFlags) checkMaxJobs(jobFiles []*fio.JobFile) error {
	if f.maxJobs < 1 || f.maxJobs > fio.MaxJobs {
		return usagef("--max-jobs=%d: want 1..%d (fio 3.33's limit)", f.maxJobs, fio.MaxJobs)
	}
	n := 0
	for _, jf := range jobFiles {
		for _, j := range jf.Jobs {
			n += max(j.NumJobs, 1)
		}
	}
	if n > f.maxJobs {
		return usagef("--max-jobs=%d: the job files define %d jobs (numjobs clones counted)", f.maxJobs, n)
	}
	return nil
}
