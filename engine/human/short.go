package human

// Short is how kiln shows a digest, key or commit id: its first 12
// characters, which tell one apart from the others of a pipeline.
func Short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
