package targets

import (
	"io"
	"net/url"
	"os"

	"go.yaml.in/yaml/v3"
)

// Sketch is what a target file says about itself even when it does not
// load: its name and base URL as written. A run that cannot load the file
// still writes reports naming the target, so CI shows why it failed.
type Sketch struct {
	Name, BaseURL string
}

// SketchFile reads a target file's name and base_url without validating
// anything else; ok is false when the file cannot be read as YAML or names
// neither. Nothing is expanded, so no secret can come out of it; a
// password written in the URL is masked.
func SketchFile(path string) (s Sketch, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return Sketch{}, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize))
	if err != nil {
		return Sketch{}, false
	}
	var raw struct {
		Name    string `yaml:"name"`
		BaseURL string `yaml:"base_url"`
	}
	if yaml.Unmarshal(data, &raw) != nil {
		return Sketch{}, false
	}
	s = Sketch{Name: raw.Name, BaseURL: raw.BaseURL}
	if u, err := url.Parse(raw.BaseURL); err == nil {
		s.BaseURL = u.Redacted()
		if s.Name == "" {
			s.Name = u.Host
		}
	}
	return s, s.Name != ""
}
