// Package nolink opens the files kiln writes in its state folder without
// following a symbolic link at the last element of their path. A link
// planted there (.kiln/lock pointing at a file of the user's, or at
// /etc/passwd in a careless checkout) would otherwise make kiln truncate,
// overwrite or append to whatever it points at. OpenFile adds O_NOFOLLOW to
// every open; a refused link is an *Error that names the link, what it
// points at and the way forward (remove it).
//
// Files that are replaced rather than written in place (write a temporary
// file, rename it over the name) need nothing from this package: the
// temporary file is made with O_CREATE|O_EXCL, which never follows a link,
// and a rename replaces a link without touching its target.
//
// The package has no state.
package nolink
