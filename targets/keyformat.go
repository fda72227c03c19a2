package targets

import (
	"crypto/rand"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/idemspec/idemspec/internal/uuid"
)

// Key formats a target may declare.
const (
	FormatUUID    = "uuid"
	FormatPattern = "pattern"
)

// minKeyBits is the randomness a generated key must carry: keys from two
// runs (or two scenarios) must never collide, or a scenario would meet
// another's record and see a "mismatch" it did not cause.
const minKeyBits = 64

// maxOpenRepeat caps x*, x+ and x{n,} when generating: keys stay short
// and the generator stays bounded.
const maxOpenRepeat = 8

// NewKey makes a fresh key in the declared format.
func (k Key) NewKey() string {
	if k.Format == FormatPattern {
		re, err := syntax.Parse(k.Pattern, syntax.Perl)
		if err != nil {
			panic(fmt.Sprintf("key.pattern %q was validated at load: %v", k.Pattern, err))
		}
		var b strings.Builder
		generate(&b, re.Simplify())
		return b.String()
	}
	return uuid.New()
}

// NewRunKey makes a fresh key that carries run (a hex run id) where the
// format allows: a UUID's first eight hex digits are the run id (90
// random bits remain, still a version 4 UUID); a pattern key starts with
// the run id when the result still matches the pattern and keeps at
// least minKeyBits of randomness, and is left as generated otherwise.
func (k Key) NewRunKey(run string) string {
	key := k.NewKey()
	if run == "" || len(run) > len(key) {
		return key
	}
	stamped := run + key[len(run):]
	if k.Format == FormatPattern {
		re, err := syntax.Parse(k.Pattern, syntax.Perl)
		if err != nil || !k.Matches(stamped) || entropy(re.Simplify())-8*float64(len(run)) < minKeyBits {
			return key
		}
	}
	return stamped
}

// Matches reports whether s is a key of the declared format and length;
// with neither declared, every key is.
func (k Key) Matches(s string) bool {
	if k.MaxLength > 0 && len(s) > k.MaxLength {
		return false
	}
	if !k.Declared {
		return true
	}
	if k.Format == FormatPattern {
		return regexp.MustCompile(`^(?:` + k.Pattern + `)$`).MatchString(s)
	}
	return uuidRE.MatchString(s)
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// CheckKeyPattern says why a pattern cannot be a target's key format
// (nil: it can): what `init --openapi` asks of a document's pattern.
func CheckKeyPattern(pattern string) error { return checkPattern(pattern) }

// checkPattern validates a key pattern: it must parse, generate only keys
// it matches, and carry enough randomness that keys never collide.
func checkPattern(pattern string) error {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return fmt.Errorf("not a valid regular expression: %v", err)
	}
	if bits := entropy(re.Simplify()); bits < minKeyBits {
		return fmt.Errorf("keys matching %q carry only %.0f bits of randomness; idemspec needs at least %d so that keys never collide (e.g. [A-Za-z0-9]{24})", pattern, bits, minKeyBits)
	}
	k := Key{Format: FormatPattern, Pattern: pattern, Declared: true}
	if s := k.NewKey(); !k.Matches(s) {
		return fmt.Errorf("%q uses a construct idemspec cannot generate keys for (generated %q)", pattern, s)
	}
	return nil
}

// generate writes a random string matching re. Anchors and word
// boundaries generate nothing; open repeats are capped.
func generate(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteRune(pickRune([]rune{'0', '9', 'A', 'Z', 'a', 'z'}))
	case syntax.OpCapture:
		generate(b, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			generate(b, sub)
		}
	case syntax.OpAlternate:
		generate(b, re.Sub[randomInt(len(re.Sub))])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := repeatBounds(re)
		n := lo + randomInt(hi-lo+1)
		for i := 0; i < n; i++ {
			generate(b, re.Sub[0])
		}
	}
}

// entropy is the randomness (bits) generate draws at the least: the
// shortest repeats and the narrowest alternative.
func entropy(re *syntax.Regexp) float64 {
	switch re.Op {
	case syntax.OpCharClass:
		return math.Log2(float64(classSize(re.Rune)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return math.Log2(62)
	case syntax.OpCapture:
		return entropy(re.Sub[0])
	case syntax.OpConcat:
		sum := 0.0
		for _, sub := range re.Sub {
			sum += entropy(sub)
		}
		return sum
	case syntax.OpAlternate:
		least := math.Inf(1)
		for _, sub := range re.Sub {
			least = math.Min(least, entropy(sub))
		}
		return least + math.Log2(float64(len(re.Sub)))
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, _ := repeatBounds(re)
		return float64(lo) * entropy(re.Sub[0])
	}
	return 0
}

func repeatBounds(re *syntax.Regexp) (lo, hi int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, maxOpenRepeat
	case syntax.OpPlus:
		return 1, 1 + maxOpenRepeat
	case syntax.OpQuest:
		return 0, 1
	}
	lo, hi = re.Min, re.Max
	if hi < 0 {
		hi = lo + maxOpenRepeat
	}
	return lo, hi
}

// pickRune draws a rune from a class given as [lo, hi] pairs. Only the
// printable ASCII part of a class is used: a key travels in a header.
func pickRune(class []rune) rune {
	ascii := asciiClass(class)
	if len(ascii) == 0 {
		return 'x' // a class with no printable ASCII: entropy() counted it as 0 bits
	}
	n := randomInt(len(ascii))
	return ascii[n]
}

func classSize(class []rune) int { return len(asciiClass(class)) }

func asciiClass(class []rune) []rune {
	var out []rune
	for i := 0; i+1 < len(class); i += 2 {
		for r := max(class[i], 0x21); r <= min(class[i+1], 0x7e); r++ {
			out = append(out, r)
		}
	}
	return out
}

func randomInt(n int) int {
	if n <= 1 {
		return 0
	}
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return int(v.Int64())
}
