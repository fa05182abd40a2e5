"""verl-mini: a CPU-sized stand-in for verl's ReTool recipe."""
