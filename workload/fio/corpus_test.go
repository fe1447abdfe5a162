package fio

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// corpusDir holds fio 3.33's examples (the generic block-device subset),
// used unmodified.
const corpusDir = "../../testdata/fio-3.33"

func corpusFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.fio"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus at %s: %v", corpusDir, err)
	}
	return files
}

func parseCorpus(t *testing.T, name string, env map[string]string) *JobFile {
	t.Helper()
	path := filepath.Join(corpusDir, name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	jf, err := ParseConfig(path, src, Config{Env: mapEnv(env), Keywords: &testKeywords})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return jf
}

func TestCorpusParsesAndValidates(t *testing.T) {
	for _, f := range corpusFiles(t) {
		jf, err := ParseFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(jf.Jobs) == 0 {
			t.Errorf("%s: no jobs", f)
		}
		if err := Validate(jf); err != nil {
			t.Errorf("%s: Validate: %v", f, err)
		}
	}
}

func groupIDs(jf *JobFile) []int {
	var g []int
	for _, j := range jf.Jobs {
		g = append(g, j.GroupID)
	}
	return g
}

func jobNames(jf *JobFile) []string {
	var n []string
	for _, j := range jf.Jobs {
		n = append(n, j.Name)
	}
	return n
}

func TestCorpusTiobench(t *testing.T) {
	jf := parseCorpus(t, "tiobench-example.fio", nil)
	if got := jobNames(jf); !reflect.DeepEqual(got, []string{"f1", "f2", "f3", "f4"}) {
		t.Fatalf("jobs %v", got)
	}
	wantRW := []RW{RWWrite, RWRandWrite, RWRead, RWRandRead}
	for i, j := range jf.Jobs {
		if j.NumJobs != 4 || j.Runtime != 60*time.Second || !j.Direct || j.Size != 512<<20 {
			t.Errorf("%s: numjobs %d runtime %v direct %v size %d", j.Name, j.NumJobs, j.Runtime, j.Direct, j.Size)
		}
		for d := range 3 {
			if j.BS[d] != (Range{4096, 4096}) {
				t.Errorf("%s: bs[%d] = %v", j.Name, d, j.BS[d])
			}
		}
		if j.RW != wantRW[i] {
			t.Errorf("%s: rw %v, want %v", j.Name, j.RW, wantRW[i])
		}
		if j.IOEngine != "psync" || !j.IsSync() {
			t.Errorf("%s: engine %q", j.Name, j.IOEngine)
		}
	}
	if got := groupIDs(jf); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) {
		t.Errorf("groups %v", got)
	}
	// timeout= is runtime's alias: the options list uses the canonical name,
	// and the trailing "; 4 simultaneous threads" comment is gone.
	opts := jf.Jobs[0].Options
	if !hasOption(opts, "runtime", "60") || !hasOption(opts, "numjobs", "4") || !hasOption(opts, "bsrange", "4k-4k") {
		t.Errorf("options %v", opts)
	}
	if jf.Jobs[0].NumInherited != 5 || !reflect.DeepEqual(jf.Jobs[0].Options[5:], [][2]string{{"rw", "write"}}) {
		t.Errorf("inherited %d, own %v", jf.Jobs[0].NumInherited, jf.Jobs[0].Options[jf.Jobs[0].NumInherited:])
	}
}

func hasOption(opts [][2]string, name, value string) bool {
	for _, o := range opts {
		if o[0] == name && o[1] == value {
			return true
		}
	}
	return false
}

func TestCorpusRandRW(t *testing.T) {
	jf := parseCorpus(t, "fio-rand-RW.fio", nil)
	j := jf.Jobs[0]
	if j.Name != "file1" { // a name= in [global] does not rename the job
		t.Errorf("name %q", j.Name)
	}
	if j.RW != RWRandRW || j.RWMixRead != 60 || j.NumJobs != 4 || !j.TimeBased ||
		j.Runtime != 900*time.Second || j.Size != 10<<30 || j.IODepth != 16 || j.IOEngine != "libaio" {
		t.Errorf("%+v", j)
	}
	if !reflect.DeepEqual(j.Filenames, []string{"fio-rand-RW"}) || j.Direct {
		t.Errorf("filenames %v direct %v", j.Filenames, j.Direct)
	}
	if j.IsSync() {
		t.Error("libaio is not sync")
	}
}

