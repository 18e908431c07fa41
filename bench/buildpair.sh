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
	build_bench "$wt" "$tmp/$name-old.test"
	build_bench "$root" "$tmp/$name-new.test"
	cd "$root/bench"
}

# build_bench TREE OUT builds the bench test binary of the checkout TREE as
# OUT. bench/ is a module of its own (with a replace of the library to ../)
# since it got a go.mod; before that it was a package of the root module.
build_bench() {
	if [ -f "$1/bench/go.mod" ]; then
		(cd "$1/bench" && go test -c -o "$2" .)
	else
		(cd "$1" && go test -c -o "$2" ./bench)
	fi
}
