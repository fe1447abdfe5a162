package blkq

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxExported is the most identifiers package blkq may export: what a
// library user needs (issue 10), not the internals of its elevators,
// allocator and tests.
const maxExported = 60

// exportedIdentifiers lists the package's exported top-level consts,
// vars, types and funcs, and the exported methods of exported types, from
// its non-test files (struct fields and interface methods not counted).
func exportedIdentifiers(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					names = append(names, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// TestExportedSurface: package blkq exports at most maxExported
// identifiers.
func TestExportedSurface(t *testing.T) {
	names := exportedIdentifiers(t)
	if len(names) > maxExported {
		t.Fatalf("package blkq exports %d identifiers, at most %d allowed:\n%s", len(names), maxExported, strings.Join(names, "\n"))
	}
	t.Logf("%d exported: %s", len(names), strings.Join(names, " "))
}

// TestImportsOnlyStandardLibrary: the core's non-test imports, all the
// way down, are the standard library's (no lockstat, no x/sys): what a
// library user pulls in with it.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/blkq-dev/blkq" {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		t.Fatalf("package blkq imports non-standard packages: %v", bad)
	}
}
