package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// versionCommand is "blkq version": blkq's module version and the Go
// that built it, as "go version" prints its own. The version is the one
// the go command recorded in the binary: a release tag such as v0.3.0 when
// it was built by "go install github.com/blkq-dev/blkq/cmd/blkq@v0.3.0",
// and "devel" when it was built from a checkout without one.
func versionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Annotations: map[string]string{alsoUse: "--version"},
		Long:        "Prints blkq's version and the Go version that built it.",
		Args:        noArgs,
		RunE: func(*cobra.Command, []string) error {
			info, _ := debug.ReadBuildInfo()
			_, err := fmt.Fprintf(stdout, "blkq version %s (%s)\n", moduleVersion(info), runtime.Version())
			return err
		},
	}
}

// moduleVersion is the main module's version in info, or "devel" when
// there is none: no build information, or the go command's "(devel)" for
// a build from a work tree.
func moduleVersion(info *debug.BuildInfo) string {
	if info == nil || info.Main.Version == "" || info.Main.Version == "(devel)" {
		return "devel"
	}
	return info.Main.Version
}
