package targets

import "strings"

// The parts of a target file that say which conventions the target
// follows: the key's format and the profile's status codes.

// key builds the key description from the file's key: section; c is
// the create call, whose body may carry the key.
func (d *document) key(s keySpec, c Create) (Key, error) {
	k := Key{Format: s.Format, Pattern: s.Pattern, Declared: s.Format != "" || s.Pattern != ""}
	if err := d.keyPlace(s, &k, c); err != nil {
		return Key{}, err
	}
	if s.MaxLength != nil {
		if *s.MaxLength < 1 {
			return Key{}, d.errorf("key.max_length", "%d is not a length (1 or more)", *s.MaxLength)
		}
		k.MaxLength = *s.MaxLength
	}
	if k.Format == "" {
		k.Format = FormatUUID
		if k.Pattern != "" {
			k.Format = FormatPattern
		}
	}
	switch k.Format {
	case FormatUUID:
		if k.Pattern != "" {
			return Key{}, d.errorf("key.pattern", "only with format: pattern (format is uuid)")
		}
	case FormatPattern:
		if k.Pattern == "" {
			return Key{}, d.errorf("key.pattern", "missing: format: pattern needs a pattern such as '[A-Za-z0-9]{24}'")
		}
		if err := checkPattern(k.Pattern); err != nil {
			return Key{}, d.errorf("key.pattern", "%v", err)
		}
	default:
		return Key{}, d.errorf("key.format", "unknown format %q (known: uuid, pattern)", k.Format)
	}
	if key := k.NewKey(); k.MaxLength > 0 && len(key) > k.MaxLength {
		return Key{}, d.errorf("key.max_length", "%d is shorter than the keys idemspec makes (%q has %d characters): declare a format: pattern whose keys fit", k.MaxLength, key, len(key))
	}
	return k, nil
}

// profile looks the profile up and applies the file's single-code
// overrides.
func (d *document) profile(name string, over statusSpec) (Profile, error) {
	p, err := LookupProfile(or(name, DefaultProfile))
	if err != nil {
		return Profile{}, d.errorf("profile", "%v", err)
	}
	for _, o := range []struct {
		field string
		code  *int
		dst   *int
	}{
		{"statuses.mismatch", over.Mismatch, &p.Mismatch},
		{"statuses.in_flight", over.InFlight, &p.InFlight},
		{"statuses.missing_key", over.MissingKey, &p.MissingKey},
	} {
		if o.code == nil {
			continue
		}
		if *o.code < 400 || *o.code > 599 {
			return Profile{}, d.errorf(o.field, "%d is not an error status (400-599)", *o.code)
		}
		*o.dst = *o.code
	}
	return p, nil
}

// ValidHeaderName reports an RFC 9110 token.
func ValidHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}
