package device

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFileSecondOpenIsInUse: a second open of a file a File holds fails at
// once, naming the path; after Close the file is free again. Two readers
// share it; a reader and a writer do not.
func TestFileSecondOpenIsInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dev")
	d, err := OpenFile(path, FileOptions{Size: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []FileOptions{{Size: 1 << 20}, {}, {ReadOnly: true}} {
		d2, err := OpenFile(path, o)
		if err == nil {
			d2.Close()
			t.Fatalf("second open %+v succeeded while the first holds the file", o)
		}
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "in use") {
			t.Fatalf("second open %+v: %v", o, err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d2, err := OpenFile(path, FileOptions{})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	d2.Close()

	r1, err := OpenFile(path, FileOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := OpenFile(path, FileOptions{ReadOnly: true})
	if err != nil {
		t.Fatalf("two readers: %v", err)
	}
	r2.Close()
	if w, err := OpenFile(path, FileOptions{}); !errors.Is(err, ErrInUse) {
		if err == nil {
			w.Close()
		}
		t.Fatalf("writer while a reader holds the file: %v", err)
	}
}

// TestFileDirectRefusedNamesODirect: a file that refuses O_DIRECT
// (/dev/null) gets an error naming the path and O_DIRECT.
func TestFileDirectRefusedNamesODirect(t *testing.T) {
	_, err := OpenFile("/dev/null", FileOptions{Direct: true})
	if err == nil || !strings.Contains(err.Error(), "/dev/null") || !strings.Contains(err.Error(), "O_DIRECT") {
		t.Fatalf("/dev/null with O_DIRECT: %v", err)
	}
}

// TestFileFailedExtendLeavesNoFile: when the extension of a file OpenFile
// created fails, the file is removed; a file that was there before stays.
func TestFileFailedExtendLeavesNoFile(t *testing.T) {
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	// Files may grow to 1 MiB: ftruncate beyond fails with EFBIG (Go
	// ignores SIGXFSZ). Tests in this package do not run in parallel.
	lim := old
	lim.Cur = 1 << 20
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old)

	dir := t.TempDir()
	path := filepath.Join(dir, "new")
	if d, err := OpenFile(path, FileOptions{Size: 4 << 20}); err == nil {
		d.Close()
		t.Fatal("extension past RLIMIT_FSIZE succeeded")
	} else if !errors.Is(err, syscall.EFBIG) {
		t.Fatalf("extension past RLIMIT_FSIZE: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the failed open left %s behind: %v", path, err)
	}

	kept := filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := OpenFile(kept, FileOptions{Size: 4 << 20}); err == nil {
		d.Close()
		t.Fatal("extension past RLIMIT_FSIZE succeeded")
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "x" {
		t.Fatalf("a file that existed before: %q, %v", b, err)
	}
}
