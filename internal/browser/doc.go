// Package browser drives a headless Chromium through the DevTools protocol,
// for tests of kiln's HTML views: it opens a page from disk, collects the
// console errors and uncaught exceptions, evaluates expressions in the page
// and takes screenshots.
//
// The protocol runs over a pipe (--remote-debugging-pipe: the browser reads
// NUL-terminated JSON messages on file descriptor 3 and writes them on 4),
// so no port is opened and no websocket is needed; a client of some 200
// lines beats the dependency tree of chromedp for the few commands used.
//
// Chromium is found as $KILN_CHROMIUM, or chromium, chromium-browser or
// google-chrome on PATH (Debian's package is chromium). It runs with a fresh
// profile folder, without sandbox, GPU, QUIC or background networking, so a
// test touches nothing outside its temporary folder.
package browser
