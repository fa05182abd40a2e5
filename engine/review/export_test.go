package review

import "testing"

// For the external tests (views_test.go): the git fixture of this
// package's own tests.

type GitRepo struct{ *gitRepo }

func NewGitRepo(t testing.TB, dir string) GitRepo { return GitRepo{newGitRepo(t, dir)} }

func (g GitRepo) Commit(msg string, files map[string]string) string { return g.commit(msg, files) }
func (g GitRepo) Write(files map[string]string)                     { g.write(files) }
func (g GitRepo) Dir() string                                       { return g.dir }
