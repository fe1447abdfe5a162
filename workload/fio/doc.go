// Package fio reads fio job files (the fio 3.33 dialect) into typed jobs for
// blkq's workload runner.
//
// Parse follows fio: INI sections where [global] sets defaults for the jobs
// below it, ';' and '#' comments (also after a value), bare flags, ${VAR}
// from the environment, the $pagesize, $mb_memory and $ncpus keywords,
// arithmetic in ( ), sizes with kb_base-dependent suffixes, times, ranges,
// per-direction values "R,W,T" and bssplit.
//
// Every option is one of three kinds:
//   - modelled: parsed into a field of Job (bs, rw, iodepth, runtime, ...);
//     a malformed value is a *ParseError;
//   - known but not modelled: any other name fio 3.33 accepts, including
//     engine options; recorded once per name in JobFile.Ignored so the
//     caller can warn;
//   - unknown: a *ParseError naming file, line and option.
//
// Bounds: ParseFile reads at most MaxFileSize bytes; a file may define at
// most MaxJobs jobs, numjobs clones included (fio's limit); values, sums and
// products that overflow an int64 are errors naming the option; error
// messages quote at most 200 bytes of the input.
//
// Where fio's HOWTO and Debian's fio 3.33-3 binary disagree, the package
// follows the binary; values.go and knownopts.go say where.
package fio
