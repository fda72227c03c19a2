package main

import (
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// snapshotVersion names a build from a tree git cannot describe (a
// source archive, no git installed).
const snapshotVersion = "0.0.0-snapshot"

// versionSyntax keeps a version usable in a file name and as one
// -ldflags word: no spaces, slashes or quotes.
var versionSyntax = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]*$`)

// releaseVersion is the version the release is named after: the one
// given, else describe's (`git describe --tags --always --dirty`: a tag,
// or a tag with the commits since and the revision, or a revision), else
// snapshotVersion. The leading "v" of a tag is dropped, as goreleaser's
// {{.Version}} drops it, so both name the archives alike.
func releaseVersion(given string, describe func() (string, error)) (string, error) {
	v := strings.TrimSpace(given)
	if v == "" {
		d, err := describe()
		if v = strings.TrimSpace(d); err != nil || v == "" {
			v = snapshotVersion
		}
	}
	v = strings.TrimPrefix(v, "v")
	if !versionSyntax.MatchString(v) {
		return "", fmt.Errorf("version %q: want letters, digits and . _ + - only", v)
	}
	return v, nil
}

// gitDescribe describes the checkout at root.
func gitDescribe(root string) func() (string, error) {
	return func() (string, error) {
		cmd := exec.Command("git", "describe", "--tags", "--always", "--dirty")
		cmd.Dir = root
		out, err := cmd.Output()
		return string(out), err
	}
}
