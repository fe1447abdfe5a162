package fio

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Options fio 3.33 takes whose effect blkq does not model. A job file is
// run the way fio would run it or not at all: an option that would make
// fio issue or report something blkq does not is an error naming the
// file, line and option, never a warning beside a run that quietly
// differs. The value that changes nothing (fio's default, and its
// synonyms) is accepted silently, so a job file that spells the default
// out still runs. Each entry says why blkq cannot follow the other values.
//
// Options that change nothing on blkq's devices are in inert.go; the ones
// blkq models are in options.go and the *opts.go files.

// refusal is one refused option: the values that change nothing, and
// the reason the others cannot be run.
type refusal struct {
	name string
	// kind is how the value is checked before it is compared: "bool"
	// (0 or 1), "int" (an integer within lo..hi), "choice" (one of
	// choices, as fio matches them) or "any" (every value is refused).
	kind    string
	lo, hi  int64
	choices []string
	// ok are the values that change nothing, as written after the kind's
	// check ("0" for a bool that is off).
	ok  []string
	why string
}

var refusals = []refusal{
	{name: "allow_file_create", kind: "bool", ok: []string{"1"},
		why: "blkq lays every job's file out on its device as fio lays out a file it creates; a file that must exist beforehand (allow_file_create=0) is not modelled"},
	{name: "block_error_percentiles", kind: "bool", ok: []string{"0"},
		why: "blkq does not report fio's histogram of trimmed blocks' errors"},
	{name: "exec_prerun", kind: "any", why: "blkq runs no programs before a job"},
	{name: "exec_postrun", kind: "any", why: "blkq runs no programs after a job"},
	{name: "file_append", kind: "bool", ok: []string{"0"},
		why: "blkq's files are extents of its device laid out afresh: I/O past the end of an existing file is not modelled"},
	{name: "lockfile", kind: "choice", choices: []string{"none", "exclusive", "readwrite"}, ok: []string{"none"},
		why: "file locks between jobs that share a file are not modelled"},
	{name: "log_unix_epoch", kind: "bool", ok: []string{"0"},
		why: "blkq's logs are stamped in ms since the job's start (on a simulated device, virtual time): Unix-epoch stamps are not modelled"},
	{name: "log_alternate_epoch", kind: "bool", ok: []string{"0"},
		why: "blkq's logs are stamped in ms since the job's start (on a simulated device, virtual time): another clock's epoch is not modelled"},
	{name: "log_store_compressed", kind: "bool", ok: []string{"0"},
		why: "blkq writes its logs as text, not fio's compressed .fz files"},
	{name: "merge_blktrace_file", kind: "any", why: "merging several blktrace files into one replay is not modelled"},
	{name: "merge_blktrace_iters", kind: "any", why: "merging several blktrace files into one replay is not modelled"},
	{name: "merge_blktrace_scalars", kind: "any", why: "merging several blktrace files into one replay is not modelled"},
	{name: "opendir", kind: "any", why: "adding the files found under a directory is not modelled: name them with filename="},
	{name: "profile", kind: "any", why: "fio's built-in profiles (tiobench, act) are not modelled"},
	{name: "sync_file_range", kind: "any", why: "sync_file_range's write-back of a range is not modelled (fsync=, fdatasync= are)"},
	{name: "unified_rw_reporting", kind: "choice", choices: []string{"none", "mixed", "both", "0", "1", "2"}, ok: []string{"none", "0"},
		why: "blkq reports reads, writes and trims apart; fio's mixed figures are not modelled"},
	{name: "significant_figures", kind: "int", lo: 1, hi: 10, ok: []string{"4"},
		why: "blkq's normal output prints fio's default of 4 significant figures"},
	{name: "unit_base", kind: "choice", choices: []string{"0", "8", "1"}, ok: []string{"0", "8"},
		why: "blkq reports bytes, as fio does for its block engines; bit-based units are not modelled"},
	{name: "stats", kind: "bool", ok: []string{"1"},
		why: "a job without statistics (stats=0) is not modelled"},
	{name: "bwavgtime", kind: "int", lo: 0, hi: math.MaxInt32, ok: []string{"500"},
		why: "blkq takes the report's bandwidth samples over fio's default 500 ms"},
	{name: "iopsavgtime", kind: "int", lo: 0, hi: math.MaxInt32, ok: []string{"500"},
		why: "blkq takes the report's IOPS samples over fio's default 500 ms"},
	// The options of rw patterns fio 3.33 no longer has: fio refuses the
	// job ("Option rwmixcycle is deprecated", then "failed parsing").
	{name: "rwmixcycle", kind: "any", why: "fio 3.33 refuses it: the option is deprecated (fio: failed parsing, the job is dropped)"},
	{name: "percentage_sequential", kind: "any", why: "fio 3.33 refuses it: the option is deprecated, use percentage_random (fio: failed parsing, the job is dropped)"},
	// Options of the engines blkq emulates whose effect it does not.
	{name: "nowait", kind: "bool", ok: []string{"0"},
		why: "RWF_NOWAIT's I/O that fails with EAGAIN instead of waiting is not modelled"},
	{name: "uncached", kind: "int", lo: math.MinInt32, hi: math.MaxInt32, ok: []string{"0"},
		why: "RWF_UNCACHED buffered I/O is not modelled"},
}

