package detect

// The detect tests see the protocols the binary registers, so that the README's table of
// what does not load yet (TestReadmeUnsupportedTable) counts what meerkat refuses.
import _ "github.com/meerkat-ids/meerkat/applayer/protocols"
