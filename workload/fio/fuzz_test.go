package fio

import (
	"errors"
	"os"
	"testing"
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
			if jf != nil {
				t.Fatal("both a job file and an error")
			}
			return
		}
		if jf == nil {
			t.Fatal("no job file and no error")
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
		_ = Validate(jf) // must not panic either
	})
}
