#!/bin/sh
# deploy.sh <fence token> <artifact>: deploys the artifact (here: copies it into $DEPLOY_DIR) only
# for the current holder of the item the token names. A worker that lost its lease, and whose
# successor has already deployed, is refused; so is a token that does not verify.
# Environment: FENCE_CHECK, FENCE_KEYS, FENCE_STATE (as for the pre-receive hook), DEPLOY_DIR,
# JAVA (a Java 17 or newer). See docs/fencing-outside.md.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: deploy.sh <fence token> <artifact>" >&2
    exit 64
fi
token=$1
artifact=$2
if ! holder=$("${JAVA:-java}" "$FENCE_CHECK" --keys "$FENCE_KEYS" --state "$FENCE_STATE" "$token"); then
    echo "deploy of $artifact refused" >&2
    exit 1
fi
cp "$artifact" "$DEPLOY_DIR/"
echo "deployed $artifact for $holder"
