#!/bin/sh
# fenced-write.sh <fence token> <body>: writes a report row for the token's item, unless a holder
# with a higher epoch has written already (fenced-write.sql). Environment: FENCE_CHECK, FENCE_KEYS,
# JAVA, and PostgreSQL's own (PGHOST, PGDATABASE, PGUSER, …). See docs/fencing-outside.md.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: fenced-write.sh <fence token> <body>" >&2
    exit 64
fi
holder=$("${JAVA:-java}" "$FENCE_CHECK" --keys "$FENCE_KEYS" "$1") || exit 2
item=$(echo "$holder" | sed -n 's/.*item=\([^ ]*\).*/\1/p')
epoch=$(echo "$holder" | sed -n 's/.*epoch=\([0-9]*\).*/\1/p')
written=$(psql -X -q -t -A -v ON_ERROR_STOP=1 -v item_id="$item" -v epoch="$epoch" -v body="$2" \
    -f "$(dirname "$0")/fenced-write.sql")
if [ "$written" != "1" ]; then
    echo "write refused: item $item has seen an epoch above $epoch" >&2
    exit 1
fi
echo "written for $holder"
