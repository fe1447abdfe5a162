package ssd

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blkq-dev/blkq"
)

// The tests use the default drive: 8 channels of 8 dies, 8 KiB pages (16
// sectors), 75 µs reads, 750 µs programs, 333 MB/s channels and 10 µs of
// command overhead. Over a channel, 4 KiB take 4096 / 333e6 s = 12300.3 ns,
// rounded up to 12301 ns; a whole 8 KiB page 24600.6 → 24601 ns; 2 KiB
// 6150.15 → 6151 ns.
const (
	oh     = 10_000  // command overhead, ns
	tR     = 75_000  // page read
	tPROG  = 750_000 // page program
	x4K    = 12_301  // 4 KiB over a channel
	x8K    = 24_601  // 8 KiB
	x2K    = 6_151   // 2 KiB
	spp    = 16      // sectors per page
	stripe = 64      // pages before the stripe comes back to channel 0, die 0
)

func mustModel(t testing.TB, p Params) *Model {
	t.Helper()
	m, err := NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// page returns the first sector of logical page p.
func page(p uint64) uint64 { return p * spp }

func TestDefaults(t *testing.T) {
	d := DefaultParams()
	want := Params{
		Capacity: 1048576000, Channels: 8, DiesPerChannel: 8, PageSize: 8192,
		ReadLatency: 75 * time.Microsecond, ProgramLatency: 750 * time.Microsecond,
		ChannelRate: 333e6, Depth: 32, CommandOverhead: 10 * time.Microsecond,
	}
	if d != want {
		t.Fatalf("DefaultParams() = %+v", d)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	m := mustModel(t, Params{})
	if m.Params() != d || m.SectorsPerPage() != spp {
		t.Fatalf("zero Params: %+v, %d sectors a page", m.Params(), m.SectorsPerPage())
	}
	for _, c := range []struct {
		sectors uint32
		want    time.Duration
	}{{0, 0}, {1, 1538}, {4, x2K}, {8, x4K}, {16, x8K}, {256, 393_610}} {
		// 512 B: 1537.54 ns; 128 KiB: 393609.6 ns.
		if got := m.Transfer(c.sectors); got != c.want {
			t.Errorf("Transfer(%d) = %d, want %d", c.sectors, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Channels: -1}, "channels -1"},
		{Params{Channels: MaxChannels + 1}, "channels 1025"},
		{Params{DiesPerChannel: -2}, "dies per channel -2"},
		{Params{Channels: 1024, DiesPerChannel: 65}, "1024 channels × 65 dies"},
		{Params{PageSize: 1000}, "page size 1000"},
		{Params{PageSize: 256}, "page size 256"},
		{Params{PageSize: 2 << 20}, "page size 2097152"},
		{Params{ReadLatency: -1}, "read latency"},
		{Params{ProgramLatency: 2 * time.Second}, "program latency 2s"},
		{Params{ChannelRate: -5}, "channel rate -5"},
		{Params{Depth: -1}, "depth -1"},
		{Params{CommandOverhead: time.Hour}, "command overhead 1h0m0s"},
	} {
		err := c.p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "ssd: invalid parameters") {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
		if _, err := NewModel(c.p); err == nil {
			t.Errorf("NewModel(%+v) accepted", c.p)
		}
	}
	if err := (Params{CommandOverhead: -1, Depth: 1, PageSize: 512, Channels: 1, DiesPerChannel: 1}).Validate(); err != nil {
		t.Errorf("smallest drive: %v", err)
	}
}

func TestLocate(t *testing.T) {
	m := mustModel(t, Params{})
	for _, c := range []struct {
		page         uint64
		channel, die int
	}{{0, 0, 0}, {7, 7, 0}, {8, 0, 1}, {9, 1, 1}, {63, 7, 7}, {64, 0, 0}, {100, 4, 4}} {
		if ch, d := m.Locate(c.page); ch != c.channel || d != c.die {
			t.Errorf("page %d on channel %d die %d, want %d, %d", c.page, ch, d, c.channel, c.die)
		}
	}
}

func TestOneRead(t *testing.T) {
	m := mustModel(t, Params{})
	// Overhead to 10 µs, the array read to 85 µs, 4 KiB out over channel 0
	// to 97.301 µs.
	if got := m.Service(0, blkq.OpRead, 0, 8); got != oh+tR+x4K {
		t.Fatalf("4 KiB read done at %d, want %d", got, oh+tR+x4K)
	}
	if m.DieFree(0, 0) != 97_301 || m.ChannelFree(0) != 97_301 || m.DieFree(0, 1) != 0 || m.ChannelFree(1) != 0 {
		t.Errorf("die free %d, channel free %d", m.DieFree(0, 0), m.ChannelFree(0))
	}
	if r := m.Reservations(0); !reflect.DeepEqual(r, []Span{{85_000, 97_301}}) {
		t.Errorf("channel 0 reserved %v", r)
	}
	// The same read 1 ms later, on an idle drive again.
	if got := m.Service(1_000_000, blkq.OpRead, 0, 8); got != 1_097_301 {
		t.Errorf("second read done at %d", got)
	}
	if r := m.Reservations(0); !reflect.DeepEqual(r, []Span{{1_085_000, 1_097_301}}) {
		t.Errorf("past reservations kept: %v", r)
	}
}

func TestOneWrite(t *testing.T) {
	m := mustModel(t, Params{})
	// Overhead to 10 µs, 4 KiB in over channel 0 to 22.301 µs, the page
	// program to 772.301 µs. The channel is free again after the transfer.
	if got := m.Service(0, blkq.OpWrite, 0, 8); got != oh+x4K+tPROG {
		t.Fatalf("4 KiB write done at %d, want %d", got, oh+x4K+tPROG)
	}
	if m.DieFree(0, 0) != 772_301 || m.ChannelFree(0) != 22_301 {
		t.Errorf("die free %d, channel free %d", m.DieFree(0, 0), m.ChannelFree(0))
	}
}

func TestStripedReadsRunInParallel(t *testing.T) {
	m := mustModel(t, Params{})
	// 64 KiB from sector 0 is pages 0..7: die 0 of each of the 8
	// channels, all in parallel: 10 + 75 + 24.601 µs.
	if got := m.Service(0, blkq.OpRead, 0, 128); got != oh+tR+x8K {
		t.Fatalf("64 KiB read done at %d, want %d", got, oh+tR+x8K)
	}
	for c := range 8 {
		if r := m.Reservations(c); !reflect.DeepEqual(r, []Span{{85_000, 109_601}}) {
			t.Errorf("channel %d reserved %v", c, r)
		}
	}
	// 128 KiB from page 64 is pages 64..79: dies 0 and 1 of each channel.
	// Both dies read from 119.601 µs (die 0 is busy to 109.601 µs; the
	// overhead runs to 119.601 µs) to 194.601 µs; then the two pages
	// cross each channel one after the other: 219.202, 243.803 µs.
	if got := m.Service(109_601, blkq.OpRead, page(64), 256); got != 109_601+oh+tR+2*x8K {
		t.Errorf("128 KiB read done at %d, want %d", got, 109_601+oh+tR+2*x8K)
	}
	if m.DieFree(3, 0) != 219_202 || m.DieFree(3, 1) != 243_803 {
		t.Errorf("dies of channel 3 free at %d, %d", m.DieFree(3, 0), m.DieFree(3, 1))
	}
}

func TestSameDieSerializes(t *testing.T) {
	m := mustModel(t, Params{})
	// Pages 0 and 64 are both on die 0 of channel 0. The second read's
	// array read waits until the first's data is out (97.301 µs), ends at
	// 172.301 µs, and its data is out at 184.602 µs.
	a := m.Service(0, blkq.OpRead, page(0), 8)
	b := m.Service(0, blkq.OpRead, page(stripe), 8)
	if a != 97_301 || b != 97_301+tR+x4K {
		t.Fatalf("reads done at %d, %d; want 97301, %d", a, b, 97_301+tR+x4K)
	}
}

func TestDiesShareTheChannel(t *testing.T) {
	m := mustModel(t, Params{})
	// Pages 0 and 8: dies 0 and 1 of channel 0. Both array reads end at
	// 85 µs; the transfers take turns: 97.301 and 109.602 µs.
	a := m.Service(0, blkq.OpRead, page(0), 8)
	b := m.Service(0, blkq.OpRead, page(8), 8)
	if a != 97_301 || b != 109_602 {
		t.Fatalf("reads done at %d, %d; want 97301, 109602", a, b)
	}
	// Writes too: transfers 10..22.301 and 22.301..34.602 µs, then
	// 750 µs programs on the two dies in parallel.
	w := mustModel(t, Params{})
	a = w.Service(0, blkq.OpWrite, page(0), 8)
	b = w.Service(0, blkq.OpWrite, page(8), 8)
	if a != oh+x4K+tPROG || b != oh+2*x4K+tPROG {
		t.Fatalf("writes done at %d, %d; want %d, %d", a, b, oh+x4K+tPROG, oh+2*x4K+tPROG)
	}
}

// TestChannelGap: a transfer takes a gap on the channel before a transfer
// booked earlier for a later time.
func TestChannelGap(t *testing.T) {
	m := mustModel(t, Params{})
	a := m.Service(0, blkq.OpRead, page(0), 8)      // die 0: channel 85..97.301 µs
	b := m.Service(0, blkq.OpRead, page(stripe), 8) // die 0 again: channel 172.301..184.602 µs
	// Die 1's array read ends at 85 µs; channel 0 is free from 97.301 to
	// 172.301 µs, so its data is out at 109.602 µs, long before b's.
	c := m.Service(0, blkq.OpRead, page(8), 8)
	if a != 97_301 || b != 184_602 || c != 109_602 {
		t.Fatalf("reads done at %d, %d, %d; want 97301, 184602, 109602", a, b, c)
	}
	if r := m.Reservations(0); !reflect.DeepEqual(r, []Span{{85_000, 109_602}, {172_301, 184_602}}) {
		t.Errorf("channel 0 reserved %v", r)
	}
	// Die 2's read of 4 sectors (page 16), arriving at 21.2 µs, is ready
	// at 106.2 µs, finds the channel busy to 109.602 µs and goes right
	// after: 109.602 + 6.151 = 115.753 µs, one reservation with a's and
	// c's.
	d := m.Service(21_200, blkq.OpRead, page(16), 4)
	if d != 115_753 {
		t.Fatalf("2 KiB read done at %d, want 115753", d)
	}
	// Die 3 (page 24), 4 KiB, arriving at 74.999 µs: ready at 159.999 µs
	// (overhead, then the read), and its transfer ends at 172.300 µs, 1 ns
	// before b's starts.
	e := m.Service(74_999, blkq.OpRead, page(24), 8)
	if e != 172_300 {
		t.Fatalf("die 3 read done at %d, want 172300", e)
	}
	want := []Span{{85_000, 115_753}, {159_999, 172_300}, {172_301, 184_602}}
	if r := m.Reservations(0); !reflect.DeepEqual(r, want) {
		t.Errorf("channel 0 reserved %v, want %v", r, want)
	}
	// Die 4 (page 32), one sector (1.538 µs of transfer), arriving at 75
	// µs: ready at 160 µs, inside the 159.999..172.300 µs reservation; the
	// 1 ns gap after it is too short, so it goes after b's:
	// 184.602 + 1.538 = 186.140 µs.
	f := m.Service(75_000, blkq.OpRead, page(32), 1)
	if f != 186_140 {
		t.Fatalf("die 4 read done at %d, want 186140", f)
	}
	want = []Span{{85_000, 115_753}, {159_999, 172_300}, {172_301, 186_140}}
	if r := m.Reservations(0); !reflect.DeepEqual(r, want) {
		t.Errorf("channel 0 reserved %v, want %v", r, want)
	}
}

func TestWriteBlocksItsDieOnly(t *testing.T) {
	m := mustModel(t, Params{})
	w := m.Service(0, blkq.OpWrite, page(0), 16) // die 0: 10..34.601 µs in, program to 784.601 µs
	r0 := m.Service(0, blkq.OpRead, page(0), 8)  // die 0 busy: read 784.601..859.601, out 871.902 µs
	r1 := m.Service(0, blkq.OpRead, page(8), 8)  // die 1: read 10..85, out 85..97.301 µs
	if w != oh+x8K+tPROG || r0 != w+tR+x4K || r1 != oh+tR+x4K {
		t.Fatalf("write %d, read of its page %d, read of the next die %d", w, r0, r1)
	}
}

func TestPartialPages(t *testing.T) {
	m := mustModel(t, Params{})
	// 4 KiB at sector 12 straddles pages 0 and 1 (channels 0 and 1): two
	// page reads in parallel, 2 KiB out of each.
	if got := m.Service(0, blkq.OpRead, 12, 8); got != oh+tR+x2K {
		t.Fatalf("straddling read done at %d, want %d", got, oh+tR+x2K)
	}
	if m.DieFree(0, 0) != 91_151 || m.DieFree(1, 0) != 91_151 {
		t.Errorf("dies free at %d, %d", m.DieFree(0, 0), m.DieFree(1, 0))
	}
	// A one-sector write still programs a whole page.
	if got := m.Service(100_000, blkq.OpWrite, page(2)+5, 1); got != 100_000+oh+1538+tPROG {
		t.Errorf("one-sector write done at %d", got)
	}
}

func TestSequentialWrite(t *testing.T) {
	m := mustModel(t, Params{})
	// 128 KiB: on each channel, die 0's page crosses 10..34.601 µs and
	// programs to 784.601; die 1's crosses 34.601..59.202 and programs to
	// 809.202 µs.
	if got := m.Service(0, blkq.OpWrite, 0, 256); got != oh+2*x8K+tPROG {
		t.Fatalf("128 KiB write done at %d, want %d", got, oh+2*x8K+tPROG)
	}
}

func TestFlushDiscard(t *testing.T) {
	m := mustModel(t, Params{})
	m.Service(0, blkq.OpWrite, 0, 8)
	before := m.Clone()
	if got := m.Service(5, blkq.OpFlush, 0, 0); got != 5+oh {
		t.Errorf("flush done at %d", got)
	}
	if got := m.Service(5, blkq.OpDiscard, 0, 1<<20); got != 5+oh {
		t.Errorf("discard done at %d", got)
	}
	if got := m.Service(5, blkq.OpRead, 64, 0); got != 5+oh {
		t.Errorf("empty read done at %d", got)
	}
	if !reflect.DeepEqual(m.die, before.die) || !reflect.DeepEqual(m.bus, before.bus) {
		t.Error("flush or discard used a die or channel")
	}
	// No overhead at all: a flush completes at once, a read costs only the
	// flash.
	z := mustModel(t, Params{CommandOverhead: -1})
	if z.Service(7, blkq.OpFlush, 0, 0) != 7 || z.Service(7, blkq.OpRead, 0, 8) != 7+tR+x4K {
		t.Error("negative overhead is not none")
	}
}

func TestClone(t *testing.T) {
	m := mustModel(t, Params{})
	m.Service(0, blkq.OpRead, 0, 8)
	c := m.Clone()
	a := c.Service(0, blkq.OpRead, page(8), 8)
	if a != 109_602 {
		t.Fatalf("clone: read done at %d", a)
	}
	if m.DieFree(0, 1) != 0 || len(m.Reservations(0)) != 1 || m.Reservations(0)[0] != (Span{85_000, 97_301}) {
		t.Fatal("Service on the clone changed the original")
	}
	// The original, asked the same, answers the same.
	if b := m.Service(0, blkq.OpRead, page(8), 8); b != a {
		t.Fatalf("original: %d, clone: %d", b, a)
	}
}

func TestServiceBackwardsPanics(t *testing.T) {
	m := mustModel(t, Params{})
	m.Service(100, blkq.OpRead, 0, 8)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	m.Service(99, blkq.OpRead, 0, 8)
}

// TestTransferRounding: with a rate that divides evenly, transfers are
// exact.
func TestTransferRounding(t *testing.T) {
	m := mustModel(t, Params{ChannelRate: 512e6, PageSize: 4096})
	if m.Transfer(1) != 1000 || m.Transfer(8) != 8000 || m.Transfer(9) != 9000 {
		t.Fatalf("transfers %d %d %d", m.Transfer(1), m.Transfer(8), m.Transfer(9))
	}
}