// refusedSetter checks an occurrence of r's option.
func refusedSetter(r refusal) func(*Job, *optCtx) error {
	return func(j *Job, c *optCtx) error {
		v := strings.TrimSpace(c.value)
		switch r.kind {
		case "bool":
			b, err := parseBool(v)
			if err != nil {
				return err
			}
			v = "0"
			if b {
				v = "1"
			}
		case "int":
			n, err := parseInt(v, c.kb, r.lo, r.hi)
			if err != nil {
				return err
			}
			v = fmt.Sprint(n)
		case "choice":
			if !slices.Contains(r.choices, v) {
				return badValue("bad value", c.value, "want one of %s", strings.Join(r.choices, ", "))
			}
		}
		if r.kind != "any" && slices.Contains(r.ok, v) {
			return nil
		}
		return fmt.Errorf("%s=%s is not modelled: %s", r.name, c.value, r.why)
	}
}

func init() {
	for _, r := range refusals {
		s, ok := optionTable[r.name]
		if !ok || s.set != nil {
			panic("fio: refused option " + r.name + " is not a known, unmodelled option")
		}
		s.set = refusedSetter(r)
	}
}

// Options refused only in some jobs: they change nothing in the others,
// as in fio. Validate checks them once the job is whole
// (checkConditional).
//
//   - fadvise_hint: blkq's page cache reads ahead by its own heuristics
//     (bcache), which stand for fio's default hint (1) and for none
//     (0); forcing FADV_RANDOM or FADV_SEQUENTIAL on a buffered job is
//     not modelled. Direct I/O bypasses the cache, so any hint is inert.
//   - max_open_zones, job_max_open_zones, ignore_zone_limits,
//     read_beyond_wp, zone_reset_frequency, zone_reset_threshold,
//     zonecapacity: zonemode=zbd's options, without effect in other zone
//     modes; blkq does not model zbd's zones.
var zbdOptions = []string{"max_open_zones", "job_max_open_zones", "ignore_zone_limits", "read_beyond_wp",
	"zone_reset_frequency", "zone_reset_threshold", "zonecapacity"}

// conditional holds what checkConditional needs of a job's options.
type conditional struct {
	fadvise string   // fadvise_hint= as written, "" unset
	zbd     []string // zbd options set, canonical names
}

func init() {
	optionTable["fadvise_hint"].set = func(j *Job, c *optCtx) error {
		return setChoice(&j.cond.fadvise, c, "0", "1", "random", "sequential")
	}
	for _, n := range zbdOptions {
		optionTable[n].set = func(j *Job, c *optCtx) error {
			if !slices.Contains(j.cond.zbd, n) {
				j.cond.zbd = append(j.cond.zbd, n)
			}
			return nil
		}
	}
}

// checkConditional refuses the options of conditional that change what
// j would issue.
func checkConditional(j *Job, fail func(opt, val, format string, args ...any)) {
	c := &j.cond
	if !j.Direct && (c.fadvise == "random" || c.fadvise == "sequential") {
		fail("fadvise_hint", c.fadvise, "fadvise_hint=%s on a buffered job is not modelled: blkq's page cache reads ahead by its own heuristics (fadvise_hint=0 or 1)", c.fadvise)
	}
	if j.ZoneMode == "zbd" && len(c.zbd) > 0 {
		fail(c.zbd[0], "", "%s is an option of zonemode=zbd, whose zones blkq does not model", c.zbd[0])
	}
}
