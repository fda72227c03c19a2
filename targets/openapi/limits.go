package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
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

// prescan refuses, before kin-openapi reads it, a document larger than
// MaxDocument, holding a chain of aliases longer than maxAliases, or
// mappings wider than maxWork allows. It parses the document once and
// follows each alias once: linear in the document's size. A $ref that
// names nothing in the document (kin-openapi would refuse the whole
// document for it) is replaced by an empty value marked with the
// extension danglingRef, and returned in dangling: data is then the
// document written again.
func prescan(data []byte) (patched []byte, dangling []string, err error) {
	if err := CheckSize(int64(len(data))); err != nil {
		return nil, nil, err
	}
	s := scan{aliases: map[string]alias{}}
	var root any
	var node yaml.Node
	isJSON := false
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		if json.Unmarshal(data, &root) != nil {
			return data, nil, nil // kin-openapi says what is wrong with it
		}
		isJSON = true
		s.value(root, "")
	} else {
		// A node tree, not maps: decoding into a map is the quadratic
		// comparison of keys this guards against.
		if yaml.Unmarshal(data, &node) != nil {
			return data, nil, nil
		}
		s.node(&node, "")
	}
	if err := s.chains(); err != nil {
		return nil, nil, err
	}
	if s.work > maxWork {
		return nil, nil, fmt.Errorf("%s has %d keys: a document of mappings this wide takes kin-openapi minutes to read; draft from a document trimmed to the paths you test", strings.TrimPrefix(s.widest, "#"), s.width)
	}
	for _, at := range slices.Sorted(maps.Keys(s.aliases)) {
		a := s.aliases[at]
		if isJSON && resolves(root, a.ref) || !isJSON && resolvesNode(&node, a.ref) {
			continue
		}
		if !slices.Contains(dangling, a.ref) {
			dangling = append(dangling, a.ref)
		}
		if a.m != nil {
			delete(a.m, "$ref")
			a.m[danglingRef] = a.ref
		} else {
			a.key.Value = danglingRef
		}
	}
	if len(dangling) == 0 {
		return data, nil, nil
	}
	slices.Sort(dangling)
	if isJSON {
		patched, err = json.Marshal(root)
	} else {
		patched, err = yaml.Marshal(&node)
	}
	return patched, dangling, err
}

// danglingRef is the extension prescan leaves where a $ref named
// nothing, holding what it named.
const danglingRef = "x-idemspec-dangling-ref"

// resolves says whether a JSON pointer ("#/components/schemas/A")
// names a value of a document decoded from JSON.
func resolves(v any, ref string) bool {
	for _, token := range pointerTokens(ref) {
		switch c := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = c[token]; !ok {
				return false
			}
		case []any:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(c) {
				return false
			}
			v = c[i]
		default:
			return false
		}
	}
	return true
}

// resolvesNode is resolves over a YAML node tree.
func resolvesNode(n *yaml.Node, ref string) bool {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, token := range pointerTokens(ref) {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		switch n.Kind {
		case yaml.MappingNode:
			var next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == token {
					next = n.Content[i+1]
				}
			}
			if next == nil {
				return false
			}
			n = next
		case yaml.SequenceNode:
			i, err := strconv.Atoi(token)
			if err != nil || i < 0 || i >= len(n.Content) {
				return false
			}
			n = n.Content[i]
		default:
			return false
		}
	}
	return true
}

// pointerTokens splits a JSON pointer after its "#" into its unescaped
// tokens.
func pointerTokens(ref string) []string {
	p := strings.TrimPrefix(ref, "#")
	if p == "" {
		return nil
	}
	tokens := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range tokens {
		tokens[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return tokens
}

// scan is what checkLimits finds in a parsed document.
type scan struct {
	aliases map[string]alias // by the JSON pointer of the object holding the $ref ("#/components/schemas/A")
	work    int64            // the sum of the squares of the mappings' sizes
	widest  string           // the widest mapping's pointer, and its number of keys
	width   int
}

func (s *scan) mapping(at string, keys int) {
	s.work += int64(keys) * int64(keys)
	if keys > s.width {
		s.widest, s.width = "#"+at, keys
	}
}

// alias is a $ref within the document: what it names, and the object
// holding it (a decoded map, or the key node of a YAML mapping).
type alias struct {
	ref string
	m   map[string]any
	key *yaml.Node
}

func (s *scan) ref(at string, a alias) {
	if !strings.HasPrefix(a.ref, "#") {
		return // another file's: kin-openapi refuses it
	}
	if unescaped, err := url.PathUnescape(a.ref); err == nil {
		a.ref = unescaped
	}
	s.aliases["#"+at] = a
}

// value walks a document decoded from JSON.
func (s *scan) value(v any, at string) {
	switch v := v.(type) {
	case map[string]any:
		s.mapping(at, len(v))
		if ref, ok := v["$ref"].(string); ok {
			s.ref(at, alias{ref: ref, m: v})
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
				s.ref(at, alias{ref: v.Value, key: k})
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
		a, ok := s.aliases[at]
		if !ok {
			return 0, true
		}
		next := a.ref
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
