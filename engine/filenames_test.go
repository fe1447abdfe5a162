package engine

import (
	"strings"
	"testing"
)

// TestFioFileNameKeywords: each keyword is replaced wherever it stands,
// in any case, once, and the default is fio's "$jobname.$jobnum.$filenum".
func TestFioFileNameKeywords(t *testing.T) {
	for _, tc := range []struct {
		format, name string
		clone, file  int
		want         string
	}{
		{"", "job", 2, 3, "job.2.3"},
		{"$jobname.$jobnum.$filenum", "job", 2, 3, "job.2.3"},
		{"$JobName-$JOBNUM-$FileNum", "a", 0, 1, "a-0-1"},
		{"f$filenum$filenum", "a", 0, 7, "f77"},
		{"x$clientuid.y", "a", 0, 0, "x.y"},
		{"$jobname", "$jobnum", 5, 0, "5"}, // fio rescans: blkq replaces what stood there, then the next keyword
		{"plain", "a", 1, 1, "plain"},
		{"é$FILENUM", "a", 0, 4, "é4"},
	} {
		if got := fioFileName(tc.format, tc.name, tc.clone, tc.file); got != tc.want {
			t.Errorf("fioFileName(%q, %q, %d, %d) = %q, want %q", tc.format, tc.name, tc.clone, tc.file, got, tc.want)
		}
	}
}

// FuzzFioFileName: any format ends; one without a '$' is the name as it
// stands; and a keyword between two formats without one is that
// keyword's value between them.
func FuzzFioFileName(f *testing.F) {
	for _, s := range []string{"", "a.", "x$jobname.$jobnum.$filenum", "$JOBNUM$$filenum", "$job$jobnumname", "İ"} {
		f.Add(s, "j", "b")
	}
	f.Fuzz(func(t *testing.T, format, name, tail string) {
		if len(format) > 256 || len(name) > 64 || len(tail) > 64 || strings.Contains(name, "$") {
			return
		}
		got := fioFileName(format, name, 3, 4)
		if format == "" || strings.Contains(format, "$") || strings.Contains(tail, "$") {
			return
		}
		if got != format {
			t.Fatalf("fioFileName(%q) = %q, want it unchanged", format, got)
		}
		for kw, val := range map[string]string{"$JobNum": "3", "$FILENUM": "4", "$clientuid": "", "$jobname": name} {
			if got := fioFileName(format+kw+tail, name, 3, 4); got != format+val+tail {
				t.Fatalf("fioFileName(%q) = %q, want %q", format+kw+tail, got, format+val+tail)
			}
		}
	})
}
