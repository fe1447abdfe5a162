package fio

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// testKeywords make $keyword results independent of the machine.
var testKeywords = Keywords{PageSize: 4096, MBMemory: 2048, NCPUs: 2}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func parseString(t *testing.T, src string, env map[string]string) *JobFile {
	t.Helper()
	jf, err := ParseConfig("test.fio", []byte(src), Config{Env: mapEnv(env), Keywords: &testKeywords})
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return jf
}

// job parses "[j]\n" + body and returns the one job.
func job(t *testing.T, body string) *Job {
	t.Helper()
	jf := parseString(t, "[j]\n"+body+"\n", nil)
	if len(jf.Jobs) != 1 {
		t.Fatalf("%d jobs", len(jf.Jobs))
	}
	return jf.Jobs[0]
}

func TestDefaults(t *testing.T) {
	j := job(t, "")
	want := newJob("j", 1)
	want.Options = [][2]string{}
	if !reflect.DeepEqual(j, want) {
		t.Errorf("defaults\n got %+v\nwant %+v", j, want)
	}
	if j.RandSeed != 137 || !j.RandRepeat || j.IOEngine != "psync" || j.RW != RWRead || j.RWMixRead != 50 ||
		j.BS != [3]Range{{4096, 4096}, {4096, 4096}, {4096, 4096}} || j.NumJobs != 1 || j.IODepth != 1 ||
		j.Loops != 1 || j.KBBase != 1024 || j.ExitWhat != "group" || j.ZoneMode != "none" || j.NrFiles != 1 {
		t.Errorf("defaults %+v", j)
	}
}

func TestComments(t *testing.T) {
	src := "; leading comment\n" +
		"# another\n" +
		"   ; indented comment\n" +
		"\n" +
		"[global]   ; comment after a header\n" +
		"numjobs=4\t; 4 simultaneous threads\n" +
		"ioengine=libaio \n" +
		"  bs = 8k # spaces around '='\n" +
		"\t\n" +
		"[j] # trailing\r\n" +
		"time_based ; a bare flag with a comment\r\n" +
		"description=words; more words\n"
	jf := parseString(t, src, nil)
	j := jf.Jobs[0]
	if j.Name != "j" || j.Line != 10 || j.NumJobs != 4 || j.IOEngine != "libaio" || j.BS[0].Min != 8192 || !j.TimeBased {
		t.Errorf("%+v", j)
	}
	if !hasOption(j.Options, "description", "words") {
		t.Errorf("options %v", j.Options)
	}
}

func TestBareFlags(t *testing.T) {
	j := job(t, "time_based\nnorandommap\ngroup_reporting\nstonewall\nthread\nnew_group\nexitall\nwrite_bw_log\nwait_for_previous")
	if !j.TimeBased || !j.NoRandomMap || !j.GroupReporting || !j.Stonewall || !j.Thread || !j.NewGroup || !j.ExitAll {
		t.Errorf("%+v", j)
	}
	j = job(t, "time_based=0\nthread=1\nstonewall=0")
	if j.TimeBased || !j.Thread || j.Stonewall {
		t.Errorf("explicit values: %+v", j)
	}
	if !hasOption(j.Options, "time_based", "0") {
		t.Errorf("options %v", j.Options)
	}
	// direct/buffered are booleans: 0/1 only.
	if j := job(t, "direct=1"); !j.Direct {
		t.Error("direct=1")
	}
	if j := job(t, "buffered=0"); !j.Direct {
		t.Error("buffered=0 is direct")
	}
	if j := job(t, "direct=1\nbuffered=1"); j.Direct {
		t.Error("later buffered=1 wins")
	}
}

