package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxIncludeDepth is how deeply include files may nest (the main file is depth 0). It stops
// include chains that never end; a file that includes itself, directly or through others, is
// reported as a loop before this limit is reached.
const MaxIncludeDepth = 16

// maxNodes and maxTreeSize bound the tree one load may build, so that YAML aliases cannot
// expand a small file into an enormous tree: maxNodes counts nodes, maxTreeSize the bytes they
// stand for (nodeSize for each node plus the length of its name and value, as Dump would write
// them). An alias that refers to a node still being expanded (a cycle) is refused outright.
const (
	maxNodes    = 1 << 20
	maxTreeSize = 32 << 20
	nodeSize    = 128
)

// Config is a loaded configuration: a tree of Nodes with Suricata's semantics. The zero value
// is not usable; get one from Load, Parse or LoadDefault.
//
// A Config is not safe for concurrent mutation (Set, Include); reading it from several
// goroutines is safe.
type Config struct {
	root  *Node
	path  string
	base  string
	files []string
}

// Error is a configuration error. Its text is "config: FILE:LINE: KEY: MESSAGE", leaving out
// the parts that are not known.
type Error struct {
	// File is the file the error is about, if any.
	File string
	// Line is the 1-based line in File, or 0.
	Line int
	// Key is the dotted configuration key the error is about, if any.
	Key string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any (for errors.Is, e.g. fs.ErrNotExist).
	Err error
}

// Error implements error.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// nodeError builds an Error located at n.
func nodeError(n *Node, key, format string, args ...any) *Error {
	e := &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.File, e.Line = n.File, n.Line
	}
	return e
}

// LoadDefault returns a configuration with no file behind it: every setting takes its
// Suricata default (see Settings). Like Suricata with an empty file, it has no outputs and no
// rule files; the repository's suricata.yaml is the usual starting point instead. Include
// paths are resolved against the current directory.
func LoadDefault() *Config {
	return &Config{root: &Node{Kind: MappingNode}, base: "."}
}

// Load reads the Suricata configuration file at path, with its includes.
//
// The file may start with the "%YAML 1.1" directive and "---" that Suricata requires; Meerkat
// also accepts a file without them. Another YAML version is an error, as in Suricata.
//
// Merging follows Suricata's loader (conf-yaml-loader.c):
//
//   - Keys are case-sensitive. Underscores in keys are turned into dashes (Suricata's
//     deprecated spelling), except for the variable names directly under address-groups and
//     port-groups.
//   - A key defined again, in the same file or by a later include, replaces the earlier value as
//     a whole (mappings are not merged recursively) but keeps the earlier key's position.
//   - A key containing dots ("stream.midstream: true") names a path: it creates or updates only
//     that leaf, so it can override one setting inside a mapping defined earlier.
//   - "include: FILE" or "include: [FILE, ...]" in any mapping inlines each file's top-level
//     mapping into that mapping at that point: the included keys override keys above the
//     include, and keys after it override the included ones.
//   - "key: !include FILE" makes FILE's content (a mapping or a list) the value of key.
//   - Relative include paths are resolved against the directory of the main configuration file
//     (as Suricata does: not against the including file's directory).
//   - Includes nest up to MaxIncludeDepth; a file including itself is an error.
//   - Several YAML documents in one file are merged in order. Anchors and aliases are expanded.
//
// Errors name the file and line: "config: /etc/x.yaml:12: mapping values are not allowed in
// this context". A missing file gives an error that matches fs.ErrNotExist.
func Load(path string) (*Config, error) {
	data, err := readFile(path, nil)
	if err != nil {
		return nil, err
	}
	return parse(path, data)
}

// Parse is Load for a configuration already in memory; name is used in messages and its
// directory for relative includes.
func Parse(name string, data []byte) (*Config, error) {
	return parse(name, data)
}

