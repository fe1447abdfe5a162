# benchbuild.sh, sourced by benchcmp.sh and benchcpu.sh: the test binaries
# of two commits of one package, $work/old.test and $work/new.test.
# Expects old, new, pkg; sets top, work and dir, and removes what it made on
# exit. A revision "." is the working tree.
top=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$top" worktree remove --force "$work/old" 2>/dev/null || true; git -C "$top" worktree remove --force "$work/new" 2>/dev/null || true; rm -rf "$work"' EXIT

build() { # rev name
	if [ "$1" = . ]; then
		(cd "$top" && go test -c -o "$work/$2.test" "./$pkg")
	else
		git -C "$top" worktree add -q --detach "$work/$2" "$1"
		(cd "$work/$2" && go test -c -o "$work/$2.test" "./$pkg")
	fi
}
build "$old" old
build "$new" new
dir=$top/$pkg
