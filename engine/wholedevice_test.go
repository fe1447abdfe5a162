package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWholeDeviceJobIsDeviceSized: a job whose one file is the device
// itself, filename=/dev/sdb or the path of the file device, works on all
// of it when it gives no size, as fio works on a disk or on an existing
// file: a 32 MiB device file is read whole (8192 reads of 4 KiB),
// offset=90% starts 90% in; blkq issues exactly the I/O fio's iolog records on the
// same 32 MiB file. It used to make the device 4096 bytes (one read,
// "offset 4096 is beyond the end").
func TestWholeDeviceJobIsDeviceSized(t *testing.T) {
	for _, body := range []string{
		"rw=read\nbs=4k",
		"rw=read\nbs=4k\noffset=90%",
	} {
		want, _ := fioIOs(t, "psync", body, 32<<20)
		if len(want) == 0 {
			t.Fatalf("%q: fio issued nothing", body)
		}
		path := filepath.Join(t.TempDir(), "dev.img")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, 32<<20); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"/dev/sdb", path} {
			got := blkqIOs(t, "file:"+path, "filename="+name+"\n"+body, 1)
			if !sameOffsets(got, want) {
				t.Errorf("%q, filename=%s: blkq issued %d I/Os %s, fio %d %s", body, name, len(got), sketch(got), len(want), sketch(want))
			}
		}
	}
}

// TestWholeDeviceOfMissingFileNeedsSize: a job on the whole device of a
// file device that does not exist yet, with no size=, is an error naming
// the file (there is no size to take), not a device of 4096 bytes.
func TestWholeDeviceOfMissingFileNeedsSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.img")
	_, err := Run(parse(t, "[j]\nfilename=/dev/sdb\nrw=read\nbs=4k\n"), Options{Device: "file:" + path})
	if err == nil || !strings.Contains(err.Error(), path+" is missing or empty: give the job a size=") {
		t.Fatalf("Run: %v, want the missing device's error", err)
	}
	res := run(t, "[j]\nfilename=/dev/sdb\nrw=read\nbs=4k\nsize=1m\n", Options{Device: "file:" + path})
	if n := res.Run.Jobs[0].Read.IOs; n != 256 {
		t.Fatalf("with size=1m: %d reads, want 256", n)
	}
}

// TestDiskZoneProfileExampleReadsTheDevice: fio's example
// disk-zone-profile.fio (filename=/dev/sdb, 256 MiB zones every 2 GiB),
// on a 32 MiB file device, reads the device's first zone, all 32 MiB of
// it, as fio does on a 32 MiB disk: it used to fail ("its region of
// /dev/sdb is 4096 bytes").
func TestDiskZoneProfileExampleReadsTheDevice(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "fio-3.33", "disk-zone-profile.fio"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "dev.img")
	os.WriteFile(path, nil, 0o644)
	if err := os.Truncate(path, 32<<20); err != nil {
		t.Fatal(err)
	}
	job := strings.NewReplacer("write_bw_log\n", "", "log_offset=1\n", "").Replace(string(src)) // no log files in the package's directory
	res := run(t, job, Options{Device: "file:" + path})
	if js := res.Run.Jobs[0]; js.Read.Bytes != 32<<20 || js.Read.IOs != 512 {
		t.Fatalf("%d bytes in %d reads: want the 32 MiB device in 512 reads of 64 KiB", js.Read.Bytes, js.Read.IOs)
	}
}
