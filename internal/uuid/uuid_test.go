package uuid_test

import (
	"regexp"
	"testing"

	"github.com/idemspec/idemspec/internal/uuid"
)

func TestNewIsAVersion4UUID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		u := uuid.New()
		if !v4.MatchString(u) || seen[u] {
			t.Fatalf("%q: not a fresh version 4 UUID", u)
		}
		seen[u] = true
	}
}
