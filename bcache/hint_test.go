package bcache

import "testing"

// TestHintsCollideAndClear: two cached pages sharing a hint slot are both
// served as hits, with their own data (the one the slot does not name
// through the map); an evicted page's slot no longer names it.
func TestHintsCollideAndClear(t *testing.T) {
	c := hitCache(t, 2) // two slots: pages 0 and 2 share slot 0
	if len(c.hint) != 2 {
		t.Fatalf("hint table of %d slots for 2 pages; want 2", len(c.hint))
	}
	readPage(t, c, 0)
	readPage(t, c, 2) // newest in slot 0
	if b := c.hinted(2); b == nil || b.page != 2 {
		t.Fatalf("slot 0 after reading page 2: %v; want page 2's buffer", b)
	}
	if b := c.hinted(0); b != nil {
		t.Fatalf("hinted(0) = page %d's buffer; want nil (the slot holds page 2)", b.page)
	}
	before := c.Stats()
	readPage(t, c, 0) // a hit through the map (readPage checks the data)
	readPage(t, c, 2) // a hit through the hint
	if st := c.Stats(); st.ReadHits-before.ReadHits != 2 || st.ReadMisses != before.ReadMisses {
		t.Errorf("read hits %d, read misses %d; want 2, 0", st.ReadHits-before.ReadHits, st.ReadMisses-before.ReadMisses)
	}
	readPage(t, c, 4) // evicts page 0, the least recently used; page 4 takes slot 0
	readPage(t, c, 1) // evicts page 2
	c.lock()
	for _, p := range []int64{0, 2} {
		if _, ok := c.index[p]; ok {
			t.Errorf("page %d still cached", p)
		}
	}
	c.unlock()
	for _, p := range []int64{0, 2} {
		if b := c.hinted(p); b != nil {
			t.Errorf("evicted page %d is still hinted", p)
		}
	}
	if b := c.hinted(4); b == nil {
		t.Errorf("page 4, cached, is not hinted")
	}
}
