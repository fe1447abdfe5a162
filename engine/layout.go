package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/blkq-dev/blkq/internal/satmath"
)

// Layout: how fio's files map onto the one device a run has.
//
// fio works on files; blkq has one device (a simulated disk, the null
// device or one real file). Each distinct file a job names (directory +
// filename, or fio's default name jobname.clone.0) gets its own extent of
// the device, laid out in order of first use, each as large as the largest
// region any job asks of it (offset + size). A name under /dev/ is a whole
// device in fio's world, so it maps to the whole of blkq's device; so does
// the path of a file device itself (filename= naming the very file
// --device=file: gives). Either is as large as the device: a file
// device's existing size (a block device's own), a simulated device's
// capacity.
// Jobs that share a file name share its extent, as fio's jobs share a
// file. The file of a fill_device job without a size grows until the
// device is full: it is laid out last and runs to the device's end.

// extent is one file's place on the device, in bytes.
type extent struct {
	name  string
	base  int64
	size  int64
	whole bool // a /dev/ name: the whole device
	fill  bool // fill_device without a size: from base to the device's end
}

type layout struct {
	device   string // the file device's absolute path ("" on other devices)
	byName   map[string]*extent
	order    []*extent
	next     int64 // first free byte
	capacity int64 // device bytes
}

func newLayout(capacity int64) *layout {
	return &layout{byName: map[string]*extent{}, capacity: capacity}
}

// isDeviceName reports whether fio would treat name as a block device.
func isDeviceName(name string) bool {
	return strings.HasPrefix(filepath.Clean(name), "/dev/")
}

// newLayout is the run's layout, knowing its file device's path.
func (r *runner) newLayout() *layout {
	l := newLayout(0)
	if kind, path, _ := strings.Cut(r.opt.Device, ":"); kind == "file" && path != "" {
		l.device, _ = filepath.Abs(path)
	}
	return l
}

// isDevice reports whether a job's file name is the whole device: a
// block device's name, or the file device's own path.
func (l *layout) isDevice(name string) bool {
	if isDeviceName(name) {
		return true
	}
	if l.device == "" {
		return false
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return false
	}
	if abs == l.device {
		return true
	}
	a, errA := os.Stat(abs)
	b, errB := os.Stat(l.device)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// hasWhole reports whether a job works on the whole device.
func (l *layout) hasWhole() bool {
	return slices.ContainsFunc(l.order, func(e *extent) bool { return e.whole })
}

// need records that a job needs size bytes of file name (from its start).
func (l *layout) need(name string, size int64) {
	e := l.byName[name]
	if e == nil {
		e = &extent{name: name, whole: l.isDevice(name)}
		l.byName[name] = e
		l.order = append(l.order, e)
	}
	e.size = max(e.size, size)
}

// needFill records that a fill_device job writes file name from off to
// the device's end. Only one file may grow so: they would share what is
// left, which fio's files do by racing for it.
func (l *layout) needFill(name string, off int64) error {
	l.need(name, off)
	e := l.byName[name]
	for _, o := range l.order {
		if o.fill && o != e {
			return fmt.Errorf("fill_device without size= on file %q and on %q: blkq lets one file grow to the device's end; give the others a size", o.name, name)
		}
	}
	e.fill = !e.whole
	return nil
}

// fills reports whether a file grows to the device's end.
func (l *layout) fills() bool {
	for _, e := range l.order {
		if e.fill {
			return true
		}
	}
	return false
}

// place assigns bases in order of first use and returns the bytes needed:
// the files' extents, or what a job on a whole device reaches.
func (l *layout) place() int64 {
	var next, end, whole int64
	order := l.order
	if i := slices.IndexFunc(order, func(e *extent) bool { return e.fill }); i >= 0 {
		order = append(slices.Delete(slices.Clone(order), i, i+1), order[i]) // the growing file last
	}
	for _, e := range order {
		if e.whole {
			whole = max(whole, e.size)
			continue
		}
		e.base = next
		// Keep extents 1 MiB aligned so that one file's I/O never
		// shares a request with the next file's. The last one needs no
		// padding: a device that holds one file is that file's size, as
		// the file fio would make.
		end = satmath.Add(next, e.size)
		next = satmath.Add(next, satmath.Add(e.size, 1<<20-1)&^(1<<20-1))
	}
	l.next = next
	return max(end, whole)
}

// finish fixes whole-device extents once the capacity is known.
func (l *layout) finish(capacity int64) error {
	l.capacity = capacity
	for _, e := range l.order {
		if e.whole {
			e.base, e.size = 0, capacity
			continue
		}
		if e.fill {
			e.size = max(e.size, capacity-e.base)
		}
		if e.base+e.size > capacity {
			return fmt.Errorf("file %q needs %d bytes at %d, beyond the device's %d", e.name, e.size, e.base, capacity)
		}
	}
	return nil
}