func TestGlobalOrdering(t *testing.T) {
	src := `[global]
bs=8k
rw=randread
[a]
[global]
iodepth=4
bs=16k
[b]
bs=32k
[c]
[global]
name=ignored-for-jobs
`
	jf := parseString(t, src, nil)
	if len(jf.Jobs) != 3 {
		t.Fatalf("%d jobs", len(jf.Jobs))
	}
	a, b, c := jf.Jobs[0], jf.Jobs[1], jf.Jobs[2]
	if a.BS[0].Min != 8192 || a.IODepth != 1 || a.RW != RWRandRead {
		t.Errorf("a: %+v", a)
	}
	if b.BS[0].Min != 32768 || b.IODepth != 4 || b.RW != RWRandRead {
		t.Errorf("b: %+v", b)
	}
	if c.BS[0].Min != 16384 || c.IODepth != 4 || c.RW != RWRandRead {
		t.Errorf("c: %+v", c)
	}
	if b.NumInherited != 4 || !reflect.DeepEqual(b.Options[4:], [][2]string{{"bs", "32k"}}) {
		t.Errorf("b options %v (%d inherited)", b.Options, b.NumInherited)
	}
	// [Global] is an ordinary job: fio compares the name exactly.
	jf = parseString(t, "[Global]\nbs=8k\n[a]\n", nil)
	if len(jf.Jobs) != 2 || jf.Jobs[1].BS[0].Min != 4096 {
		t.Errorf("[Global]: %v", jobNames(jf))
	}
	// A file of globals only has no jobs (Validate says so).
	jf = parseString(t, "[global]\nbs=4k\n", nil)
	if len(jf.Jobs) != 0 || Validate(jf) == nil {
		t.Errorf("globals only: %d jobs", len(jf.Jobs))
	}
}

func TestJobName(t *testing.T) {
	jf := parseString(t, "[global]\nname=g\n[a]\n[b]\nname=renamed\n[ spaced ]\n", nil)
	if got := jobNames(jf); !reflect.DeepEqual(got, []string{"a", "renamed", " spaced "}) {
		t.Errorf("names %q", got)
	}
}

func TestGroups(t *testing.T) {
	src := `[global]
rw=read
[a]
stonewall
[b]
[c]
new_group
[d]
stonewall=0
[e]
new_group=0
[f]
wait_for_previous
[global]
stonewall
[g]
[h]
`
	jf := parseString(t, src, nil)
	if got := groupIDs(jf); !reflect.DeepEqual(got, []int{0, 0, 1, 1, 1, 2, 3, 4}) {
		t.Errorf("groups %v", got)
	}
}

func TestEnvAndKeywords(t *testing.T) {
	env := map[string]string{"DEV": "/dev/sdb", "BS": "64k", "N": "3"}
	tests := []struct {
		body  string
		check func(*Job) bool
	}{
		{"filename=${DEV}", func(j *Job) bool { return j.Filenames[0] == "/dev/sdb" }},
		{"filename=${DEV}1:${UNSET}x", func(j *Job) bool { return reflect.DeepEqual(j.Filenames, []string{"/dev/sdb1", "x"}) }},
		{"bs=${BS}", func(j *Job) bool { return j.BS[0].Min == 64<<10 }},
		{"numjobs=${N}", func(j *Job) bool { return j.NumJobs == 3 }},
		{"directory=${unterminated", func(j *Job) bool { return j.Directory == "${unterminated" }},
		{"bs=$pagesize", func(j *Job) bool { return j.BS[0].Min == 4096 }},
		{"numjobs=$ncpus", func(j *Job) bool { return j.NumJobs == 2 }},
		{"size=$mb_memory", func(j *Job) bool { return j.Size == 2048 }},
		// A substituted keyword may take part in bare arithmetic.
		{"size=8*$mb_memory", func(j *Job) bool { return j.Size == 8*2048 }},
		{"numjobs=$ncpus-1", func(j *Job) bool { return j.NumJobs == 1 }},
		{"iodepth=($ncpus*4)", func(j *Job) bool { return j.IODepth == 8 }},
		{"filename_format=$jobname.$jobnum.$filenum", func(j *Job) bool { return j.FilenameFormat == "$jobname.$jobnum.$filenum" }},
	}
	for _, tc := range tests {
		jf := parseString(t, "[j]\n"+tc.body+"\n", env)
		if !tc.check(jf.Jobs[0]) {
			t.Errorf("%s: %+v", tc.body, jf.Jobs[0])
		}
	}
	// Options carry expanded values.
	jf := parseString(t, "[j]\nfilename=${DEV}\nbs=$pagesize\n", env)
	if !reflect.DeepEqual(jf.Jobs[0].Options, [][2]string{{"filename", "/dev/sdb"}, {"bs", "4096"}}) {
		t.Errorf("options %v", jf.Jobs[0].Options)
	}
	// Parse with a nil env: everything unset.
	jf, err := Parse("x.fio", []byte("[j]\ndirectory=/a${X}/b\n"), nil)
	if err != nil || jf.Jobs[0].Directory != "/a/b" {
		t.Errorf("nil env: %v %+v", err, jf)
	}
}