func TestCorpusCmdprioBssplit(t *testing.T) {
	jf := parseCorpus(t, "cmdprio-bssplit.fio", nil)
	if len(jf.Jobs) != 3 {
		t.Fatalf("%d jobs", len(jf.Jobs))
	}
	wantSplit := [3][]Split{
		{{64 << 10, 40}, {1 << 20, 60}},
		{{1 << 20, 100}},
		{{1 << 20, 100}},
	}
	for _, j := range jf.Jobs {
		if !reflect.DeepEqual(j.BSSplit, wantSplit) {
			t.Errorf("%s: bssplit %v", j.Name, j.BSSplit)
		}
		if j.BS[DirRead] != (Range{64 << 10, 1 << 20}) || j.BS[DirWrite] != (Range{1 << 20, 1 << 20}) {
			t.Errorf("%s: bs %v", j.Name, j.BS)
		}
		if j.RW != RWRandRW || j.IODepth != 16 || !j.Direct || !reflect.DeepEqual(j.Filenames, []string{"/dev/sda"}) {
			t.Errorf("%s: %+v", j.Name, j)
		}
	}
	if got := groupIDs(jf); !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("groups %v", got)
	}
	// write_lat_log and log_prio are modelled (logopts.go).
	for _, j := range jf.Jobs {
		if !j.Logs.Lat || j.Logs.LatPrefix != "prio-run.log" || !j.Logs.Prio {
			t.Errorf("%s: logs %+v", j.Name, j.Logs)
		}
	}
	// The priority options are modelled (prioopts.go).
	if len(jf.Ignored) != 0 {
		t.Errorf("ignored %v", jf.Ignored)
	}
	adv := jf.Jobs[2].Priority
	if !adv.Set || adv.Class != 2 || adv.Level != 7 || len(adv.CmdBSSplit[0]) != 2 || adv.CmdBSSplit[0][1] != (PrioSplit{BS: 64 << 10, Percent: 75, Prio: 3<<13 | 2}) || adv.CmdBSSplit[1] != nil {
		t.Errorf("cmdprio-adv-def: %+v", adv)
	}
}

func TestCorpus1mbsClients(t *testing.T) {
	jf := parseCorpus(t, "1mbs_clients.fio", nil)
	if len(jf.Jobs) != 32 {
		t.Fatalf("%d jobs", len(jf.Jobs))
	}
	for i, j := range jf.Jobs {
		d := time.Duration(4*i) * time.Second
		if j.StartDelay != [2]time.Duration{d, d} {
			t.Errorf("%s: startdelay %v", j.Name, j.StartDelay)
		}
		if j.Rate != [3]int64{1250, 1250, 1250} || j.RateMin != [3]int64{1024, 1024, 1024} {
			t.Errorf("%s: rate %v ratemin %v", j.Name, j.Rate, j.RateMin)
		}
		if j.Size != 32<<20 || j.RW != RWRead || j.Directory != "tmp" || j.GroupID != 0 {
			t.Errorf("%s: %+v", j.Name, j)
		}
	}
	if len(jf.Ignored) != 0 {
		t.Errorf("ignored %v", jf.Ignored)
	}
}

func TestCorpusNBDEnv(t *testing.T) {
	jf := parseCorpus(t, "nbd.fio", map[string]string{"unixsocket": "/tmp/nbd.sock"})
	offsets := []int64{0, 64 << 20, 128 << 20, 192 << 20}
	if len(jf.Jobs) != 4 {
		t.Fatalf("%d jobs", len(jf.Jobs))
	}
	for i, j := range jf.Jobs {
		if j.URI != "nbd+unix:///?socket=/tmp/nbd.sock" || j.IOEngine != "nbd" || j.Offset != offsets[i] ||
			j.IODepth != 64 || !j.GroupReporting || !j.TimeBased || j.Runtime != time.Minute {
			t.Errorf("%s: %+v", j.Name, j)
		}
		if k, ok := EngineKind(j.IOEngine); !ok || k != "nbd" {
			t.Errorf("engine kind %q %v", k, ok)
		}
	}
	// Unset, the variable expands to nothing.
	jf = parseCorpus(t, "nbd.fio", nil)
	if jf.Jobs[0].URI != "nbd+unix:///?socket=" {
		t.Errorf("uri %q", jf.Jobs[0].URI)
	}
}

