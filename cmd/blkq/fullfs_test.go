package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Runs on a file system that fills up: a small tmpfs mounted in a mount
// namespace of the test's own (unshare --user --map-root-user --mount),
// so no root is needed, and both fio and blkq run there on the same job.

// needUnshare returns unshare's path, after checking that it can give
// the test a mount namespace with a tmpfs.
func needUnshare(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("unshare")
	if err == nil {
		err = exec.Command(p, "--user", "--map-root-user", "--mount", "sh", "-c", "mount -t tmpfs -o size=1m none \"$0\"", t.TempDir()).Run()
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("unshare cannot mount a tmpfs in a user namespace (util-linux; kernel.unprivileged_userns_clone): %v", err)
		}
		t.Skipf("unshare cannot mount a tmpfs in a user namespace: %v", err)
	}
	return p
}

// writeFigures is what the comparison needs of a job in a JSON report.
type writeFigures struct {
	Jobs []struct {
		Error int `json:"error"`
		Write struct {
			IOs   int64 `json:"total_ios"`
			Bytes int64 `json:"io_bytes"`
		} `json:"write"`
	} `json:"jobs"`
}

// TestFullFileSystemAgainstFio: a buffered sequential writer on a file
// system too small for it does what fio 3.33 does there. With
// fill_device=1 on a 4 MiB tmpfs: 65 writes, the 65th failing with ENOSPC,
// which ends the job without an error, 4 MiB written. Without it, on a 2
// MiB tmpfs: 33 writes, err=28, 2 MiB. blkq used to take every write into
// its page cache and meet the full file system only at write-back,
// counting 64 MiB (or 8 MiB) written.
func TestFullFileSystemAgainstFio(t *testing.T) {
	us := needUnshare(t)
	fio := needFio(t)
	bin := buildBlkq(t)
	for _, c := range []struct {
		name, job, fsSize string
		fewerIOs          int64 // the writes blkq issues fewer than fio
	}{
		{"fill_device", "[f]\nrw=write\nbs=64k\nfill_device=1\nsize=64m\n", "4m", 0},
		{"enospc", "[f]\nrw=write\nbs=64k\nsize=8m\n", "2m", 0},
		// Without size= blkq's file is as large as the file system's room:
		// its 64th write fills it, and no 65th fails.
		{"fill_device without size", "[f]\nrw=write\nbs=64k\nfill_device=1\n", "4m", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			mnt := filepath.Join(dir, "mnt")
			os.Mkdir(mnt, 0o755)
			job := filepath.Join(dir, "j.fio")
			os.WriteFile(job, []byte(c.job), 0o644)
			fioOut, blkqOut := filepath.Join(dir, "fio.json"), filepath.Join(dir, "blkq.json")
			script := `set -e; mount -t tmpfs -o size=` + c.fsSize + ` none "$1"
"$2" --output-format=json --output="$4" --filename="$1/dev.img" "$6" >/dev/null 2>&1 || true
rm -f "$1/dev.img"
"$3" run --output-format=json --output="$5" --device="file:$1/dev.img" "$6" >/dev/null 2>&1 || true`
			out, err := exec.Command(us, "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh", mnt, fio, bin, fioOut, blkqOut, job).CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var figs [2]writeFigures
			for i, p := range []string{fioOut, blkqOut} {
				raw, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(raw, &figs[i]); err != nil || len(figs[i].Jobs) != 1 {
					t.Fatalf("%s: %v\n%.400s", p, err, raw)
				}
			}
			f, b := figs[0].Jobs[0], figs[1].Jobs[0]
			t.Logf("fio: err=%d, %d writes, %d bytes; blkq: err=%d, %d writes, %d bytes", f.Error, f.Write.IOs, f.Write.Bytes, b.Error, b.Write.IOs, b.Write.Bytes)
			f.Write.IOs -= c.fewerIOs
			if f != b {
				t.Errorf("blkq differs from fio 3.33")
			}
		})
	}
}