func TestRWAndModifiers(t *testing.T) {
	tests := []struct {
		val string
		rw  RW
		mod int64
	}{
		{"read", RWRead, 0},
		{"write", RWWrite, 0},
		{"trim", RWTrim, 0},
		{"randread", RWRandRead, 0},
		{"randwrite", RWRandWrite, 0},
		{"randtrim", RWRandTrim, 0},
		{"rw", RWReadWrite, 0},
		{"readwrite", RWReadWrite, 0},
		{"randrw", RWRandRW, 0},
		{"trimwrite", RWTrimWrite, 0},
		{"randtrimwrite", RWRandTrimWrite, 0},
		{"write:4k", RWWrite, 4096},
		{"read:-8k", RWRead, -8192},
		{"write:112k", RWWrite, 112 << 10},
		{"rw:1m", RWReadWrite, 1 << 20},
		{"randread:8", RWRandRead, 8},
		{"randrw:16", RWRandRW, 16},
	}
	for _, tc := range tests {
		for _, opt := range []string{"rw", "readwrite"} {
			j := job(t, opt+"="+tc.val)
			if j.RW != tc.rw || j.RWModifier != tc.mod {
				t.Errorf("%s=%s: got %v:%d", opt, tc.val, j.RW, j.RWModifier)
			}
		}
	}
	if RWReadWrite.String() != "rw" || RWRandTrimWrite.String() != "randtrimwrite" || RW(99).String() != "RW(?)" {
		t.Error("String")
	}
	if !RWRandRW.Random() || RWReadWrite.Random() || !RWTrimWrite.Writes() || !RWTrimWrite.Trims() || RWTrimWrite.Reads() {
		t.Error("predicates")
	}
}

func TestRWMix(t *testing.T) {
	tests := []struct {
		body string
		want int
	}{
		{"rwmixread=70", 70},
		{"rwmixwrite=30", 70},
		{"rwmixread=60\nrwmixwrite=40", 60},
		{"rwmixread=60\nrwmixwrite=10", 90}, // the later one wins
		{"rwmixwrite=10\nrwmixread=60", 60},
		{"rwmixread=0", 0},
		{"rwmixwrite=0", 100},
	}
	for _, tc := range tests {
		if j := job(t, tc.body); j.RWMixRead != tc.want {
			t.Errorf("%q: rwmixread %d, want %d", tc.body, j.RWMixRead, tc.want)
		}
	}
	// Across [global] and the job too.
	jf := parseString(t, "[global]\nrwmixwrite=20\n[j]\nrwmixread=30\n", nil)
	if jf.Jobs[0].RWMixRead != 30 {
		t.Errorf("global then job: %d", jf.Jobs[0].RWMixRead)
	}
}

func TestPerDirection(t *testing.T) {
	r := func(a, b int64) Range { return Range{a, b} }
	tests := []struct {
		body string
		bs   [3]Range
	}{
		{"bs=8k", [3]Range{r(8192, 8192), r(8192, 8192), r(8192, 8192)}},
		{"bs=8k,32k", [3]Range{r(8192, 8192), r(32768, 32768), r(32768, 32768)}},
		{"bs=8k,32k,1k", [3]Range{r(8192, 8192), r(32768, 32768), r(1024, 1024)}},
		{"bs=,8k", [3]Range{r(4096, 4096), r(8192, 8192), r(8192, 8192)}},
		{"bs=8k,", [3]Range{r(8192, 8192), r(4096, 4096), r(4096, 4096)}},
		{"bs=8k,,16k", [3]Range{r(8192, 8192), r(4096, 4096), r(16384, 16384)}},
		{"bs=4k ,8k", [3]Range{r(4096, 4096), r(8192, 8192), r(8192, 8192)}},
		{"blocksize=2k", [3]Range{r(2048, 2048), r(2048, 2048), r(2048, 2048)}},
		{"bsrange=1k-4k", [3]Range{r(1024, 4096), r(1024, 4096), r(1024, 4096)}},
		{"bsrange=1k:4k", [3]Range{r(1024, 4096), r(1024, 4096), r(1024, 4096)}},
		{"bsrange=4k-1k", [3]Range{r(1024, 4096), r(1024, 4096), r(1024, 4096)}},
		{"bsrange=1k-4k,2k-8k", [3]Range{r(1024, 4096), r(2048, 8192), r(2048, 8192)}},
		{"blocksize_range=0x400-0x800", [3]Range{r(1024, 2048), r(1024, 2048), r(1024, 2048)}},
		{"bsrange=4k-4k", [3]Range{r(4096, 4096), r(4096, 4096), r(4096, 4096)}},
	}
	for _, tc := range tests {
		if j := job(t, tc.body); j.BS != tc.bs {
			t.Errorf("%s: %v, want %v", tc.body, j.BS, tc.bs)
		}
	}
	rates := []struct {
		body       string
		rate, iops [3]int64
	}{
		{"rate=1m,500k", [3]int64{1 << 20, 500 << 10, 500 << 10}, [3]int64{}},
		{"rate=,500k", [3]int64{0, 500 << 10, 500 << 10}, [3]int64{}},
		{"rate=1250", [3]int64{1250, 1250, 1250}, [3]int64{}},
		{"rate_iops=1000", [3]int64{}, [3]int64{1000, 1000, 1000}},
		{"rate_iops=100,200,300", [3]int64{}, [3]int64{100, 200, 300}},
	}
	for _, tc := range rates {
		if j := job(t, tc.body); j.Rate != tc.rate || j.RateIOPS != tc.iops {
			t.Errorf("%s: rate %v iops %v", tc.body, j.Rate, j.RateIOPS)
		}
	}
	if j := job(t, "ratemin=1m\nrate_min=,2m"); j.RateMin != [3]int64{1 << 20, 2 << 20, 2 << 20} {
		t.Errorf("ratemin %v", j.RateMin)
	}
}

