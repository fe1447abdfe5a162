package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsCiteOnlyFilesInTheRepository: no source file, document or script
// points at the team's notes outside the repository, every docs/*.md a
// file names exists, and every relative link in the Markdown documents
// resolves. (testdata/ holds others' files, as they are, and is not read.)
func TestDocsCiteOnlyFilesInTheRepository(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// Spelled in pieces, so that this file does not match itself.
	outside := []string{"/work/" + "shared", "../" + "shared", "shared/" + "reference", "DESIGN" + ".md", "reference/" + "discussions", "shared/" + "corpus"}
	docRef := regexp.MustCompile(`docs/[A-Za-z0-9_.-]+\.md`)
	mdLink := regexp.MustCompile(`\]\(([^)#:]+\.md)(#[^)]*)?\)`)
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == ".git" || rel == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".sh", ".fio", ".mod":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(data)
		checked++
		for _, o := range outside {
			if strings.Contains(text, o) {
				t.Errorf("%s cites %q, which is not in the repository", rel, o)
			}
		}
		for _, ref := range docRef.FindAllString(text, -1) {
			if _, err := os.Stat(filepath.Join(root, ref)); err != nil {
				t.Errorf("%s cites %s, which does not exist", rel, ref)
			}
		}
		if filepath.Ext(path) == ".md" {
			for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
				if _, err := os.Stat(filepath.Join(filepath.Dir(path), m[1])); err != nil {
					t.Errorf("%s links to %s, which does not exist", rel, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Errorf("checked only %d files under %s", checked, root)
	}
	for _, doc := range []string{"design.md", "linux-block-layer.md", "formats.md", "discussions.md"} {
		if _, err := os.Stat(filepath.Join(root, "docs", doc)); err != nil {
			t.Errorf("docs/%s: %v", doc, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "LICENSE")); err != nil {
		t.Errorf("LICENSE: %v", err)
	}
}
