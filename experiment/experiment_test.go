package experiment

import "testing"

func TestStarvationRuns(t *testing.T) {
	e, _ := Get("starvation")
	_, tab, err := Run(e, Options{Seed: 1, Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + tab.Format())
}

func TestNomergesRuns(t *testing.T) {
	e, _ := Get("nomerges")
	_, tab, err := Run(e, Options{Seed: 1, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + tab.Format())
}

// TestDeterministicTables: same seed, same table.
func TestDeterministicTables(t *testing.T) {
	e, _ := Get("wakeall")
	_, a, err := Run(e, Options{Seed: 3, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := Run(e, Options{Seed: 3, Scale: 0.05})
	if a.Format() != b.Format() {
		t.Fatalf("same seed, different tables:\n%s\n%s", a.Format(), b.Format())
	}
}

// TestEveryExperimentRuns runs each experiment briefly: each must produce
// a row per configuration and at least one note comparing with the report.
func TestEveryExperimentRuns(t *testing.T) {
	for _, e := range List() {
		outs, tab, err := Run(e, Options{Seed: 1, Scale: 0.02})
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if len(outs) != len(e.Configs) || len(tab.Rows) != len(e.Configs) || len(tab.Notes) == 0 {
			t.Fatalf("%s: %d outcomes, %d rows, %d notes for %d configs", e.Name, len(outs), len(tab.Rows), len(tab.Notes), len(e.Configs))
		}
	}
}