func TestBSSplitOption(t *testing.T) {
	tests := []struct {
		body string
		want [3][]Split
		bs   [3]Range
	}{
		{"bssplit=4k/10:64k/50:32k/40",
			[3][]Split{{{4096, 10}, {32768, 40}, {65536, 50}}, {{4096, 10}, {32768, 40}, {65536, 50}}, {{4096, 10}, {32768, 40}, {65536, 50}}},
			[3]Range{{4096, 65536}, {4096, 65536}, {4096, 65536}}},
		{"bssplit=4k/50:8k/,16k",
			[3][]Split{{{4096, 50}, {8192, 50}}, {{16384, 100}}, {{16384, 100}}},
			[3]Range{{4096, 8192}, {16384, 16384}, {16384, 16384}}},
		{"bssplit=,64k/100",
			[3][]Split{nil, {{65536, 100}}, {{65536, 100}}},
			[3]Range{{4096, 4096}, {65536, 65536}, {65536, 65536}}},
	}
	for _, tc := range tests {
		j := job(t, tc.body)
		if !reflect.DeepEqual(j.BSSplit, tc.want) || j.BS != tc.bs {
			t.Errorf("%s: split %v bs %v", tc.body, j.BSSplit, j.BS)
		}
	}
}

func TestTimesInOptions(t *testing.T) {
	tests := []struct {
		body  string
		check func(*Job) bool
	}{
		{"runtime=60", func(j *Job) bool { return j.Runtime == time.Minute }},
		{"timeout=2m", func(j *Job) bool { return j.Runtime == 2*time.Minute }},
		{"runtime=1500ms", func(j *Job) bool { return j.Runtime == 1500*time.Millisecond }},
		{"ramp_time=10s", func(j *Job) bool { return j.RampTime == 10*time.Second }},
		{"thinktime=2000", func(j *Job) bool { return j.ThinkTime == 2*time.Millisecond }},
		{"thinktime=2s", func(j *Job) bool { return j.ThinkTime == 2*time.Second }},
		{"thinktime=10\nthinktime_blocks=8", func(j *Job) bool { return j.ThinkTime == 10*time.Microsecond && j.ThinkTimeBlocks == 8 }},
		{"startdelay=4", func(j *Job) bool { return j.StartDelay == [2]time.Duration{4 * time.Second, 4 * time.Second} }},
		{"startdelay=1-5", func(j *Job) bool { return j.StartDelay == [2]time.Duration{time.Second, 5 * time.Second} }},
		{"startdelay=500ms:2s", func(j *Job) bool {
			return j.StartDelay == [2]time.Duration{500 * time.Millisecond, 2 * time.Second}
		}},
		{"runtime=(1000000*60)", func(j *Job) bool { return j.Runtime == time.Minute }}, // µs inside ( )
	}
	for _, tc := range tests {
		if j := job(t, tc.body); !tc.check(j) {
			t.Errorf("%s: %+v", tc.body, j)
		}
	}
}

