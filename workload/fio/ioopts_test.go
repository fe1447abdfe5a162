package fio

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEveryOptionHasAFate: every name fio 3.33 accepts is modelled (it
// has a setter: into Job, or one that refuses what blkq cannot run) or
// inert (ignored silently, README lists it); none is merely warned about.
func TestEveryOptionHasAFate(t *testing.T) {
	for name, s := range optionTable {
		if s.set == nil && !inertOptions[name] {
			t.Errorf("%s: neither modelled, refused nor inert", name)
		}
		if s.set != nil && inertOptions[name] {
			t.Errorf("%s: both modelled and inert", name)
		}
	}
}

// parseErr parses src and returns its *ParseError (failing if it parses).
func parseErr(t *testing.T, src string) *ParseError {
	t.Helper()
	jf, err := ParseConfig("test.fio", []byte(src), Config{Keywords: &testKeywords})
	if err == nil {
		err = Validate(jf)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("parse %q: got %v, want a *ParseError", src, err)
	}
	return pe
}

// TestEngineOptionsBelongToTheirEngine: as fio 3.33 (Debian's binary), an
// engine's option under another engine is an error at its line, checked
// against the engine in force at the end of the section, and one taken in
// [global] under its engine stays harmless in a job with another.
func TestEngineOptionsBelongToTheirEngine(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int // 0: parses
	}{
		{"[j]\nioengine=psync\nhipri\n", 3},
		{"[j]\nhipri\n", 2},                          // the default engine, psync
		{"[global]\nport=1\n[j]\nioengine=net\n", 2}, // [global] under psync
		{"[global]\nioengine=net\nport=1\n[j]\nioengine=psync\n", 0},
		{"[j]\nport=1\nioengine=net\n", 0}, // the section's engine at its end
		{"[j]\nioengine=io_uring\nhipri\nfixedbufs\nsqthread_poll=1\n", 0},
		{"[j]\nioengine=pvsync2\nhipri\nhipri_percentage=50\n", 0},
		{"[j]\nioengine=pvsync2\nfixedbufs\n", 3},
		{"[j]\nioengine=libaio\nuserspace_reap\n", 0},
		{"[j]\nioengine=io_uring\nuserspace_reap\n", 3},
		{"[j]\nioengine=psync\nuri=nbd://x\n", 3},
		{"[j]\nioengine=nbd\nuri=nbd://x\n", 0},
		{"[global]\nioengine=libaio\n[j]\nuserspace_reap\n", 0}, // inherits libaio
	} {
		if tc.line == 0 {
			parseString(t, tc.src, nil)
			continue
		}
		pe := parseErr(t, tc.src)
		if pe.Line != tc.line || !strings.Contains(pe.Msg, "Bad option") {
			t.Errorf("%q: %v; want an error at line %d", tc.src, pe, tc.line)
		}
	}
}

// TestRefusedOptions: a refused option's value that changes nothing is
// taken silently, any other is an error naming the file, line and
// option, and a malformed one is an error too.
func TestRefusedOptions(t *testing.T) {
	for _, r := range refusals {
		bad := map[string]string{"bool": "1", "int": "7", "choice": "", "any": "x"}[r.kind]
		if r.kind == "bool" && r.ok[0] == "1" {
			bad = "0"
		}
		if r.kind == "choice" {
			for _, c := range r.choices {
				if !slices.Contains(r.ok, c) {
					bad = c
					break
				}
			}
		}
		head := "[j]\nsize=1m\n"
		if owners := engineOwners[r.name]; owners != nil {
			head = "[j]\nioengine=" + owners[0] + "\n"
		}
		for _, ok := range r.ok {
			jf := parseString(t, head+r.name+"="+ok+"\n", nil)
			if len(jf.Ignored) != 0 {
				t.Errorf("%s=%s: recorded as ignored", r.name, ok)
			}
		}
		pe := parseErr(t, head+r.name+"="+bad+"\n")
		if pe.File != "test.fio" || pe.Line != 3 || pe.Option != r.name || !strings.Contains(pe.Msg, "not modelled") {
			t.Errorf("%s=%s: %v; want an error at test.fio:3 naming the option", r.name, bad, pe)
		}
		if r.kind == "bool" || r.kind == "int" || r.kind == "choice" {
			if pe := parseErr(t, head+r.name+"=zz\n"); pe.Line != 3 || strings.Contains(pe.Msg, "not modelled") {
				t.Errorf("%s=zz: %v; want a bad value at line 3", r.name, pe)
			}
		}
	}
}

