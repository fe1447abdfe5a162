package engine

import "fmt"

// fio's verify trims (trim_percentage, trim_backlog, trim_backlog_batch,
// trim_verify_zero), as fio 3.33 runs them (trim.c, iolog.c and io_u.c's
// check_get_trim, read for behaviour; Debian's fio checked): of the
// blocks a verifying job writes, trim_percentage percent join a trim
// list, and every trim_backlog blocks written a batch of them is trimmed,
// to be read back as zeros by the verify (trim_verify_zero).
//
//   - Without trim_backlog, or without verify=, no block is ever trimmed:
//     fio issues the same I/O as without trim_percentage (it only says
//     "fio: N trim entries leaked?" at the end), and so does blkq.
//   - With both, in a job whose rw= has no trims, fio's first trim trips
//     its own read-only check and fio aborts (an assertion in
//     fio_ro_check): blkq refuses the job before the run.
//   - With both, on rw=trimwrite or randtrimwrite, fio trims the batches
//     and verifies them: blkq does not model that, and refuses the job,
//     rather than run it without the trims.

// checkTrimVerify refuses the jobs whose verify trims blkq cannot run.
func (r *runner) checkTrimVerify() error {
	for _, spec := range r.jf.Jobs {
		tv := spec.Trim
		if tv.Percentage == 0 || tv.Backlog == 0 || !spec.VerifyEnabled() {
			continue
		}
		if !spec.RW.Trims() {
			return fmt.Errorf("%s: job %q: trim_percentage=%d with trim_backlog=%d and verify= on rw=%s: fio 3.33 aborts on such a job (its first trim fails the assertion in fio_ro_check: only rw=trimwrite or randtrimwrite can trim)", jobPlace(r.jf, spec), spec.Name, tv.Percentage, tv.Backlog, spec.RW)
		}
		return fmt.Errorf("%s: job %q: verify trims (trim_percentage=%d, trim_backlog=%d) are not modelled: blkq would run the job without them", jobPlace(r.jf, spec), spec.Name, tv.Percentage, tv.Backlog)
	}
	return nil
}
