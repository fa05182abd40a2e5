#!/bin/sh
# Make the example's two upstream git repositories, verl-mini (from
# upstream/) and plugin-mini (from plugin/), in $KILN_OUT.
#
# Author, committer, dates, file modes and configuration are fixed, so each
# commit SHA depends only on the files: pipeline.hcl pins them, as a real
# pipeline pins the commits of repositories on a server. After editing
# upstream/ or plugin/, run kiln apply: git_repo then names the new SHA to pin.
set -eu
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="kiln example" GIT_AUTHOR_EMAIL="example@kiln.invalid"
export GIT_COMMITTER_NAME="kiln example" GIT_COMMITTER_EMAIL="example@kiln.invalid"
export GIT_AUTHOR_DATE="2025-11-14T00:00:00+0000" GIT_COMMITTER_DATE="2025-11-14T00:00:00+0000"

make_repo() { # SRC NAME MESSAGE
  dst="$KILN_OUT/$2"
  mkdir -p "$dst"
  cp -R "$1/." "$dst/"
  find "$dst" -type f -exec chmod 644 {} +
  git -C "$dst" init -q -b main
  git -C "$dst" add -A
  git -C "$dst" commit -q -m "$3"
  echo "$2 $(git -C "$dst" rev-parse HEAD)"
}

make_repo upstream verl-mini "verl-mini: the ReTool recipe at CPU scale"
make_repo plugin plugin-mini "plugin-mini: patches for verl-mini"
