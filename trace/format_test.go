package trace_test

import (
	"testing"

	"github.com/blkq-dev/blkq/trace"
)

func TestRecordAccessors(t *testing.T) {
	cg := trace.Record{Action: (trace.TCQueue|trace.TCRead)<<trace.TCShift | trace.TACgroup | trace.TAUnplugTimer,
		PDU: []byte{1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 1, 0}}
	if n, ok := cg.PDUInt(); !ok || n != 256 || cg.What() != trace.TAUnplugTimer || cg.Letter() != "UT" {
		t.Errorf("cgroup unplug: %d %v %d %q", n, ok, cg.What(), cg.Letter())
	}
	short := trace.Record{Action: trace.TACgroup | trace.TASplit, PDU: []byte{1}}
	if _, ok := short.PDUInt(); ok || short.Name() != "" {
		t.Error("a payload shorter than the cgroup id has an integer")
	}
	for _, tc := range []struct {
		r      trace.Record
		letter string
	}{
		{trace.Record{Action: trace.ActionMessage, PDU: []byte("hi")}, "m"},
		{trace.Record{Action: trace.ActionTimestamp}, ""},
		{trace.Record{Action: trace.ActionProcess, PDU: []byte("sixteen-chars-ok")}, ""},
		{trace.Record{Action: trace.TCRead<<trace.TCShift | trace.TADrvData}, ""},
		{trace.Record{Action: trace.TCRead<<trace.TCShift | trace.TABounce}, "B"},
	} {
		if got := tc.r.Letter(); got != tc.letter {
			t.Errorf("%#x: letter %q, want %q", tc.r.Action, got, tc.letter)
		}
	}
	if n := (&trace.Record{Action: trace.ActionProcess, PDU: []byte("sixteen-chars-ok")}).Name(); n != "sixteen-chars-ok" {
		t.Errorf("unterminated name %q", n)
	}
	if s := (&trace.Record{Bytes: 4097}).Sectors(); s != 8 {
		t.Errorf("sectors %d", s)
	}
}
