package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// writeChecksums writes the SHA-256 of each file in sha256sum's format
// ("HEX  NAME", names relative to the checksums file, sorted), so that
// `sha256sum -c` verifies a download beside it.
func writeChecksums(path string, files []string) error {
	var lines []string
	for _, file := range files {
		sum, err := sha256File(file)
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%s  %s\n", sum, filepath.Base(file)))
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	return os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
