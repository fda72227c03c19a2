package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxDocument is the largest document init reads: 16 MiB. Loading
// costs about 50 times the document's size in memory (Stripe's 4.2 MB
// document takes 220 MB), so the cap keeps a draft under a gigabyte;
// the largest published API documents are well under it.
const MaxDocument = 16 << 20

// maxAliases is the longest chain of references to references
// (#/components/schemas/A is a $ref to B, which is a $ref to C ...)
// a document may hold. kin-openapi follows such a chain again from
// each of its links, in time that grows with the square of its length
// (4000 links: 17 s), while real documents alias a name or two deep.
const maxAliases = 64

// maxWork bounds the sum, over the document's mappings, of the square
// of each one's number of keys. kin-openapi's YAML decoder (JSON is
// read as YAML too) compares each key of a mapping with every other, so
// a document of one wide mapping takes minutes within the size cap
// (30000 schemas in 1.4 MB: 11 s on 2 busy cores). 2.5*10^8 is one
// mapping of about 15800 keys, some 3 s; Stripe's document, whose
// widest mapping holds 561 keys, does 0.3% of it.
const maxWork = 250_000_000

// checkLimits refuses, before kin-openapi reads it, a document larger
// than MaxDocument, holding a chain of aliases longer than maxAliases,
// or mappings wider than maxWork allows. It parses the document once
// and follows each alias once: linear in the document's size.
func checkLimits(data []byte) error {
	if err := CheckSize(int64(len(data))); err != nil {
		return err
	}
	s := scan{aliases: map[string]string{}}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var doc any
		if json.Unmarshal(data, &doc) != nil {
			return nil // kin-openapi says what is wrong with it
		}
		s.value(doc, "")
	} else {
		// A node tree, not maps: decoding into a map is the quadratic
		// comparison of keys this guards against.
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil {
			return nil
		}
		s.node(&doc, "")
	}
	if err := s.chains(); err != nil {
		return err
	}
	if s.work > maxWork {
		return fmt.Errorf("%s has %d keys: a document of mappings this wide takes kin-openapi minutes to read; draft from a document trimmed to the paths you test", strings.TrimPrefix(s.widest, "#"), s.width)
	}
	return nil
}

// scan is what checkLimits finds in a parsed document.
type scan struct {
	aliases map[string]string // a JSON pointer ("#/components/schemas/A") to what its $ref names
	work    int64             // the sum of the squares of the mappings' sizes
	widest  string            // the widest mapping's pointer, and its number of keys
	width   int
}

func (s *scan) mapping(at string, keys int) {
	s.work += int64(keys) * int64(keys)
	if keys > s.width {
		s.widest, s.width = "#"+at, keys
	}
}

func (s *scan) ref(at, ref string) {
	if !strings.HasPrefix(ref, "#") {
		return // another file's: kin-openapi refuses it
	}
	if unescaped, err := url.PathUnescape(ref); err == nil {
		ref = unescaped
	}
	s.aliases["#"+at] = ref
}

// value walks a document decoded from JSON.
func (s *scan) value(v any, at string) {
	switch v := v.(type) {
	case map[string]any:
		s.mapping(at, len(v))
		if ref, ok := v["$ref"].(string); ok {
			s.ref(at, ref)
		}
		for k, e := range v {
			s.value(e, at+"/"+pointerEscape.Replace(k))
		}
	case []any:
		for i, e := range v {
			s.value(e, fmt.Sprintf("%s/%d", at, i))
		}
	}
}

// node walks a document parsed from YAML.
func (s *scan) node(n *yaml.Node, at string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			s.node(c, at)
		}
	case yaml.MappingNode:
		s.mapping(at, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
				s.ref(at, v.Value)
			}
			s.node(v, at+"/"+pointerEscape.Replace(k.Value))
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			s.node(c, fmt.Sprintf("%s/%d", at, i))
		}
	}
	// An alias node repeats what was walked where its anchor is.
}

var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// chains follows each alias to the value at its end, once, and refuses
// a chain longer than maxAliases (named by its head, the first by name
// of the longest) or a cycle, which names no value.
func (s *scan) chains() error {
	depth := map[string]int{} // links from a pointer to a value that is no alias; -1 while followed
	var follow func(at string) (int, bool)
	follow = func(at string) (int, bool) {
		next, ok := s.aliases[at]
		if !ok {
			return 0, true
		}
		switch n := depth[at]; {
		case n < 0:
			return 0, false
		case n > 0:
			return n, true
		}
		depth[at] = -1
		n, ok := follow(next)
		depth[at] = n + 1
		return n + 1, ok
	}
	longest, head := 0, ""
	for _, at := range slices.Sorted(maps.Keys(s.aliases)) {
		n, ok := follow(at)
		if !ok {
			return fmt.Errorf("%s is a $ref to a $ref ... that comes back to itself: it names no schema", strings.TrimPrefix(at, "#"))
		}
		if n > longest {
			longest, head = n, at
		}
	}
	if longest > maxAliases {
		return fmt.Errorf("%s starts a chain of %d references to references, more than the %d init follows", strings.TrimPrefix(head, "#"), longest, maxAliases)
	}
	return nil
}

// CheckSize refuses a document of n bytes when n is over MaxDocument.
func CheckSize(n int64) error {
	if n > MaxDocument {
		return fmt.Errorf("the document is %s, larger than the %d MiB init reads: draft from a document trimmed to the paths you test", size(n), MaxDocument>>20)
	}
	return nil
}

// size writes a byte count in MiB.
func size(n int64) string {
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
