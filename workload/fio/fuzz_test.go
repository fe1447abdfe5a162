package fio

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParse: no input panics, and every failure is a *ParseError that names
// a line. Seeds are the fio 3.33 corpus plus a few odd strings.
func FuzzParse(f *testing.F) {
	for _, path := range corpusFiles(f) {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range []string{
		"",
		"[",
		"[]",
		"[global]\n",
		"[j]\nbs=(((((1)))))\n",
		"[j]\nsize=($mb_memory*$ncpus)\nbs=$pagesize-8k\n",
		"[j]\nbssplit=4k/50:8k:,16k/100,\n",
		"[j]\nrw=read:-(1k)\nstartdelay=1:2\n",
		"[j]\nfilename=\\:\\:\\\nuri=${X}${\n",
		"\ufeff[j]\r\nthinktime=(2^62)\r\n",
		"[a]\nwait_for=a\nstonewall\n[global]\nnew_group\n[b]\n",
		"[j]\nrate=1k,,2k\nrate_iops=,\n",
		"[j]\nrandom_distribution=zoned:50/5:30/15:20/80,,100/100\nrate_process=poisson\n",
		"[j]\nrandom_distribution=zoned_abs:60/1m:40/2m\nrandom_generator=lfsr\nthinktime_iotime=1s\n",
		"[j]\nrandom_distribution=zipf:1.2:0.5\nthinktime_spin=10\nthinktime_blocks_type=issue\n",
		"[j]\niodepth_batch=0\niodepth_batch_complete=(2*2)\nlatency_target=1ms\nlatency_percentile=99.9\nio_submit_mode=offload\n",
		"[j]\nnice=-20\n",
		"[j]\nignore_error=EIO:-5:,ENOSPC:28,84\ncontinue_on_error=io\nerror_dump=1\n",
		"[j]\nss=bw_slope:1%\nss_dur=10s\nss_ramp=5\n[k]\nss=iops:10\n",
		"[j]\nioengine=libaio\ncmdprio_bssplit=64k/25/1/1:64k/:1m/0,1m/100\nprio=7\nprioclass=2\n",
		"[j]\nbuffer_pattern=\"abcd\"-120xdeadface\nverify_pattern=0xff0x14'x'%o\n",
		"[j]\nbuffer_compress_percentage=50\nbuffer_compress_chunk=4k\ndedupe_percentage=30\ndedupe_mode=working_set\n",
		"[j]\nzero_buffers\nrefill_buffers=0\nscramble_buffers=0\nfill_fs=1\nfallocate=keep\ninvalidate=0\n",
		"[j]\nrw=randread:4\npercentage_random=30,,10\nrw_sequencer=identical\nbs_is_seq_rand=1\nbs_unaligned\n",
		"[j]\nnrfiles=4\nfile_service_type=zipf:1.2:0.25\nopenfiles=2\n[k]\nfile_service_type=random:3\n",
		"[j]\nioscheduler=linus\nsync=dsync\natomic=1\nfsync_on_close=1\nunlink_each_loop=1\npre_read=1\n",
		"[j]\nmax_latency=10ms,,1s\nexitall_on_error\ngtod_reduce=1\ndisable_bw=0\ndisk_util=0\n",
		"[j]\nverify=md5\nrw=trimwrite\ntrim_percentage=50\ntrim_backlog=8\ntrim_backlog_batch=2\ntrim_verify_zero=0\n",
		"[j]\nzonemode=strided\nzonesize=1m\nzonerange=4m\nzoneskip=1m\n",
		"[global]\nioengine=net\nport=1\n[j]\nioengine=io_uring\nhipri\nnowait=0\nuncached=0\nba=4k\nfadvise_hint=0\n",
		"[j]\nlockfile=none\nunified_rw_reporting=0\nsignificant_figures=4\nunit_base=8\nstats=1\nbwavgtime=500\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		env := func(k string) string {
			if k == "X" {
				return "4k"
			}
			return ""
		}
		jf, err := ParseConfig("fuzz.fio", src, Config{Env: env, Keywords: &testKeywords})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.File != "fuzz.fio" {
				t.Fatalf("error %v (%T) is not a *ParseError with a line", err, err)
			}
			if n := len(err.Error()); n > maxErrorLen {
				t.Fatalf("error of %d bytes: %.300q", n, err.Error())
			}
			if jf != nil {
				t.Fatal("both a job file and an error")
			}
			return
		}
		if jf == nil {
			t.Fatal("no job file and no error")
		}
		// Bounded output: at most a job a line, each at most MaxJobs clones.
		clones := 0
		for _, j := range jf.Jobs {
			clones += j.NumJobs
		}
		if lines := bytes.Count(src, []byte("\n")) + 1; len(jf.Jobs) > lines || clones > MaxJobs {
			t.Fatalf("%d jobs (%d clones) from %d lines", len(jf.Jobs), clones, lines)
		}
		for _, j := range jf.Jobs {
			for d := range 3 {
				if j.BS[d].Min < 1 || j.BS[d].Min > j.BS[d].Max {
					t.Fatalf("job %q: bad bs %v", j.Name, j.BS)
				}
			}
			if j.NumJobs < 1 || j.IODepth < 1 || j.Loops < 1 || j.RWMixRead < 0 || j.RWMixRead > 100 {
				t.Fatalf("job %q: out of range %+v", j.Name, j)
			}
			if j.NumInherited > len(j.Options) {
				t.Fatalf("job %q: NumInherited %d > %d options", j.Name, j.NumInherited, len(j.Options))
			}
		}
		if err := Validate(jf); err != nil {
			for _, e := range unjoin(err) {
				if n := len(e.Error()); n > maxErrorLen {
					t.Fatalf("Validate error of %d bytes: %.300q", n, e.Error())
				}
			}
		}
		if !bytes.ContainsAny(src, "$") {
			checkOptionsRoundTrip(t, jf)
		}
	})
}