func TestCorpusExitWhat(t *testing.T) {
	jf := parseCorpus(t, "exitwhat.fio", nil)
	if got := jobNames(jf); !reflect.DeepEqual(got, []string{"slow1", "fast1", "slow2", "fast2", "runsnever"}) {
		t.Fatalf("jobs %v", got)
	}
	// slow1's new_group does not count (first job); fast1 starts group 1,
	// slow2's stonewall group 2.
	if got := groupIDs(jf); !reflect.DeepEqual(got, []int{0, 1, 2, 2, 2}) {
		t.Errorf("groups %v", got)
	}
	slow1, fast1, slow2 := jf.Jobs[0], jf.Jobs[1], jf.Jobs[2]
	if slow1.ExitWhat != "stonewall" || slow1.ThinkTime != 2*time.Millisecond || slow1.NumberIOs != 1000 || !slow1.IsSync() {
		t.Errorf("slow1 %+v", slow1)
	}
	if slow2.ExitWhat != "all" || !slow2.Stonewall || fast1.ExitWhat != "group" {
		t.Errorf("exit_what %q %q", slow2.ExitWhat, fast1.ExitWhat)
	}
	if fast1.Rate != [3]int64{300, 300, 300} || fast1.NumJobs != 3 || fast1.IODepth != 32 {
		t.Errorf("fast1 %+v", fast1)
	}
	for _, j := range jf.Jobs {
		if !j.ExitAll || !j.GroupReporting || j.FileSize != [2]int64{1 << 30, 1 << 30} || j.BS[DirRead].Min != 4096 {
			t.Errorf("%s: %+v", j.Name, j)
		}
	}
}

func TestCorpusSSDTest(t *testing.T) {
	jf := parseCorpus(t, "ssd-test.fio", nil)
	if got := groupIDs(jf); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) {
		t.Errorf("groups %v", got)
	}
	for _, j := range jf.Jobs {
		if j.Directory != "/mount-point-of-ssd" || !reflect.DeepEqual(j.Filenames, []string{"ssd.test.file"}) ||
			j.Size != 10<<30 || j.IODepth != 4 || !j.Direct || j.Runtime != time.Minute || j.TimeBased {
			t.Errorf("%s: %+v", j.Name, j)
		}
	}
}

func TestCorpusOthers(t *testing.T) {
	jf := parseCorpus(t, "cross-stripe-verify.fio", nil)
	j := jf.Jobs[0]
	if j.RW != RWWrite || j.RWModifier != 112<<10 || j.OffsetIncrement != 124<<30 || j.IOSize != 120<<30 ||
		j.Offset != 120<<10 || j.Loops != 2 || j.NumJobs != 30 || j.Verify != "crc32c" {
		t.Errorf("cross-stripe-verify: %+v", j)
	}

	jf = parseCorpus(t, "disk-zone-profile.fio", nil)
	j = jf.Jobs[0]
	if j.ZoneMode != "strided" || j.ZoneSize != 256<<20 || j.ZoneSkip != 2<<30 || j.IODepth != 2 {
		t.Errorf("disk-zone-profile: %+v", j)
	}
	if !hasOption(j.Options, "write_bw_log", "") {
		t.Errorf("bare flag missing from options: %v", j.Options)
	}

	jf = parseCorpus(t, "enospc-pressure.fio", nil)
	if j := jf.Jobs[0]; j.IOEngine != "libaio" || j.FileSize != [2]int64{128 << 30, 128 << 30} || !j.Direct || !j.ExitAll {
		t.Errorf("enospc-pressure: %+v", j)
	}
	if j := jf.Jobs[2]; j.Verify != "crc32c-intel" || j.RW != RWRandRW {
		t.Errorf("enospc-pressure verifier: %+v", j)
	}

	jf = parseCorpus(t, "steadystate.fio", nil)
	// threads=1 is the tiobench profile's option, not thread's alias.
	if j := jf.Jobs[0]; j.Thread || j.Runtime != 5*time.Minute || j.NumJobs != 4 {
		t.Errorf("steadystate: %+v", j)
	}
	if got := groupIDs(jf); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("steadystate groups %v", got)
	}

	jf = parseCorpus(t, "flow.fio", nil)
	if j := jf.Jobs[0]; !j.Thread || !j.NoRandomMap || j.BS[DirWrite].Min != 8192 || j.Size != 100<<30 {
		t.Errorf("flow: %+v", j)
	}

	jf = parseCorpus(t, "aio-read.fio", nil)
	for i, qd := range []int{4, 32, 8, 16} {
		if j := jf.Jobs[i]; j.IODepth != qd || j.Direct != true || j.BS[DirRead].Min != 128<<10 {
			t.Errorf("aio-read %s: %+v", j.Name, j)
		}
	}

	jf = parseCorpus(t, "fsx.fio", nil)
	if j := jf.Jobs[0]; j.Loops != 500000 || j.Size != 256<<10 || !j.NoRandomMap {
		t.Errorf("fsx: %+v", j)
	}
}
