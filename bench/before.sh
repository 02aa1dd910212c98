#!/bin/bash
# before.sh REV: the Decoder (or, with -summarize, Summarize) of this tree
# beside that of commit REV, in one process, passes alternated, on the
# benchmark corpora. The root package of REV, and the internal packages it
# imports, are copied into before/old (ignored by git) and the program is
# built with the tag "before".
#
#   cd bench && ./before.sh 4036498 [-rounds 31] [-summarize]
#   cd bench && TAGS=borrow ./before.sh REV   # both with borrowed strings (REV must have them)
set -euo pipefail
rev=$1
shift
cd "$(dirname "$0")"
rm -rf before/old
mkdir -p before/old
git -C .. archive "$rev" | tar -x -C before/old --wildcards '*.go' --exclude='*/*' --exclude='*_test.go'
# The internal packages of REV that its root imports, as its own.
for pkg in $(grep -ho '"github.com/uagentkit/stream/internal/[a-z]*"' before/old/*.go | sort -u | tr -d '"'); do
	dir=${pkg#github.com/uagentkit/stream/}
	mkdir -p "before/old/$dir"
	git -C .. archive "$rev" "$dir" | tar -x -C before/old --exclude='*_test.go' --exclude='testdata'
done
sed -i 's|"github.com/uagentkit/stream/internal/|"github.com/uagentkit/stream/bench/before/old/internal/|' before/old/*.go
go run -tags "before ${TAGS:-}" ./before "$@"