func TestSizesInOptions(t *testing.T) {
	tests := []struct {
		body  string
		check func(*Job) bool
	}{
		{"size=10G", func(j *Job) bool { return j.Size == 10<<30 }},
		// fio reads a number and its unit and ignores what follows.
		{"bs=4k-", func(j *Job) bool { return j.BS[0] == Range{4096, 4096} && j.BS[2] == Range{4096, 4096} }},
		{"bs=4k-8k,16k", func(j *Job) bool { return j.BS[0] == Range{4096, 4096} && j.BS[1] == Range{16384, 16384} }},
		{"bs=1024.5", func(j *Job) bool { return j.BS[0].Min == 1024 }},
		{"size=20%", func(j *Job) bool { return j.Size == 0 && j.SizePercent == 20 }},
		{"size=50.5%", func(j *Job) bool { return j.Size == 50 && j.SizePercent == 0 }}, // fio: 50 bytes
		{"offset=20%", func(j *Job) bool { return j.OffsetPercent == 20 && j.Offset == 0 }},
		{"offset=64m", func(j *Job) bool { return j.Offset == 64<<20 }},
		{"fileoffset=1k", func(j *Job) bool { return j.Offset == 1024 }},
		{"io_size=1g", func(j *Job) bool { return j.IOSize == 1<<30 }},
		{"io_limit=50%", func(j *Job) bool { return j.IOSizePercent == 50 }},
		{"offset_increment=10%", func(j *Job) bool { return j.OffsetIncrementPercent == 10 }},
		{"filesize=128m", func(j *Job) bool { return j.FileSize == [2]int64{128 << 20, 128 << 20} }},
		{"filesize=1m-2m", func(j *Job) bool { return j.FileSize == [2]int64{1 << 20, 2 << 20} }},
		{"nrfiles=8", func(j *Job) bool { return j.NrFiles == 8 }},
		{"nr_files=3", func(j *Job) bool { return j.NrFiles == 3 }},
		{"number_ios=1k", func(j *Job) bool { return j.NumberIOs == 1024 }},
		{"size=1000k\nkb_base=1000", func(j *Job) bool { return j.Size == 1000000 && j.KBBase == 1000 }},
		{"kb_base=1000\nbs=4KiB", func(j *Job) bool { return j.BS[0].Min == 4096 }},
		{"loops=0", func(j *Job) bool { return j.Loops == 1 }},
		{"loops=3", func(j *Job) bool { return j.Loops == 3 }},
		{"randseed=42", func(j *Job) bool { return j.RandSeed == 42 && j.RandSeedSet }},
		{"randseed=0xffffffffffffffff", func(j *Job) bool { return j.RandSeed == 1<<64-1 }},
		{"randrepeat=0", func(j *Job) bool { return !j.RandRepeat }},
		{"fsync=32\nfdatasync=8\nend_fsync=1", func(j *Job) bool { return j.Fsync == 32 && j.Fdatasync == 8 && j.EndFsync }},
		{"filename=/dev/a:/dev/b", func(j *Job) bool { return reflect.DeepEqual(j.Filenames, []string{"/dev/a", "/dev/b"}) }},
		{`filename=c\:\\x:y`, func(j *Job) bool { return reflect.DeepEqual(j.Filenames, []string{`c:\\x`, "y"}) }},
		{"wait_for=other", func(j *Job) bool { return j.WaitFor == "other" }},
		{"ioengine=nbd\nuri=nbd://localhost", func(j *Job) bool { return j.URI == "nbd://localhost" }},
		{"zonemode=zbd", func(j *Job) bool { return j.ZoneMode == "zbd" }},
		{"verify=md5", func(j *Job) bool { return j.Verify == "md5" }},
		{"ioengine=io_uring", func(j *Job) bool { return j.IOEngine == "io_uring" && !j.IsSync() }},
		{"ioengine=pvsync2", func(j *Job) bool { return j.IsSync() }},
		{"ioengine=http", func(j *Job) bool { return j.IOEngine == "http" && !j.IsSync() }},
	}
	for _, tc := range tests {
		if j := job(t, tc.body); !tc.check(j) {
			t.Errorf("%s: %+v", tc.body, j)
		}
	}
}