func parse(name string, data []byte) (*Config, error) {
	c := &Config{root: &Node{Kind: MappingNode}, path: name, base: filepath.Dir(name)}
	l := &loader{cfg: c}
	if err := l.loadData(name, data, c.root, true); err != nil {
		return nil, err
	}
	return c, nil
}

// Include merges the file at path into the configuration as if the main file ended with an
// include of it (Suricata's --include). Relative paths are resolved like includes inside the
// configuration. Call it before Set so that command-line values win. On error the
// configuration may be partly merged.
func (c *Config) Include(path string) error {
	l := &loader{cfg: c}
	return l.include(path, c.root, nil)
}

// Root returns the root mapping of the tree. Callers must not modify it; use Set.
func (c *Config) Root() *Node { return c.root }

// Path returns the main configuration file ("" for LoadDefault).
func (c *Config) Path() string { return c.path }

// Files returns every file read, the main file first, then includes in the order they were
// read.
func (c *Config) Files() []string { return append([]string(nil), c.files...) }

// loader carries the state of one Load (or Include) call.
type loader struct {
	cfg   *Config
	stack []string // absolute paths of the files being loaded, outermost first
	nodes int
	size  int // bytes charged to the tree so far, see maxTreeSize

	// expanding holds the anchored YAML mappings and lists whose expansion is under way: an
	// alias to one of them would make the tree infinite.
	expanding map[*yaml.Node]bool
}

// maxFileSize bounds the size of one configuration file.
const maxFileSize = 64 << 20

// readFile reads a configuration file; at, if not nil, is the include statement asking for it.
// Directories and devices are refused (reading /dev/zero or a terminal would never end).
func readFile(path string, at *Node) ([]byte, error) {
	fail := func(msg string, err error) error {
		if at != nil {
			return &Error{File: at.File, Line: at.Line, Msg: fmt.Sprintf("include %s: %s", path, msg), Err: err}
		}
		return &Error{File: path, Msg: msg, Err: err}
	}
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, fail(msg, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fail(err.Error(), err)
	}
	if m := st.Mode(); m.IsDir() || m&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket) != 0 {
		what := "not a regular file"
		if m.IsDir() {
			what = "is a directory, not a file"
		}
		return nil, fail(what, nil)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fail(err.Error(), err)
	}
	if len(data) > maxFileSize {
		return nil, fail(fmt.Sprintf("larger than %d bytes", maxFileSize), nil)
	}
	return data, nil
}

// include loads the file name into the mapping dst ("include:" statements and
// Config.Include). at is the include statement, nil for Config.Include.
func (l *loader) include(name string, dst *Node, at *Node) error {
	return l.loadFile(name, dst, at, true)
}

