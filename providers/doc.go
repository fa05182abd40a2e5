// Package providers lists the node kinds kiln's language knows. Each kind
// lives in its own package below this one.
package providers
