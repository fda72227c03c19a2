package main

import (
	"fmt"
	"slices"
	"strings"
)

// project names the binary, the archives and the checksums file.
const project = "idemspec"

// A Platform is one GOOS/GOARCH pair the release ships a binary for.
type Platform struct{ OS, Arch string }

// Platforms are the release's targets, in the order dist builds them.
var Platforms = []Platform{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// parsePlatforms reads a comma-separated list of OS/ARCH pairs, each one
// of Platforms: a release never ships a platform the checksums and the
// goreleaser config do not know.
func parsePlatforms(list string) ([]Platform, error) {
	var out []Platform
	for _, s := range strings.Split(list, ",") {
		os, arch, _ := strings.Cut(strings.TrimSpace(s), "/")
		p := Platform{os, arch}
		if !slices.Contains(Platforms, p) {
			return nil, fmt.Errorf("-platforms: %q is not a release platform (want some of %s)", s, platformList())
		}
		out = append(out, p)
	}
	return out, nil
}

func platformList() string {
	names := make([]string, len(Platforms))
	for i, p := range Platforms {
		names[i] = p.String()
	}
	return strings.Join(names, ",")
}

// Binary is the executable's file name on the platform.
func (p Platform) Binary() string {
	if p.OS == "windows" {
		return project + ".exe"
	}
	return project
}

// Format is the archive format: zip on Windows, which opens it without
// extra tools; tar.gz elsewhere, which keeps the executable bit.
func (p Platform) Format() string {
	if p.OS == "windows" {
		return "zip"
	}
	return "tar.gz"
}

// ArchiveName is goreleaser's default naming:
// idemspec_VERSION_OS_ARCH.FORMAT.
func (p Platform) ArchiveName(version string) string {
	return fmt.Sprintf("%s_%s_%s_%s.%s", project, version, p.OS, p.Arch, p.Format())
}

// BuildDir is where the unpacked binary stays under -out (the container
// file's build context for linux).
func (p Platform) BuildDir() string { return project + "_" + p.OS + "_" + p.Arch }

// checksumsName is the checksums file's name, goreleaser's default.
func checksumsName(version string) string { return project + "_" + version + "_checksums.txt" }

// archiveFiles are packed beside the binary, at the archive's root.
var archiveFiles = []string{"LICENSE", "README.md"}
