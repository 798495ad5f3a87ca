#!/usr/bin/env bash
# Installs every Debian 12 package osprof needs to build, test and benchmark.
# Idempotent: packages already present are skipped by apt-get.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: must run as root (apt-get)" >&2
  exit 1
fi
PKGS=(
  build-essential make pkg-config clang llvm clang-format
  libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev zstd
  libcapstone-dev libfuse3-dev fuse3 libncurses-dev
  linux-libc-dev gnuplot-nox postmark fio bpftrace linux-perf strace
  tmux chromium xfsprogs btrfs-progs e2fsprogs util-linux python3
  libclang-rt-14-dev gzip uthash-dev hyperfine
  dbench sshfs openssh-sftp-server
  xxd libxml2-utils time
  libmicrohttpd-dev libprotobuf-c-dev protobuf-c-compiler prometheus
  help2man man-db bash-completion zsh debhelper dpkg-dev fakeroot jq
  qemu-system-x86 busybox-static cpio kmod xz-utils
  iproute2
)
# NFS server and client (tests/sh/kern_nfs.sh, run in the stock-kernel VM,
# which shares this machine's files): installed apart, with service starts
# denied, because their services cannot start on a kernel without nfsd and
# their failure would fail the install; the test starts its own daemons.
NFS_PKGS=(nfs-kernel-server nfs-common rpcbind)
# not_installed PKG...: those of PKG... that dpkg has not installed
not_installed() {
  for p; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
mapfile -t missing < <(not_installed "${PKGS[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
mapfile -t nfs_missing < <(not_installed "${NFS_PKGS[@]}")
if [ ${#nfs_missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# installing NFS packages (osprof install-deps.sh): no service starts\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${nfs_missing[@]}"
fi
# Browser test of the HTML report (tests/browser): playwright-core drives the
# Debian chromium. Node.js and npm usually come with the machine; where they
# do not, Debian's packages provide them.
if ! command -v npm >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm ||
    echo "install-deps.sh: cannot install nodejs/npm" >&2
fi
if command -v npm >/dev/null; then
  (cd "$(dirname "$0")/../tests/browser" && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "install-deps.sh: npm ci in tests/browser failed: tests/sh/views_html.sh cannot run" >&2
else
  echo "install-deps.sh: npm not found: tests/sh/views_html.sh will be skipped" >&2
fi
