package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	given := fs.String("version", "", "the release's version (default: git describe --tags --always --dirty)")
	out := fs.String("out", "dist", "where the archives and the checksums file go")
	list := fs.String("platforms", platformList(), "OS/ARCH pairs to build, comma-separated")
	root := fs.String("root", ".", "the module's directory")
	goTool := fs.String("go", "go", "the go command")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "dist: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	platforms, err := parsePlatforms(*list)
	if err == nil {
		var version string
		if version, err = releaseVersion(*given, gitDescribe(*root)); err == nil {
			err = release(ctx, *goTool, *root, version, platforms, *out, stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "dist:", err)
		return 2
	}
	return 0
}

// release builds and packs each platform, then writes the checksums of
// the archives.
func release(ctx context.Context, goTool, root, version string, platforms []Platform, out string, stdout io.Writer) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var archives []string
	for _, p := range platforms {
		bin, err := build(ctx, goTool, root, p, version, out)
		if err != nil {
			return err
		}
		members := []member{{p.Binary(), bin, 0o755}}
		for _, name := range archiveFiles {
			members = append(members, member{name, filepath.Join(root, name), 0o644})
		}
		archive := filepath.Join(out, p.ArchiveName(version))
		if err := writeArchive(archive, p.Format(), members); err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		fmt.Fprintln(stdout, archive)
		archives = append(archives, archive)
	}
	sums := filepath.Join(out, checksumsName(version))
	if err := writeChecksums(sums, archives); err != nil {
		return err
	}
	fmt.Fprintln(stdout, sums)
	return nil
}
