#!/bin/bash
# before.sh REV: the Decoder of this tree beside the Decoder of commit REV,
# in one process, passes alternated, on the benchmark corpora. The root
# package of REV is copied into before/old (ignored by git) and the
# program is built with the tag "before".
#
#   cd bench && ./before.sh 4036498 [-rounds 31]
set -euo pipefail
rev=$1
shift
cd "$(dirname "$0")"
rm -rf before/old
mkdir -p before/old
git -C .. archive "$rev" | tar -x -C before/old --wildcards '*.go' --exclude='*/*' --exclude='*_test.go'
go run -tags before ./before "$@"
