package engine

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// needRoot skips a test that mounts file systems, or fails it under CI
// (which runs as root, so a skip there would hide a regression).
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("this test mounts a tmpfs and needs root; CI runs as root")
	}
	t.Skip("needs root to mount a tmpfs")
}

// mountTmpfs mounts a tmpfs of the given size (mount(8)'s size=, e.g.
// "1m") in a temporary directory, unmounted when the test ends.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	needRoot(t)
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("mount -t tmpfs -o size=%s: %v", size, err)
	}
	t.Cleanup(func() {
		if err := unix.Unmount(dir, 0); err != nil {
			t.Errorf("umount %s: %v", dir, err)
		}
	})
	return dir
}

// remountReadOnly makes the mount at dir read-only (mount -o remount,ro).
func remountReadOnly(t *testing.T, dir string) {
	t.Helper()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
		t.Fatalf("mount -o remount,ro %s: %v", dir, err)
	}
}
