#!/usr/bin/env bash
# Installs Node 18 into .cache/node18 for the CLI's tests: the CLI promises
# Node 18, so test/cli runs it under a real Node 18 when one is here.
set -euo pipefail
exec bash "$(dirname "$0")/../../.ci/install-node.sh" 18.20.8
