package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

// runVersion implements "mkpoe version" (and "mkpoe --version"): the
// module version, the commit the binary was built from, the Go version and
// the linear-algebra backend, from the binary's build information.
func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	if err := parseFlags(fs, args, 0); err != nil {
		return err
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	_, err := io.WriteString(stdout, versionText(bi, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH, backendText()))
	return err
}

// backendText names the linear-algebra backend for "mkpoe version": the
// pure-Go build (gonum) or OpenBLAS with the kernels it chose.
func backendText() string {
	if linalg.Backend() == "gonum" {
		return linalg.Describe() + " (pure Go; a build with -tags openblas uses OpenBLAS)"
	}
	return linalg.Describe()
}

// versionText formats the version report from build information bi (nil:
// none, as in a binary built without module support), the Go version,
// the platform and the backend. A commit the build did not record is
// "unknown": go run and -buildvcs=false builds carry no VCS stamp.
func versionText(bi *debug.BuildInfo, goVersion, platform, backend string) string {
	module, version, commit, tags := "github.com/mkpoe/mkpoe", "unknown", "", ""
	var when, modified string
	if bi != nil {
		if bi.Main.Path != "" {
			module = bi.Main.Path
		}
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value
			case "-tags":
				tags = s.Value
			}
		}
	}
	if version == "(devel)" {
		version = "(devel): built from a source tree, not a tagged release"
	}
	switch {
	case commit == "":
		commit = "unknown (this binary carries no VCS information: go run, -buildvcs=false and builds inside a git worktree record none; go build in a git clone does)"
	default:
		var notes []string
		if when != "" {
			notes = append(notes, when)
		}
		switch modified {
		case "true":
			notes = append(notes, "with uncommitted changes")
		case "false":
			notes = append(notes, "clean")
		}
		if len(notes) > 0 {
			commit += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	if tags == "" {
		tags = "none"
	}
	return fmt.Sprintf("mkpoe %s\nmodule %s\ncommit %s\ngo %s %s\nbuild tags %s\nbackend %s\n", version, module, commit, goVersion, platform, tags, backend)
}
