# buildpair.sh, sourced by ab.sh and cgab.sh: build_pair REV NAME builds the
# bench test binary at git revision REV (in a temporary worktree, removed on
# exit) as $tmp/NAME-old.test and from the working tree as
# $tmp/NAME-new.test, then changes to bench/ (its tests read ../../shared
# relative to it). It sets root and tmp.
build_pair() {
	local rev=$1 name=$2
	root=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel)
	tmp=${TMPDIR:-/tmp}
	wt=$(mktemp -d "$tmp/$name-wt.XXXXXX")
	trap 'git -C "$root" worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
	git -C "$root" worktree add -q --detach "$wt" "$rev"
	(cd "$wt" && go test -c -o "$tmp/$name-old.test" ./bench)
	(cd "$root" && go test -c -o "$tmp/$name-new.test" ./bench)
	cd "$root/bench"
}