// TestIgnoredOncePerName: each option blkq ignores (an inert one) is
// recorded once, with the place it was first seen, in file order.
func TestIgnoredOncePerName(t *testing.T) {
	src := `[global]
cpus_allowed=0-3
[a]
clocksource=cpu
verify_async=2
[b]
clocksource=gettimeofday
threads=1
ioengine=net
port=10809
`
	jf := parseString(t, src, nil)
	want := []Ignored{
		{"cpus_allowed", "test.fio", 2},
		{"clocksource", "test.fio", 4},
		{"verify_async", "test.fio", 5},
		{"threads", "test.fio", 8},
		{"port", "test.fio", 10},
	}
	if !reflect.DeepEqual(jf.Ignored, want) {
		t.Errorf("ignored\n got %v\nwant %v", jf.Ignored, want)
	}
	if jf.Jobs[1].Thread {
		t.Error("threads= must not set Thread")
	}
}

func TestOptionTableSane(t *testing.T) {
	for name, s := range optionTable {
		if !validOptionName(name) || s.name == "" {
			t.Errorf("bad entry %q -> %+v", name, s)
		}
	}
	// Every name the brief lists as modelled has a setter.
	for _, n := range strings.Fields(`name filename directory size filesize nrfiles offset offset_increment io_size
		rw readwrite rwmixread rwmixwrite bs bsrange bssplit blocksize numjobs iodepth ioengine direct buffered
		runtime time_based ramp_time loops startdelay stonewall new_group wait_for group_reporting norandommap
		randrepeat randseed thinktime thinktime_blocks rate rate_iops ratemin number_ios timeout exitall exit_what
		zonemode zonesize zoneskip fsync fdatasync end_fsync verify kb_base uri thread filename_format io_limit
		blocksize_range do_verify verify_backlog verify_backlog_batch verify_fatal verify_pattern verify_interval
		verify_offset verify_only verify_dump experimental_verify verify_state_save verify_state_load
		random_distribution random_generator rate_process thinktime_spin thinktime_blocks_type
		thinktime_iotime offset_align flow flow_id flow_sleep continue_on_error ignore_error error_dump
		steadystate ss steadystate_duration ss_dur steadystate_ramp_time ss_ramp
		rate_iops_min rate_cycle ratecycle rate_ignore_thinktime prio prioclass cmdprio cmdprio_class
		cmdprio_percentage cmdprio_bssplit buffer_pattern zero_buffers refill_buffers scramble_buffers
		buffer_compress_percentage buffer_compress_chunk dedupe_percentage dedupe_mode
		dedupe_working_set_percentage dedupe_global fill_device fill_fs invalidate fallocate create_on_open
		iodepth_batch iodepth_batch_submit iodepth_batch_complete iodepth_batch_complete_min
		iodepth_batch_complete_max serialize_overlap io_submit_mode latency_target latency_window
		latency_percentile latency_run`) {
		if s, ok := optionTable[n]; !ok || s.set == nil {
			t.Errorf("%s is not modelled", n)
		}
	}
	for _, n := range []string{"numa_cpu_nodes", "numa_mem_policy",
		"verify_async", "clocksource", "port", "hostname", "http_host"} {
		if s, ok := optionTable[n]; !ok || s.set != nil {
			t.Errorf("%s should be known but not modelled", n)
		}
	}
}