// loadFile resolves, reads and merges one included file into dst. With mappingOnly the file
// must hold a mapping; otherwise (!include) it may hold a list that becomes dst's value.
func (l *loader) loadFile(name string, dst *Node, at *Node, mappingOnly bool) error {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(l.cfg.base, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	for i, f := range l.stack {
		if f == abs {
			chain := append(append([]string(nil), l.stack[i:]...), abs)
			return &Error{File: posFile(at), Line: posLine(at),
				Msg: "include loop: " + strings.Join(chain, " -> ")}
		}
	}
	if len(l.stack) > MaxIncludeDepth {
		return &Error{File: posFile(at), Line: posLine(at),
			Msg: fmt.Sprintf("include %s: includes nested deeper than %d files", path, MaxIncludeDepth)}
	}
	data, err := readFile(path, at)
	if err != nil {
		return err
	}
	return l.loadData(path, data, dst, mappingOnly)
}

func posFile(n *Node) string {
	if n == nil {
		return ""
	}
	return n.File
}

func posLine(n *Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}

// loadData parses one file and merges its documents into dst. With mappingOnly, a document
// must be a mapping (main file, include:); otherwise (for !include) it may also be a list,
// which becomes dst's value.
func (l *loader) loadData(file string, data []byte, dst *Node, mappingOnly bool) error {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	l.stack = append(l.stack, abs)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	l.cfg.files = append(l.cfg.files, file)

	data, err = stripVersionDirective(file, data)
	if err != nil {
		return err
	}
	docs, err := decodeDocuments(file, data)
	if err != nil {
		return err
	}
	for _, doc := range docs {
		if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
			continue
		}
		top := doc.Content[0]
		if top.Kind == yaml.AliasNode && top.Alias != nil {
			top = top.Alias
		}
		switch {
		case top.Kind == yaml.MappingNode:
			if dst.Kind != MappingNode {
				dst.reset(MappingNode, file, top.Line)
			}
			if err := l.applyMapping(file, top, dst); err != nil {
				return err
			}
		case top.Kind == yaml.SequenceNode && !mappingOnly:
			dst.reset(SequenceNode, file, top.Line)
			if err := l.fillSequence(file, top, dst); err != nil {
				return err
			}
		case top.Kind == yaml.ScalarNode && isNullScalar(top):
			// An empty document.
		default:
			what := "a mapping"
			if !mappingOnly {
				what = "a mapping or a list"
			}
			return &Error{File: file, Line: top.Line, Msg: "the top level must be " + what}
		}
	}
	return nil
}

// yamlLine matches the position yaml.v3 puts in its messages.
var yamlLine = regexp.MustCompile(`^line (\d+): `)

// yamlAnchor matches yaml.v3's alias errors, which carry no position.
var yamlAnchor = regexp.MustCompile(`anchor '([^']*)'`)

// decodeDocuments parses every YAML document in data into yaml.v3 nodes.
func decodeDocuments(file string, data []byte) (docs []*yaml.Node, err error) {
	defer func() {
		// yaml.v3 reports errors by panicking internally and recovering; a panic that escapes
		// would be a parser bug. Turn it into an error rather than bring the engine down.
		if r := recover(); r != nil {
			docs, err = nil, &Error{File: file, Line: 1, Msg: fmt.Sprintf("YAML parser failure: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		n := new(yaml.Node)
		err := dec.Decode(n)
		if err == io.EOF {
			return docs, nil
		}
		if err != nil {
			return nil, yamlError(file, data, err)
		}
		docs = append(docs, n)
	}
}

// yamlError turns a yaml.v3 error into an Error with file and line. yaml.v3 leaves the line out
// when the problem is on the first line, and for alias errors; the line of the first use of the
// alias is looked up then.
func yamlError(file string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
		line = problemLine(data, line, msg)
	} else if m := yamlAnchor.FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			line = 1 + bytes.Count(data[:i], []byte("\n"))
		}
	}
	return &Error{File: file, Line: line, Msg: msg, Err: err}
}

// stripVersionDirective turns each "%YAML 1.1" directive line into a comment, keeping the line
// count so that positions stay right. Any other version is an error, as in Suricata, which
// only reads YAML 1.1.
func stripVersionDirective(file string, data []byte) ([]byte, error) {
	out := data
	copied := false
	lineNo := 0
	for off := 0; off < len(data); {
		lineNo++
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		text := string(data[off:end])
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) > 0 && fields[0] == "%YAML" {
			if len(fields) != 2 || fields[1] != "1.1" {
				return nil, &Error{File: file, Line: lineNo,
					Msg: fmt.Sprintf("unsupported YAML directive %q: the configuration must be YAML 1.1",
						strings.Join(fields, " "))}
			}
			if !copied {
				out = append([]byte(nil), data...)
				copied = true
			}
			out[off] = '#'
		}
		off = end + 1
	}
	return out, nil
}

