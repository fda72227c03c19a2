// Command dist builds idemspec's release: a static binary for each
// platform in Platforms (CGO off, which the pure-Go SQLite allows, so one
// machine builds them all), each packed with LICENSE and README.md into a
// versioned archive, and one SHA-256 checksums file in sha256sum's
// format. `make dist` runs it; .goreleaser.yaml describes the same
// release for goreleaser, and a test holds the two to the same
// platforms, flags and names.
//
//	dist [-version V] [-out dist] [-platforms linux/amd64,...] [-root .]
//
// Without -version, the version is `git describe --tags --always
// --dirty`, without its leading "v" (as goreleaser names archives).
// dist only adds files to -out; `make dist` empties it first.
package main