// maxErrorLen bounds an error message: file, line, option and a quote of
// at most maxQuote bytes of input (twice: the value and a part of it).
const maxErrorLen = 3*maxQuote + 300

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// checkOptionsRoundTrip: each job's Options, written back as a job file
// ([global] for the inherited ones, then the job's own), parse to the same
// typed job. Names, lines and grouping are the writer's, not compared.
func checkOptionsRoundTrip(t *testing.T, jf *JobFile) {
	t.Helper()
	for _, j := range jf.Jobs {
		var b strings.Builder
		emit := func(opts [][2]string) {
			for _, o := range opts {
				spec, ok := lookupOption(o[0])
				if !ok {
					t.Fatalf("job %q lists unknown option %q", j.Name, o[0])
				}
				if o[1] == "" && spec.set != nil {
					b.WriteString(o[0] + "\n")
				} else {
					b.WriteString(o[0] + "=" + o[1] + "\n")
				}
			}
		}
		b.WriteString("[global]\n")
		emit(j.Options[:j.NumInherited])
		b.WriteString("[j]\n")
		emit(j.Options[j.NumInherited:])
		again, err := ParseConfig("again.fio", []byte(b.String()), Config{Keywords: &testKeywords})
		if err != nil {
			t.Fatalf("job %q written back does not parse: %v\n%s", j.Name, err, b.String())
		}
		if len(again.Jobs) != 1 {
			t.Fatalf("job %q written back is %d jobs", j.Name, len(again.Jobs))
		}
		want, got := *j, *again.Jobs[0]
		for _, c := range []*Job{&want, &got} {
			c.Name, c.Line, c.lines, c.Options, c.NumInherited, c.GroupID = "", 0, nil, nil, 0, 0
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("job %q written back differs:\nwant %+v\ngot  %+v\n%s", j.Name, want, got, b.String())
		}
	}
}

