package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// A member is one file in an archive: its name there, where it is read
// from, and its mode (the binary's executable bit must survive).
type member struct {
	name, path string
	mode       fs.FileMode
}

// writeArchive packs members into path in the given format. Entries sit
// at the archive's root, with no wrapping directory, as goreleaser's
// default does.
func writeArchive(path, format string, members []member) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	switch format {
	case "tar.gz":
		return writeTarGz(f, members)
	case "zip":
		return writeZip(f, members)
	}
	return fmt.Errorf("unknown archive format %q", format)
}

func writeTarGz(w io.Writer, members []member) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, m := range members {
		info, err := os.Stat(m.path)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: m.name, Mode: int64(m.mode), Size: info.Size(), ModTime: info.ModTime(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if err := copyFile(tw, m.path); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, members []member) error {
	zw := zip.NewWriter(w)
	for _, m := range members {
		info, err := os.Stat(m.path)
		if err != nil {
			return err
		}
		h, err := zip.FileInfoHeader(info)
		if err != nil {
			return err
		}
		h.Name, h.Method = m.name, zip.Deflate
		h.SetMode(m.mode)
		dst, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if err := copyFile(dst, m.path); err != nil {
			return err
		}
	}
	return zw.Close()
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