// isNullScalar reports whether a YAML scalar means "no value" to Suricata: an unquoted empty
// value, ~ or null/Null/NULL.
func isNullScalar(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	switch n.Value {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// count accounts for one more node called name and fails when the tree gets too big.
func (l *loader) count(file string, line int, name string) error {
	l.nodes++
	if l.nodes > maxNodes {
		return &Error{File: file, Line: line, Msg: fmt.Sprintf("configuration too large (more than %d nodes; alias expansion?)", maxNodes)}
	}
	return l.charge(file, line, nodeSize+len(name))
}

// charge accounts for n more bytes of tree and fails when the tree gets too big.
func (l *loader) charge(file string, line, n int) error {
	l.size += n
	if l.size > maxTreeSize {
		return &Error{File: file, Line: line, Msg: fmt.Sprintf("configuration too large (more than %d bytes; alias expansion?)", maxTreeSize)}
	}
	return nil
}

// deref returns the node the alias v refers to, or v itself when it is no alias. An alias to
// nothing, or to a mapping or list that is still being expanded (a cycle such as
// "a: &a [*a]"), is an error.
func (l *loader) deref(file string, v *yaml.Node) (*yaml.Node, error) {
	if v.Kind != yaml.AliasNode {
		return v, nil
	}
	if v.Alias == nil {
		return nil, &Error{File: file, Line: v.Line, Msg: "alias to nothing"}
	}
	if l.expanding[v.Alias] {
		return nil, &Error{File: file, Line: v.Line,
			Msg: fmt.Sprintf("alias *%s refers to a node that contains it (alias cycle)", v.Value)}
	}
	return v.Alias, nil
}

// enter marks the YAML mapping or list src as being expanded, if it has an anchor (only
// anchored nodes can be the target of an alias); the returned function unmarks it.
func (l *loader) enter(src *yaml.Node) func() {
	if src.Anchor == "" {
		return func() {}
	}
	if l.expanding == nil {
		l.expanding = make(map[*yaml.Node]bool)
	}
	l.expanding[src] = true
	return func() { delete(l.expanding, src) }
}

// isVarGroup reports whether keys below a node called name keep their underscores.
func isVarGroup(name string) bool { return name == "address-groups" || name == "port-groups" }

// mangle turns underscores into dashes, as Suricata does for keys.
func mangle(s string) string { return strings.ReplaceAll(s, "_", "-") }

// applyMapping merges the YAML mapping src into the mapping dst.
func (l *loader) applyMapping(file string, src *yaml.Node, dst *Node) error {
	defer l.enter(src)()
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, err := l.deref(file, src.Content[i])
		if err != nil {
			return err
		}
		if k.Kind != yaml.ScalarNode {
			return &Error{File: file, Line: k.Line, Msg: "a mapping key must be a plain value"}
		}
		v, err := l.deref(file, src.Content[i+1])
		if err != nil {
			return err
		}
		key := k.Value
		if key == "" {
			continue
		}
		if key == "include" {
			if err := l.includeValue(file, k, v, dst); err != nil {
				return err
			}
			continue
		}
		var target *Node
		if strings.Contains(key, ".") {
			t, err := l.walkCreate(file, k.Line, dst, key)
			if err != nil {
				return err
			}
			target = t
			if v.Kind == yaml.MappingNode && target.Kind == MappingNode {
				// A dotted key updates the mapping it names rather than replacing it.
				target.File, target.Line = file, k.Line
				if err := l.applyMapping(file, v, target); err != nil {
					return err
				}
				continue
			}
			target.reset(ScalarNode, file, k.Line)
		} else {
			name := key
			if !isVarGroup(dst.Name) {
				name = mangle(name)
			}
			target = dst.Child(name)
			if target != nil {
				target.reset(ScalarNode, file, k.Line)
			} else {
				if err := l.count(file, k.Line, name); err != nil {
					return err
				}
				target = dst.addChild(name, file, k.Line)
			}
		}
		if err := l.assign(file, v, target); err != nil {
			return err
		}
	}
	return nil
}

// includeValue handles "include: FILE" and "include: [FILE, ...]" inside the mapping dst.
func (l *loader) includeValue(file string, k, v *yaml.Node, dst *Node) error {
	at := &Node{Name: "include", File: file, Line: k.Line}
	switch v.Kind {
	case yaml.ScalarNode:
		if isNullScalar(v) {
			return nil
		}
		return l.include(v.Value, dst, at)
	case yaml.SequenceNode:
		for _, e := range v.Content {
			e, err := l.deref(file, e)
			if err != nil {
				return err
			}
			if e.Kind != yaml.ScalarNode {
				return &Error{File: file, Line: e.Line, Msg: "include: list entries must be file names"}
			}
			if isNullScalar(e) {
				continue
			}
			at.Line = e.Line
			if err := l.include(e.Value, dst, at); err != nil {
				return err
			}
		}
		return nil
	default:
		return &Error{File: file, Line: v.Line, Msg: "include: must be a file name or a list of file names"}
	}
}

// walkCreate finds or creates the node at the dotted path key below dst (for dotted YAML keys).
func (l *loader) walkCreate(file string, line int, dst *Node, key string) (*Node, error) {
	cur := dst
	for seg := range strings.SplitSeq(key, ".") {
		if seg == "" {
			return nil, &Error{File: file, Line: line, Msg: fmt.Sprintf("key %q has an empty part", key)}
		}
		switch {
		case cur.Kind == SequenceNode:
			next := cur.Child(seg)
			if next == nil {
				return nil, &Error{File: file, Line: line,
					Msg: fmt.Sprintf("key %q: %q is not an index of the list (cannot add list entries)", key, seg)}
			}
			cur = next
		case cur.Kind == MappingNode || cur.Null:
			if cur.Kind != MappingNode {
				cur.reset(MappingNode, file, line)
			}
			next := cur.Child(seg)
			if next == nil {
				if err := l.count(file, line, seg); err != nil {
					return nil, err
				}
				next = cur.addChild(seg, file, line)
			}
			cur = next
		default:
			return nil, &Error{File: file, Line: line,
				Msg: fmt.Sprintf("key %q: %q is a value, not a mapping", key, cur.Name)}
		}
	}
	return cur, nil
}

// assign makes the YAML value v the value of n (n has just been created or reset).
func (l *loader) assign(file string, v *yaml.Node, n *Node) error {
	v, err := l.deref(file, v)
	if err != nil {
		return err
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!include" && !isNullScalar(v) {
			n.reset(MappingNode, file, v.Line)
			return l.includeInto(file, v, n)
		}
		if err := l.charge(file, v.Line, len(v.Value)); err != nil {
			return err
		}
		n.Kind = ScalarNode
		n.Value = v.Value
		n.Null = isNullScalar(v)
		if n.Null {
			n.Value = ""
		}
		return nil
	case yaml.MappingNode:
		n.reset(MappingNode, n.File, n.Line)
		return l.applyMapping(file, v, n)
	case yaml.SequenceNode:
		n.reset(SequenceNode, n.File, n.Line)
		return l.fillSequence(file, v, n)
	default:
		return &Error{File: file, Line: v.Line, Msg: "unsupported YAML node"}
	}
}

// includeInto loads the file named by the !include scalar v as the value of n.
func (l *loader) includeInto(file string, v *yaml.Node, n *Node) error {
	return l.loadFile(v.Value, n, &Node{Name: "!include", File: file, Line: v.Line}, false)
}

// fillSequence appends the entries of the YAML list v to the (empty) sequence n.
func (l *loader) fillSequence(file string, v *yaml.Node, n *Node) error {
	defer l.enter(v)()
	for i, e := range v.Content {
		line := e.Line
		name := strconv.Itoa(i)
		if err := l.count(file, line, name); err != nil {
			return err
		}
		c := n.addChild(name, file, line)
		if err := l.assign(file, e, c); err != nil {
			return err
		}
	}
	return nil
}