// TestInertOptionsAreKnownAndNotModelled: every option called inert is
// one fio 3.33 accepts and blkq ignores (a modelled option, or a name fio
// does not know, would be a mistake in the list), an inert option in a
// job file is recorded as ignored and inert, and a modelled one
// (pre_read, gtod_reduce) is not recorded at all.
func TestInertOptionsAreKnownAndNotModelled(t *testing.T) {
	for name := range inertOptions {
		spec, ok := lookupOption(name)
		if !ok || spec.set != nil {
			t.Errorf("inert option %q: known %v, modelled %v; want known and not modelled", name, ok, ok && spec.set != nil)
		}
	}
	jf, err := Parse("j.fio", []byte("[a]\ncpus_allowed=0-3\ngtod_reduce=1\npre_read=1\nflow_watermark=10\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	inert := map[string]bool{}
	for _, ig := range jf.Ignored {
		inert[ig.Option] = ig.Inert()
	}
	if want := map[string]bool{"cpus_allowed": true, "flow_watermark": true}; !reflect.DeepEqual(inert, want) {
		t.Errorf("ignored options and whether inert: %v; want %v", inert, want)
	}
}

// TestDistributionOptions: random_distribution, random_generator,
// rate_process and the thinktime variants parse into Job, and bad values
// are errors that name the option's value.
func TestDistributionOptions(t *testing.T) {
	jf := parseString(t, "[a]\nrandom_distribution=zoned:50/5:30/15:20/80,60/40:40/60\nrandom_generator=lfsr\nrate_process=poisson\nthinktime=10\nthinktime_spin=4\nthinktime_blocks_type=issue\nthinktime_iotime=2\noffset_align=1k\n[b]\nrandom_distribution=zipf:1.2:0.25\n[c]\nrandom_distribution=zoned_abs:60/1m:40/3m\n", nil)
	a, b, c := jf.Jobs[0], jf.Jobs[1], jf.Jobs[2]
	d := a.RandomDistribution
	if d.Kind != "zoned" || len(d.Zones[0]) != 3 || d.Zones[0][2] != (Zone{Access: 20, RangePercent: 80}) ||
		len(d.Zones[1]) != 2 || len(d.Zones[2]) != 2 || d.Zones[2][0].Access != 60 {
		t.Errorf("zoned: %+v", d)
	}
	if a.RandomGenerator != "lfsr" || a.RateProcess != "poisson" || a.ThinkTimeSpin != 4*time.Microsecond ||
		a.ThinkTimeBlocksType != "issue" || a.ThinkTimeIOTime != 2*time.Second || a.OffsetAlign != 1024 {
		t.Errorf("a: %+v", a)
	}
	if d := b.RandomDistribution; d.Kind != "zipf" || d.Param != 1.2 || d.Center != 0.25 || b.RateProcess != "linear" {
		t.Errorf("zipf: %+v", d)
	}
	if d := c.RandomDistribution; d.Kind != "zoned_abs" || d.Zones[0][1].Size != 3<<20 {
		t.Errorf("zoned_abs: %+v", d)
	}
	// fio's readings (each run by Debian's fio 3.33): its defaults
	// without a parameter, sscanf's leading number, zipf:0 and negative
	// θ, normal below 100.
	for in, want := range map[string]Distribution{
		"zipf":         {Kind: "zipf", Param: 1.1, Center: -1},
		"pareto":       {Kind: "pareto", Param: 0.2, Center: -1},
		"normal":       {Kind: "normal", Param: 0, Center: -1},
		"zipf:0":       {Kind: "zipf", Param: 0, Center: -1},
		"zipf:-0.5":    {Kind: "zipf", Param: -0.5, Center: -1},
		"zipf:1.2x":    {Kind: "zipf", Param: 1.2, Center: -1},
		"normal:99.9":  {Kind: "normal", Param: 99.9, Center: -1},
		"pareto:.5:1":  {Kind: "pareto", Param: 0.5, Center: 1},
		"gauss:2e1:0.": {Kind: "normal", Param: 20, Center: 0},
	} {
		d, err := parseDistribution(in, 1024)
		if err != nil || !reflect.DeepEqual(d, want) {
			t.Errorf("random_distribution=%s: %+v, %v; want %+v", in, d, err, want)
		}
	}
	for _, bad := range []string{"zipf:1", "zipf:1.0x", "zipf:x", "zipf:inf", "zipf:nan", "zipf:0x1p3", "pareto:1.5", "pareto:0", "normal:100", "normal:-1",
		"zoned:50/10:30/20", "zoned:50/50:40/50", "zoned_abs:100/0", "uniform", "normal:5:2"} {
		_, err := Parse("x.fio", []byte("[a]\nrandom_distribution="+bad+"\n"), func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), "x.fio:2") {
			t.Errorf("random_distribution=%s: err %v, want one naming x.fio:2", bad, err)
		}
	}
}

// TestQueueOptions: the batching, overlap and latency-target options parse
// into Job.Queue under their names and fio's aliases, with fio's defaults
// when unset and fio's units (latency_target and latency_window count
// microseconds without a unit); values fio refuses are errors naming the
// file, line and option.
func TestQueueOptions(t *testing.T) {
	jf := parseString(t, "[a]\niodepth_batch=8\niodepth_batch_complete=4\niodepth_batch_complete_max=16\nserialize_overlap=1\nio_submit_mode=offload\nlatency_target=250\nlatency_window=1s\nlatency_percentile=99.5\nlatency_run=1\n[b]\niodepth_batch_submit=2\niodepth_batch_complete_min=0\nlatency_target=2ms\n[c]\n", nil)
	a, b, c := jf.Jobs[0].Queue, jf.Jobs[1].Queue, jf.Jobs[2].Queue
	want := QueueOptions{BatchSubmit: 8, BatchCompleteMin: 4, BatchCompleteMax: 16, SerializeOverlap: true, SubmitMode: "offload",
		LatencyTarget: 250 * time.Microsecond, LatencyWindow: time.Second, LatencyPercentile: 99.5, LatencyRun: true}
	if a != want {
		t.Errorf("a: %+v\nwant %+v", a, want)
	}
	if b.BatchSubmit != 2 || b.BatchCompleteMin != 0 || b.LatencyTarget != 2*time.Millisecond {
		t.Errorf("b: %+v", b)
	}
	if c != (QueueOptions{BatchSubmit: 1, BatchCompleteMin: 1, SubmitMode: "inline", LatencyPercentile: 100}) {
		t.Errorf("c (fio's defaults): %+v", c)
	}
	if len(jf.Ignored) != 0 {
		t.Errorf("ignored: %v; want none (all modelled)", jf.Ignored)
	}
	for _, bad := range []string{"io_submit_mode=foo", "latency_percentile=101", "latency_percentile=50:60", "latency_percentile=x",
		"latency_run=2", "serialize_overlap=3", "latency_target=abc", "iodepth_batch=-1", "iodepth_batch_complete_max=x"} {
		_, err := Parse("x.fio", []byte("[a]\n"+bad+"\n"), func(string) string { return "" })
		opt := bad[:strings.IndexByte(bad, '=')]
		if err == nil || !strings.Contains(err.Error(), "x.fio:2") || !strings.Contains(err.Error(), opt) {
			t.Errorf("%s: err %v, want one naming x.fio:2 and %s", bad, err, opt)
		}
	}
}

// TestNice: nice= parses into Job.Nice, inherited from [global], fio's
// default 0; it is modelled (not recorded as ignored).
func TestNice(t *testing.T) {
	jf := parseString(t, "[global]\nnice=-20\n[a]\n[b]\nnice=19\n", nil)
	if a, b := jf.Jobs[0], jf.Jobs[1]; a.Nice != -20 || b.Nice != 19 {
		t.Fatalf("nice %d and %d, want -20 and 19", a.Nice, b.Nice)
	}
	if len(jf.Ignored) != 0 {
		t.Fatalf("ignored %v", jf.Ignored)
	}
	if jf := parseString(t, "[a]\n", nil); jf.Jobs[0].Nice != 0 {
		t.Fatalf("default nice %d", jf.Jobs[0].Nice)
	}
}

// TestFlowOptions: flow, flow_id and flow_sleep as fio 3.33 stores them
// (fio's defaults 0): flow is a C int of at most 1000 kept unsigned, so
// -1 is 2^32-1, and of "-N" fio checks N too (-1001 fails, with fio's
// message); flow_id is an int; flow_sleep is microseconds.
func TestFlowOptions(t *testing.T) {
	jf := parseString(t, "[a]\n[b]\nflow=8\nflow_id=-3\nflow_sleep=100\n[c]\nflow=-1\n[d]\nflow=-1000\n[e]\nflow=1000\n", nil)
	a := jf.Jobs[0]
	if a.Flow != 0 || a.FlowID != 0 || a.FlowSleep != 0 {
		t.Errorf("defaults: flow %d flow_id %d flow_sleep %v; want 0 0 0", a.Flow, a.FlowID, a.FlowSleep)
	}
	if b := jf.Jobs[1]; b.Flow != 8 || b.FlowID != -3 || b.FlowSleep != 100*time.Microsecond {
		t.Errorf("b: flow %d flow_id %d flow_sleep %v; want 8 -3 100µs", b.Flow, b.FlowID, b.FlowSleep)
	}
	for i, want := range map[int]uint32{2: 1<<32 - 1, 3: 1<<32 - 1000, 4: 1000} {
		if got := jf.Jobs[i].Flow; got != want {
			t.Errorf("%s: flow %d; want %d", jf.Jobs[i].Name, got, want)
		}
	}
	for _, c := range []struct{ value, msg string }{
		{"1001", "max value out of range: 1001 (1000 max)"},
		{"-1001", "max value out of range: 1001 (1000 max)"},
		{"1k", "max value out of range: 1024 (1000 max)"},
		{"eight", "flow"},
	} {
		_, err := Parse("x.fio", []byte("[a]\nflow="+c.value+"\n"), func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), "x.fio:2") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("flow=%s: err %v; want one naming x.fio:2 and %q", c.value, err, c.msg)
		}
	}
}
