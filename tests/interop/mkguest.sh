#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the interop guest: Debian's kernel and an initramfs holding busybox,
# the rdma_rxe module with its dependencies, the kernel's RDMA connection
# manager (rdma_ucm, rdma_cm, ib_cm, iw_cm), libibverbs with the rxe
# provider, librdmacm, ibverbs-utils, perftest, rdmacm-utils' rping and
# iproute2's `rdma`, all copied from
# this machine's installed Debian packages (tools/deps.sh installs them).
#
#   tests/interop/mkguest.sh OUTDIR      -> OUTDIR/vmlinuz, OUTDIR/initrd.cpio
#
# Cached: OUTDIR/inputs lists every input (path, size, mtime, and the
# checksums of the scripts in tests/interop/guest/); nothing is rebuilt
# while it is unchanged.  HCASIM_GUEST_KVER picks another installed kernel.
set -euo pipefail

out=${1:?usage: mkguest.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)

# The kernel linux-image-amd64 points at (else the newest *-amd64 installed).
kver=${HCASIM_GUEST_KVER:-}
if [ -z "$kver" ]; then
  dep=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null | sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
  [ -n "$dep" ] && [ -d "/lib/modules/$dep" ] && kver=$dep
fi
if [ -z "$kver" ]; then
  kver=$(for d in /lib/modules/*-amd64; do [ -d "$d" ] && echo "${d##*/}"; done | sort -V | tail -1)
fi
kernel=/boot/vmlinuz-$kver
moddir=/lib/modules/$kver
if [ -z "$kver" ] || [ ! -r "$kernel" ] || [ ! -r "$moddir/modules.dep" ]; then
  echo "mkguest: no Debian kernel with modules found (install linux-image-amd64: tools/deps.sh)" >&2
  exit 1
fi

# Programs of the guest (ibverbs-utils, perftest, rdmacm-utils, iproute2).
progs=(ibv_devinfo ibv_devices ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong
       ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw ib_write_lat ib_read_lat ib_send_lat
       ib_atomic_lat rping rdma)
busybox=/bin/busybox	# busybox-static: needs no library
[ -x "$busybox" ] || { echo "mkguest: $busybox missing (busybox-static)" >&2; exit 1; }
provider_dir=$(dirname "$(find /usr/lib -name 'librxe-rdmav*.so' -print -quit)")
provider=$(find /usr/lib -name 'librxe-rdmav*.so' -print -quit)
driver_file=/etc/libibverbs.d/rxe.driver
[ -n "$provider" ] && [ -r "$driver_file" ] || { echo "mkguest: rxe provider of libibverbs missing (ibverbs-providers)" >&2; exit 1; }

bins=()
for p in "${progs[@]}"; do
  b=$(command -v "$p") || { echo "mkguest: $p not installed (tools/deps.sh)" >&2; exit 1; }
  bins+=("$(readlink -f "$b")")
done

# Kernel modules: the NIC (virtio-net over PCI), rdma_rxe, rdma_ucm (the
# /dev/infiniband/rdma_cm that librdmacm talks to; it pulls in rdma_cm,
# ib_cm, iw_cm and configfs) and everything modules.dep says they need, plus
# crc32_generic (rxe asks the crypto API for "crc32" at device
# registration; no modprobe in the guest to load it).
want=(virtio_pci virtio_net crc32_generic rdma_rxe rdma_ucm)
declare -A seen=()
order=()
load() {  # depth-first: dependencies first
  local m=$1 path deps d
  [ -n "${seen[$m]:-}" ] && return 0
  seen[$m]=1
  path=$(grep -E "^(kernel/)?([^:]*/)?$m\.ko(\.xz|\.zst)?:" "$moddir/modules.dep" | head -1) || true
  [ -n "$path" ] || { echo "mkguest: module $m not in $moddir" >&2; exit 1; }
  deps=${path#*:}
  for d in $deps; do
    d=${d##*/}; d=${d%%.ko*}
    load "$d"
  done
  order+=("${path%%:*}")
}
for m in "${want[@]}"; do load "$m"; done

# Libraries: ldd closure of the programs, busybox excluded (static).
libs=$( { for b in "${bins[@]}" "$provider"; do ldd "$b"; done; } |
        awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | sort -u)
# glibc loads libgcc_s.so.1 itself when a thread exits or is cancelled
# (rping's CM and CQ threads), so ldd does not list it (libgcc-s1).
gcc_s=$(dpkg-query -L libgcc-s1 2>/dev/null | grep '/libgcc_s\.so\.1$' | head -1)
[ -n "$gcc_s" ] || { echo "mkguest: libgcc_s.so.1 not found (libgcc-s1)" >&2; exit 1; }
libs="$libs $gcc_s"

inputs=("$kernel" "$busybox" "$provider" "$driver_file" "${bins[@]}")
for m in "${order[@]}"; do inputs+=("$moddir/$m"); done
for l in $libs; do inputs+=("$l" "$(readlink -f "$l")"); done
mkdir -p "$out"
key=$( { echo "kver $kver"; stat -L -c '%n %s %Y' "${inputs[@]}";
         sha256sum "$0" "$here"/guest/*; } )
if [ -r "$out/inputs" ] && [ "$(cat "$out/inputs")" = "$key" ] &&
   [ -r "$out/vmlinuz" ] && [ -r "$out/initrd.cpio" ]; then
  exit 0
fi
echo "mkguest: building the guest image in $out (kernel $kver)"

root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc/libibverbs.d,proc,sys,dev,tmp,root,lib/modules}
cp "$busybox" "$root/bin/busybox"
for b in "${bins[@]}"; do cp "$b" "$root/bin/"; done
for l in $libs; do
  mkdir -p "$root$(dirname "$l")"
  cp -L "$l" "$root$l"
done
mkdir -p "$root$provider_dir"
cp -L "$provider" "$root$provider"
cp "$driver_file" "$root/etc/libibverbs.d/"
: >"$root/etc/modules"
for m in "${order[@]}"; do
  cp "$moddir/$m" "$root/lib/modules/"
  echo "${m##*/}" >>"$root/etc/modules"
done
install -m 755 "$here/guest/init" "$root/init"
install -m 755 "$here/guest/agent" "$root/bin/agent"
install -m 755 "$here/guest/rxe-gid" "$root/bin/rxe-gid"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
# libc's getaddrinfo reads these; keep them local (no DNS in the guest).
printf 'hosts: files\nservices: files\n' >"$root/etc/nsswitch.conf"

(cd "$root" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet -R 0:0) >"$out/initrd.cpio.tmp"
mv "$out/initrd.cpio.tmp" "$out/initrd.cpio"
cp "$kernel" "$out/vmlinuz"
rm -rf "$root"
echo "$key" >"$out/inputs"
echo "mkguest: $(du -h "$out/initrd.cpio" | cut -f1) initramfs, modules: ${order[*]##*/}"