// FuzzValues feeds the value parsers (sizes, times, ranges, per-direction
// lists, bssplit and arithmetic) arbitrary strings: no panic, errors of
// bounded length, non-negative sizes, and a size written back in decimal
// or with its largest exact unit reads the same.
func FuzzValues(f *testing.F) {
	for _, s := range []string{"4k", "0x1000", "-8k", "(2*4k)", "(2^62+2^62)", "1mib", "8192p", "10m", "500ms",
		"(1s+500ms)", "1s-5s", "4k-8k:16k", "4k/50:8k:", "1k,,2k", "((((1))))", "9223372036854775807", "2^63", "1z", "50%",
		"4k-", "1.5k", "4kx", "0x10k", "20%x", "50.5%", "4k/50:8k/60", "4k/50:8k/60:16k", "4k/-5:8k/x", "+64k",
		"random:4", "sequential", "roundrobin:0", "zipf:1.2:0.5", "pareto:0.3", "gauss", "normal:99.9"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, kb1000 bool) {
		kb := int64(1024)
		if kb1000 {
			kb = 1000
		}
		bounded := func(what string, err error) {
			if err != nil && len(err.Error()) > maxErrorLen {
				t.Fatalf("%s(%.40q): error of %d bytes", what, s, len(err.Error()))
			}
		}
		n, err := parseSize(s, kb)
		bounded("parseSize", err)
		if err == nil {
			if n < 0 {
				t.Fatalf("parseSize(%q) = %d", s, n)
			}
			if m, err := parseSize(strconv.FormatInt(n, 10), kb); err != nil || m != n {
				t.Fatalf("parseSize(%q) = %d, but %d reads back as %d, %v", s, n, n, m, err)
			}
			if u := withUnit(n, kb); u != "" {
				if m, err := parseSize(u, kb); err != nil || m != n {
					t.Fatalf("parseSize(%q) = %d, but %q reads back as %d, %v", s, n, u, m, err)
				}
			}
		}
		_, err = parseSignedSize(s, kb)
		bounded("parseSignedSize", err)
		d, err := parseDuration(s, time.Second)
		bounded("parseDuration", err)
		if err == nil && d < 0 {
			t.Fatalf("parseDuration(%q) = %v", s, d)
		}
		r, err := parseSizeRange(s, kb)
		bounded("parseSizeRange", err)
		if err == nil && (r.Min < 0 || r.Min > r.Max) {
			t.Fatalf("parseSizeRange(%q) = %+v", s, r)
		}
		dr, err := parseDurationRange(s, time.Microsecond)
		bounded("parseDurationRange", err)
		if err == nil && (dr[0] < 0 || dr[0] > dr[1]) {
			t.Fatalf("parseDurationRange(%q) = %v", s, dr)
		}
		_, _, err = dirParts(s)
		bounded("dirParts", err)
		sp, err := parseBSSplit(s, kb)
		bounded("parseBSSplit", err)
		if err == nil {
			sum := 0
			for _, x := range sp {
				if x.BS <= 0 || x.Percent < 0 || x.Percent > 100 {
					t.Fatalf("parseBSSplit(%q) = %+v", s, sp)
				}
				sum += x.Percent
			}
			// Shares may add up to more than 100, as in fio.
			if len(sp) == 0 || len(sp) > maxSplitEntries || sum > 100*len(sp) {
				t.Fatalf("parseBSSplit(%q) = %+v", s, sp)
			}
		}
		_, _, err = parseSizeOrPercent(s, kb)
		bounded("parseSizeOrPercent", err)
		fs, err := parseFileService(s)
		bounded("parseFileService", err)
		if err == nil {
			ok := fs.N >= 0 && (fs.Center == -1 || fs.Center >= 0 && fs.Center <= 1)
			switch fs.Kind {
			case "roundrobin", "sequential", "random":
			case "zipf":
				ok = ok && fs.Param != 1
			case "pareto":
				ok = ok && fs.Param > 0 && fs.Param < 1
			case "normal":
				ok = ok && fs.Param >= 0 && fs.Param < 100
			default:
				ok = false
			}
			if !ok {
				t.Fatalf("parseFileService(%q) = %+v", s, fs)
			}
		}
	})
}

// withUnit writes n with the largest suffix that divides it exactly
// ("4k" for 4096 under kb_base=1024), or "" when none does.
func withUnit(n, kb int64) string {
	if n == 0 {
		return ""
	}
	out := ""
	m := int64(1)
	for _, u := range []string{"k", "m", "g", "t", "p"} {
		m *= kb
		if n%m != 0 {
			break
		}
		out = strconv.FormatInt(n/m, 10) + u
	}
	return out
}
