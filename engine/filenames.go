package engine

import (
	"strconv"
	"strings"

	"github.com/blkq-dev/blkq/workload/fio"
)

// The names fio gives a job's files when filename= names none (init.c's
// make_filename, read for behaviour): filename_format, by default
// "$jobname.$jobnum.$filenum", with each keyword replaced wherever it
// stands, whatever its case: $jobname by the job's name, $jobnum by the
// clone's number (0 for the job itself), $filenum by the file's (0 to
// nrfiles-1) and $clientuid by the client's address in fio's
// client/server mode, which blkq has not: empty, as in a fio that runs
// alone. fio rescans the name after each replacement, so a job name
// holding a keyword would never end; blkq replaces each occurrence
// once, left to right.

// A clone does not add a file its job's or an earlier numjobs job's
// names already hold (fio's "clean cloned siblings using existing
// files": filename_format=shared.$filenum with numjobs=4 gives one job
// the file and three clones none, which do no I/O), unless the name is
// a device's. Only names of jobs with numjobs > 1 count, as fio records
// only those; filename= files are the clone's own either way.

// cloneFiles returns the generated names of clone clone that it keeps,
// and records those of a job with clones.
func (r *runner) cloneFiles(spec *fio.Job, clone int, names []string) []string {
	if len(spec.Filenames) > 0 {
		return names
	}
	if r.cloneNames == nil {
		r.cloneNames = map[string]bool{}
	}
	var kept []string
	for _, n := range names {
		if clone > 0 && r.cloneNames[n] && !isDeviceName(n) {
			continue
		}
		kept = append(kept, n)
		if spec.NumJobs > 1 {
			r.cloneNames[n] = true
		}
	}
	return kept
}

// fioFileName is the name of file filenum of clone clone of job name,
// under format ("" for fio's default).
func fioFileName(format, name string, clone, filenum int) string {
	if format == "" {
		return name + "." + strconv.Itoa(clone) + "." + strconv.Itoa(filenum)
	}
	s := format
	for _, kw := range [...]struct{ key, val string }{
		{"$jobname", name},
		{"$jobnum", strconv.Itoa(clone)},
		{"$filenum", strconv.Itoa(filenum)},
		{"$clientuid", ""},
	} {
		s = replaceFold(s, kw.key, kw.val)
	}
	return s
}

// replaceFold replaces every occurrence of key (lower-case ASCII) in s,
// in any case.
func replaceFold(s, key, val string) string {
	var b strings.Builder
	low := []byte(s) // byte for byte, so that indices stay s's
	for i, c := range low {
		if 'A' <= c && c <= 'Z' {
			low[i] = c + 'a' - 'A'
		}
	}
	lower := string(low)
	for {
		i := strings.Index(lower, key)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(val)
		s, lower = s[i+len(key):], lower[i+len(key):]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	return b.String()
}
