#!/usr/bin/env bash
# The crates a user depends on package as crates.io would take them (docs/publishing.md):
# `cargo package` of each, in dependency order, verified (each package is unpacked and
# built on its own, its unpublished siblings from the packages made before it); then, in
# each `.crate`, only the files a user builds (no tests, benchmarks or their data) and no
# path-only dependency in the published manifest. Prints each package's size.
#
# Usage: scripts/package-check.sh [cargo package options, e.g. --no-verify --allow-dirty]
set -euo pipefail
cd "$(dirname "$0")/.."

# Dependency order: the CEL forks, the derive, the runtime, then what builds on it.
crates=(crd-toolkit-cel crd-toolkit-kube-cel crd-derive crd-runtime crd-gen crd-webhook crd-server)

# Files every package may hold (cargo adds the lock file, the original manifest and
# .cargo_vcs_info.json), then each package's own extras. Under src/, Rust sources and
# the listed data files the library reads with include_str!.
common='Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|\.cargo_vcs_info\.json|README\.md|LICENSE|src/.*\.rs'
extras() {
  case $1 in
    crd-toolkit-cel) echo 'README\.upstream\.md|CHANGELOG\.md|src/parser/gen/CEL(Lexer)?\.(g4|interp|tokens)' ;;
    crd-toolkit-kube-cel) echo 'README\.upstream\.md|CHANGELOG\.md' ;;
    crd-derive) echo 'ATTRIBUTES\.md' ;;
    crd-runtime) echo 'src/k8s/generated/schemas\.json' ;;
    crd-gen) echo 'data/crontab\.yaml' ;;
    crd-server) echo 'src/api/patch/generated/patch_meta\.json|src/stages/default/pod-[a-z]+\.yaml' ;;
    *) echo 'NOTHING' ;;
  esac
}

args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
# The verification builds (each package unpacked as its own workspace) get the workspace's
# dev profile, so in CI's target directory they reuse the dependencies the tests built.
profile=(--config 'profile.dev.debug="line-tables-only"'
  --config 'profile.dev.package."*".opt-level=1' --config 'profile.dev.package."*".debug=false')
# A verification builds the siblings it depends on from the temporary registry, where
# they are not workspace members and would get the dependencies' opt-level 1: ours are
# built unoptimized (a verification shows they build; their compile is its time).
for c in "${crates[@]}"; do
  profile+=(--config "profile.dev.package.\"$c\".opt-level=0")
done
# Cargo unpacks each verified package's siblings into its home's registry/src under a
# directory named for this workspace's temporary registry, and reuses that copy on the next
# run without looking at it again; it also keeps what it compiled from them, fingerprinted
# by version alone. A later check would build against last run's sources. Both are removed
# first (cargo unpacks and compiles them again from the new packages).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
clean=()
for c in "${crates[@]}"; do
  version=$(cargo pkgid -p "$c" | sed 's/.*[#@]//')
  rm -rf "$cargo_home"/registry/src/*/"$c-$version"
  case $c in crd-gen | crd-server) ;; *) clean+=(-p "$c") ;; esac
done
cargo clean --quiet "${profile[@]}" "${clean[@]}"
cargo package --locked "${profile[@]}" "${args[@]}" "$@"

target_dir=${CARGO_TARGET_DIR:-target}
status=0
printf '%-22s %8s %10s %12s\n' package files packaged unpacked
for c in "${crates[@]}"; do
  version=$(cargo pkgid -p "$c" | sed 's/.*[#@]//')
  file="$target_dir/package/$c-$version.crate"
  prefix="$c-$version/"
  allowed="^(${common}|$(extras "$c"))\$"
  unexpected=$(tar -tzf "$file" | sed "s|^$prefix||" | grep -Ev "$allowed" || true)
  if [ -n "$unexpected" ]; then
    echo "error: $c packages files a user does not build (add them to the allowed list in $0, or to \`exclude\`):" >&2
    echo "$unexpected" | sed 's/^/  /' >&2
    status=1
  fi
  # The published manifest names every dependency by version; a `path` left in a
  # dependency table is one a user cannot resolve.
  path_deps=$(tar -xzOf "$file" "${prefix}Cargo.toml" | awk '
    /^\[/ { deps = ($0 ~ /dependencies/) }
    deps && /(^|[ {,])path *=/ { print }')
  if [ -n "$path_deps" ]; then
    echo "error: $c's published manifest keeps a path dependency:" >&2
    echo "$path_deps" | sed 's/^/  /' >&2
    status=1
  fi
  files=$(tar -tzf "$file" | grep -vc '/$')
  unpacked=$(tar -tvzf "$file" | awk '{s += $3} END {print s}')
  printf '%-22s %8d %9dK %11dK\n' "$c" "$files" $(( $(stat -c %s "$file") / 1024 )) $(( unpacked / 1024 ))
done
exit $status
