package fio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInclude: an include line reads the options of a file beside the
// including one into the current section, as fio does ([global] here:
// both jobs get them; a job's own option set after the include wins),
// and included files may include others.
func TestInclude(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.fio":            "[global]\nioengine=null\ninclude sub/opts.fio\n[a]\nrw=read\n[b]\nrw=write\nbs=16k\n",
		"sub/opts.fio":        "bs=8k\ninclude deeper/size.fio\n",
		"sub/deeper/size.fio": "; the size\nsize=2m\n",
	})
	jf, err := ParseFile(filepath.Join(dir, "main.fio"))
	if err != nil {
		t.Fatal(err)
	}
	if len(jf.Jobs) != 2 {
		t.Fatalf("%d jobs, want 2", len(jf.Jobs))
	}
	for i, want := range []int64{8 << 10, 16 << 10} {
		j := jf.Jobs[i]
		if j.BS[0].Min != want || j.Size != 2<<20 || j.IOEngine != "null" {
			t.Errorf("job %s: bs %d size %d engine %q, want bs %d, size 2 MiB, null", j.Name, j.BS[0].Min, j.Size, j.IOEngine, want)
		}
	}
}

// TestIncludeErrors: errors inside an included file name that file and
// its line; a section in an included file, a file that includes itself
// and a non-regular file are errors.
func TestIncludeErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bad.fio":     "bs=4k\nrw=sideways\n",
		"section.fio": "bs=4k\n[other]\n",
		"self.fio":    "include self.fio\n",
	})
	for _, tc := range []struct {
		main, file string
		line       int
		msg        string
	}{
		{"[j]\ninclude bad.fio\n", "bad.fio", 2, "bad rw"},
		{"[j]\ninclude section.fio\n", "section.fio", 2, "may not start a section"},
		{"[j]\ninclude self.fio\n", "self.fio", 1, "nested includes"},
		{"[j]\ninclude /dev/null\n", "main.fio", 2, "not a regular file"},
	} {
		main := filepath.Join(dir, "main.fio")
		writeFiles(t, dir, map[string]string{"main.fio": tc.main})
		_, err := ParseFile(main)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want a *ParseError", tc.main, err)
			continue
		}
		if filepath.Base(pe.File) != tc.file || pe.Line != tc.line || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: got %v (file %s line %d), want %s:%d %q", tc.main, err, pe.File, pe.Line, tc.file, tc.line, tc.msg)
		}
	}
}

// TestIncludeValidateNamesTheFile: an option that only the whole-file
// checks refuse is reported at its line in the included file.
func TestIncludeValidateNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.fio": "[j]\nbs=4k\ninclude late.fio\n", "late.fio": "size=1m\nwait_for=nobody\n"})
	jf, err := ParseFile(filepath.Join(dir, "main.fio"))
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(jf)
	var pe *ParseError
	if !errors.As(err, &pe) || filepath.Base(pe.File) != "late.fio" || pe.Line != 2 || pe.Option != "wait_for" {
		t.Errorf("got %v, want late.fio:2 wait_for", err)
	}
}
