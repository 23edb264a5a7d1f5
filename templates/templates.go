// Package templates holds the text/template sources of the C++ backend and
// the files it writes verbatim (the runtime's header and source, in
// runtime/ since Go refuses C++ files in a package's own directory; the
// selftest's sentinel checker), embedded so the wrapgen binary needs
// nothing beside it.
package templates

import "embed"

// FS holds every template and verbatim file.
//
//go:embed *.tmpl *.h runtime/*.h runtime/*.cc wgref/*.h wgref/*.cc
var FS embed.FS
