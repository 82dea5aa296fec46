#!/usr/bin/env bash
# The programs a few tests drive besides Python: Graphviz's `dot` (the graph tests read DOT
# with it) and three Node projects with lockfiles (Mermaid's parser for the graph tests, the YAML
# language server for the editor-schema test, the MCP Inspector for `wflint mcp`'s). Each missing
# one is installed when it can be; without Node those tests are skipped with a reason, without
# `dot` the DOT checks are.
# When Node is there but `npm ci` cannot install a project (the npm registry unreachable, say),
# this script does not fail: it says so and leaves NPM_FAILED_MARKER in the project with npm's
# last words, and the tests that need the project are skipped with that reason.
set -euo pipefail
cd "$(dirname "$0")/.."
NPM_FAILED_MARKER=.npm-ci-failed
if ! command -v dot >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null
fi
if command -v npm >/dev/null 2>&1; then
    for project in tests/mermaid tools/yaml-language-server tools/mcp-inspector; do
        rm -f "$project/$NPM_FAILED_MARKER"
        # few, short retries (unless npm_config_fetch_retries... say otherwise): an unreachable
        # registry should cost seconds, not minutes
        if ! log=$(npm ci --prefix "$project" --no-audit --no-fund --loglevel=error \
                --fetch-retries="${npm_config_fetch_retries:-2}" \
                --fetch-retry-mintimeout="${npm_config_fetch_retry_mintimeout:-2000}" \
                --fetch-retry-maxtimeout="${npm_config_fetch_retry_maxtimeout:-10000}" 2>&1); then
            rm -rf "$project/node_modules"   # never half a project: the tests skip rather than fail oddly
            # npm's first lines say what failed (the code, and e.g. "request to ... failed, reason: ...")
            { echo "npm ci failed in $project:"; printf '%s\n' "$log" | grep -v '^\s*$' | head -n 4; } > "$project/$NPM_FAILED_MARKER"
            echo "install-test-tools: npm ci failed in $project; the tests that need it will be skipped (see $project/$NPM_FAILED_MARKER)" >&2
        elif [ -n "$log" ]; then
            printf '%s\n' "$log" >&2
        fi
    done
fi