// TestConditionalRefusals: fadvise_hint and zonemode=zbd's options are
// refused only where they would change the I/O.
func TestConditionalRefusals(t *testing.T) {
	for _, tc := range []struct {
		body, opt string // opt "": runs
	}{
		{"direct=1\nfadvise_hint=random", ""},
		{"fadvise_hint=0", ""},
		{"fadvise_hint=1", ""},
		{"fadvise_hint=sequential", "fadvise_hint"},
		{"max_open_zones=4\nzonecapacity=1m", ""},
		{"zonemode=zbd\nzonesize=1m\nmax_open_zones=4", "max_open_zones"},
	} {
		src := "[j]\nsize=1m\n" + tc.body + "\n"
		if tc.opt == "" {
			if err := Validate(parseString(t, src, nil)); err != nil {
				t.Errorf("%q: %v", tc.body, err)
			}
			continue
		}
		if pe := parseErr(t, src); pe.Option != tc.opt || pe.Line < 3 {
			t.Errorf("%q: %v; want an error at %s's line", tc.body, pe, tc.opt)
		}
	}
}

// TestNewlyModelledValues: the value syntaxes of the options that change
// the I/O, with fio's defaults, per-direction forms and bounds.
func TestNewlyModelledValues(t *testing.T) {
	def := job(t, "")
	if def.PercentageRandom != [3]int{100, 100, 100} || def.RWSequencer != "sequential" ||
		def.Files.Service != (FileService{Kind: "roundrobin", N: 1, Center: -1}) || def.Files.Sync != "" ||
		!def.Trim.VerifyZero || !def.Stats.DiskUtil || def.IOScheduler != "" {
		t.Fatalf("defaults: %+v", def)
	}
	for _, tc := range []struct {
		body  string
		check func(j *Job) bool
	}{
		{"percentage_random=30", func(j *Job) bool { return j.PercentageRandom == [3]int{30, 30, 30} }},
		{"percentage_random=30,60", func(j *Job) bool { return j.PercentageRandom == [3]int{30, 60, 60} }},
		{"percentage_random=30,60,0", func(j *Job) bool { return j.PercentageRandom == [3]int{30, 60, 0} }},
		{"percentage_random=,10", func(j *Job) bool { return j.PercentageRandom == [3]int{100, 10, 10} }},
		{"rw_sequencer=identical", func(j *Job) bool { return j.RWSequencer == "identical" }},
		{"ba=512", func(j *Job) bool { return j.BlockAlign == [3]int64{512, 512, 512} }},
		{"blockalign=,8k", func(j *Job) bool { return j.BlockAlign == [3]int64{0, 8192, 8192} }},
		{"bs_is_seq_rand=1\nbs_unaligned", func(j *Job) bool { return j.BSIsSeqRand && j.BSUnaligned }},
		{"blocksize_unaligned=1", func(j *Job) bool { return j.BSUnaligned }},
		{"file_service_type=sequential", func(j *Job) bool { return j.Files.Service == FileService{Kind: "sequential", N: 1, Center: -1} }},
		{"file_service_type=random:4", func(j *Job) bool { return j.Files.Service == FileService{Kind: "random", N: 4, Center: -1} }},
		{"file_service_type=roundrobin:0", func(j *Job) bool { return j.Files.Service.N == 0 }},
		{"file_service_type=zipf", func(j *Job) bool { return j.Files.Service == FileService{Kind: "zipf", N: 1, Param: 1.1, Center: -1} }},
		{"file_service_type=pareto:0.3:0.5", func(j *Job) bool {
			return j.Files.Service == FileService{Kind: "pareto", N: 1, Param: 0.3, Center: 0.5} && j.Files.Service.Nonuniform()
		}},
		{"file_service_type=gauss", func(j *Job) bool { return j.Files.Service == FileService{Kind: "normal", N: 1, Param: 0, Center: -1} }},
		{"file_service_type=normal:5", func(j *Job) bool { return j.Files.Service.Param == 5 }},
		{"openfiles=2", func(j *Job) bool { return j.Files.OpenFiles == 2 }},
		{"ioscheduler=mq-deadline", func(j *Job) bool { return j.IOScheduler == "mq-deadline" }},
		{"sync=1", func(j *Job) bool { return j.Files.Sync == "sync" }},
		{"sync=sync", func(j *Job) bool { return j.Files.Sync == "sync" }},
		{"sync=dsync", func(j *Job) bool { return j.Files.Sync == "dsync" }},
		{"sync=1\nsync=none", func(j *Job) bool { return j.Files.Sync == "" }},
		{"atomic=1\ndirect=0", func(j *Job) bool { return j.Direct && j.Files.Atomic }},
		{"fsync_on_close=1\nunlink=1\nunlink_each_loop=1\ncreate_only=1\npre_read=1", func(j *Job) bool {
			f := j.Files
			return f.FsyncOnClose && f.Unlink && f.UnlinkEachLoop && f.CreateOnly && f.PreRead
		}},
		{"exitall_on_error", func(j *Job) bool { return j.ExitAllOnError }},
		{"max_latency=500", func(j *Job) bool {
			return j.Queue.MaxLatency == [3]time.Duration{500 * time.Microsecond, 500 * time.Microsecond, 500 * time.Microsecond}
		}},
		{"max_latency=1ms,20ms", func(j *Job) bool {
			return j.Queue.MaxLatency == [3]time.Duration{time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}
		}},
		{"zonemode=strided\nzonesize=1m\nzonerange=4m", func(j *Job) bool { return j.ZoneRange == 4<<20 }},
		{"trim_percentage=30\ntrim_verify_zero=0\ntrim_backlog=8\ntrim_backlog_batch=2", func(j *Job) bool {
			return j.Trim == TrimVerify{Percentage: 30, Backlog: 8, BacklogBatch: 2}
		}},
		{"disable_lat=1\ndisable_clat=1\ndisable_slat=1\ndisable_bw=1\ndisk_util=0", func(j *Job) bool {
			s := j.Stats
			return s.DisableLat && s.DisableClat && s.DisableSlat && s.DisableBW && !s.DiskUtil
		}},
		{"gtod_reduce=1", func(j *Job) bool {
			s := j.Stats
			return s.DisableLat && s.DisableClat && s.DisableSlat && s.DisableBW && !s.ClatPercentiles
		}},
		{"gtod_reduce=1\nclat_percentiles=1\ndisable_clat=0", func(j *Job) bool {
			return j.Stats.ClatPercentiles && !j.Stats.DisableClat && j.Stats.DisableLat
		}},
		{"gtod_reduce=0", func(j *Job) bool { return !j.Stats.DisableLat && j.Stats.ClatPercentiles }},
	} {
		if j := job(t, tc.body); !tc.check(j) {
			t.Errorf("%q: %+v", tc.body, j)
		}
	}
	for _, bad := range []string{
		"percentage_random=101", "percentage_random=-1", "percentage_random=1,2,3,4",
		"file_service_type=randomx", "file_service_type=RANDOM", "file_service_type=random:x",
		"file_service_type=zipf:1", "file_service_type=zipf:abc", "file_service_type=pareto:1.5",
		"file_service_type=gauss:100", "file_service_type=zipf:1.2:2",
		"rw_sequencer=same", "sync=2", "ioscheduler=a b", "max_latency=-1", "trim_percentage=101",
		"openfiles=-1", "rwmixcycle=5", "percentage_sequential=5", "ba=0",
	} {
		if pe := parseErr(t, "[j]\n"+bad+"\n"); pe.Line != 2 {
			t.Errorf("%s: %v; want an error at line 2", bad, pe)
		}
	}
}
