package engine

import (
	"fmt"
	"path/filepath"

	"github.com/blkq-dev/blkq/workload/fio"
)

// How many files a run may have, checked before any is named.
//
// A job's files cost memory for each of them (its name, its extent on the
// device, its region, its random map and its page-cache file: about a
// kilobyte), and nrfiles= takes any number up to 2^31-1. fio 3.33 has no
// limit of its own but runs out of its shared memory pool (smalloc) near
// 300,000 files in a run, and aborts. blkq refuses a run of more than
// maxRunFiles files, and checks that each file gets at least a sector of
// the job's size, before it names a single file: nrfiles=2000000000 is an
// error at once, where building its files first grew without bound.

// maxRunFiles is the most files one run may have, every job and numjobs
// clone counted: above fio 3.33's practical limit (near 300,000 files,
// where its smalloc pool runs out), so that every run fio can make blkq
// can make too, in about half a gigabyte.
const maxRunFiles = 1 << 19

// checkFiles counts the files of spec's clone into *total and returns an
// error, before they are named, if the run would have more than
// maxRunFiles or if size= over nrfiles= leaves a file less than a sector
// (plan's own check, made early). Called by plan for each job clone.
func (r *runner) checkFiles(spec *fio.Job, clone int, total *int) error {
	n := len(spec.Filenames)
	if n == 0 {
		n = max(spec.NrFiles, 1)
		if err := r.checkFileShare(spec, clone, n); err != nil {
			return err
		}
	}
	if *total += n; *total > maxRunFiles {
		what := fmt.Sprintf("nrfiles=%d", n)
		if len(spec.Filenames) > 0 {
			what = fmt.Sprintf("filename= names %d files", n)
		}
		if *total > n {
			what += fmt.Sprintf(", with the jobs before it %d files", *total) // numjobs clones included
		}
		return fmt.Errorf("%s:%d: job %q: %s: more than blkq's limit of %d files in a run (fio 3.33 runs out of its shared memory pool near 300,000)", r.jf.Path, spec.Line, spec.Name, what, maxRunFiles)
	}
	return nil
}

// checkFileShare is plan's check that size= over the n files fio names
// for the clone gives each at least a sector, made before the files are
// named.
func (r *runner) checkFileShare(spec *fio.Job, clone, n int) error {
	if spec.Logs.ReadIolog != "" || spec.Files.FillDevice || spec.Size <= 0 {
		return nil // an iolog's files are its own; fill_device grows one
	}
	if known := r.capSize(spec.FileSize[1]); known > 0 || isDeviceName(r.fileName(spec, clone, 0)) {
		return nil
	}
	if _, size := r.resolve(spec, clone, n, 0); size == 0 {
		return fmt.Errorf("%s:%d: job %q: size=%d over %d files leaves less than a 512-byte sector per file", r.jf.Path, spec.Line, spec.Name, spec.Size, n)
	}
	return nil
}

// fileName is the path of file f of a job clone without filename=, as
// fileNames (plan.go) names it: jobname.clone.f, under directory= if set.
func (r *runner) fileName(spec *fio.Job, clone, f int) string {
	n := fmt.Sprintf("%s.%d.%d", spec.Name, clone, f)
	if spec.Directory != "" && !filepath.IsAbs(n) {
		n = filepath.Join(spec.Directory, n)
	}
	return n
}
