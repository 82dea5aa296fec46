#!/usr/bin/env bash
# The programs a few tests drive besides Python: Graphviz's `dot` (the graph tests read DOT
# with it) and two Node projects with lockfiles (Mermaid's parser for the graph tests, the YAML
# language server for the editor-schema test). Each missing one is installed when it can be;
# without Node those tests are skipped with a reason, without `dot` the DOT checks are.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v dot >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null
fi
if command -v npm >/dev/null 2>&1; then
    for project in tests/mermaid tools/yaml-language-server; do
        npm ci --prefix "$project" --no-audit --no-fund --loglevel=error
    done
fi
