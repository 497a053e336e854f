package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mkpoe/mkpoe/internal/linalg"
)

func TestVersionText(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Path: "github.com/mkpoe/mkpoe", Version: "v0.3.1"}, Settings: []debug.BuildSetting{
		{Key: "-tags", Value: "openblas"}, {Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "19cd788be2f2ec6b4defc6159c1141e77ffabfb9"},
		{Key: "vcs.time", Value: "2026-11-28T23:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"go build in a clone", stamped, "mkpoe v0.3.1\nmodule github.com/mkpoe/mkpoe\ncommit 19cd788be2f2ec6b4defc6159c1141e77ffabfb9 (2026-11-28T23:00:00Z, with uncommitted changes)\n" +
			"go go1.26.8 linux/amd64\nbuild tags openblas\nbackend openblas (Haswell)\n"},
		{"go run: no VCS stamp", &debug.BuildInfo{Main: debug.Module{Path: "github.com/mkpoe/mkpoe", Version: "(devel)"}},
			"mkpoe (devel): built from a source tree, not a tagged release\nmodule github.com/mkpoe/mkpoe\n" +
				"commit unknown (this binary carries no VCS information: go run, -buildvcs=false and builds inside a git worktree record none; go build in a git clone does)\n" +
				"go go1.26.8 linux/amd64\nbuild tags none\nbackend openblas (Haswell)\n"},
		{"no build information", nil, "mkpoe unknown\nmodule github.com/mkpoe/mkpoe\n" +
			"commit unknown (this binary carries no VCS information: go run, -buildvcs=false and builds inside a git worktree record none; go build in a git clone does)\n" +
			"go go1.26.8 linux/amd64\nbuild tags none\nbackend openblas (Haswell)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.bi, "go1.26.8", "linux/amd64", "openblas (Haswell)"); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestVersionCommand: "mkpoe version" and "mkpoe --version" print the same
// report of this binary, with its Go version and backend, and exit 0.
func TestVersionCommand(t *testing.T) {
	code, out, errs := run("version")
	if code != 0 || errs != "" {
		t.Fatalf("version: exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"\nmodule github.com/mkpoe/mkpoe\n", "\ncommit ", "\ngo " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n", "\nbackend " + linalg.Describe()} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
	for _, flag := range []string{"--version", "-version"} {
		if code, out2, _ := run(flag); code != 0 || out2 != out {
			t.Errorf("%s: exit %d, output\n%s\nwant that of mkpoe version:\n%s", flag, code, out2, out)
		}
	}
	if code, _, errs := run("version", "extra"); code != ExitUsage || !strings.Contains(errs, "unexpected arguments: extra") {
		t.Errorf("version extra: exit %d, stderr %q; want 2 naming the argument", code, errs)
	}
}

// TestHelpCommand: "mkpoe help NAME" prints on stdout exactly what "mkpoe
// NAME -h" prints, for every command, and exits 0; an unknown name is a
// usage error that lists the commands.
func TestHelpCommand(t *testing.T) {
	for _, name := range commandNames() {
		if commands[name].run == nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			code, out, errs := run("help", name)
			if code != 0 || errs != "" {
				t.Fatalf("help %s: exit %d, stderr %q", name, code, errs)
			}
			_, _, want := run(name, "-h")
			if out != want || !strings.HasPrefix(out, "Usage") {
				t.Errorf("help %s printed\n%s\nwant (mkpoe %s -h)\n%s", name, out, name, want)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		code int
		out  string // on stdout
		errs string // on stderr
	}{
		{[]string{"help"}, 0, "Commands:\n", ""},
		{[]string{"help", "help"}, 0, "Commands:\n", ""},
		{[]string{"help", "rnu"}, 2, "", `mkpoe help: unknown command "rnu"; the commands are: check, compare,`},
		{[]string{"help", "run", "fit"}, 2, "", "mkpoe help: give one command, got 2: run fit\n"},
	} {
		code, out, errs := run(tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errs, tc.errs) || (tc.errs == "") != (errs == "") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q", tc.args, code, out, errs, tc.code, tc.out, tc.errs)
		}
	}
}
