#!/bin/bash
# vm-setup.sh [VM_DIR]: fetches Debian 12's own kernel (linux-image-amd64,
# 6.1.x) and builds a tiny busybox initramfs for scripts/vm-run.sh, which the
# VM test phase (tests/sh/vm_stock_kernel.sh) boots. Idempotent; root.
# The VM directory is shared by every checkout on the machine, so the
# initramfs is replaced atomically (a VM booting meanwhile keeps the old one).
set -euo pipefail
VM_DIR=${1:-${VM_DIR:-/var/cache/osprof-vm}}; mkdir -p "$VM_DIR"; cd "$VM_DIR"; VM_DIR=$PWD
need=(); for c in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cpio:cpio depmod:kmod xz:xz-utils e2fsck:e2fsprogs; do
  command -v ${c%%:*} >/dev/null || need+=(${c#*:}); done
[ ${#need[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}"
PKG=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')   # e.g. linux-image-6.1.0-56-amd64
KV=${PKG#linux-image-}
if [ ! -d root/lib/modules/$KV ]; then
  rm -rf root; apt-get download "$PKG"; dpkg-deb -x ${PKG}_*.deb root; rm -f ${PKG}_*.deb
  depmod -b "$VM_DIR/root" "$KV"
fi
# uncompressed ELF vmlinux => qemu boots it via the PVH entry (no real-mode setup, no in-guest decompression)
if [ ! -s vmlinux ]; then
  python3 -c 'import sys;d=open(sys.argv[1],"rb").read();sys.stdout.buffer.write(d[d.find(b"\xfd7zXZ\x00"):])' root/boot/vmlinuz-$KV \
    | xz -dc --single-stream > vmlinux
fi
echo "$KV" > kver
rm -rf initrd.$$; mkdir -p initrd.$$/{bin,dev,proc,sys,newroot,lower,upper,mods}
cd initrd.$$
cp "$(command -v busybox)" bin/busybox
for a in sh mount umount insmod chroot mkdir ln cat tr sync poweroff setsid cttyhack uname; do ln -s busybox bin/$a; done
MODS="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_mmio 9pnet 9pnet_virtio netfs fscache 9p overlay configfs"
for m in $MODS; do cp "$(modinfo -b "$VM_DIR/root" -k $KV -n $m)" mods/; done
cat > init <<EOF
#!/bin/sh
# PID 1 (busybox sh, in RAM). Command root = overlay(host / via 9p read-only, tmpfs upper): writes are discarded.
# cmdline: vmout=DIR (9p tag "out": cmd.sh in; stdout, stderr, rc out), vmmods=DIR (this kernel's modules),
#          vmrw=D1,D2 (9p tags rw0,rw1.. mounted read-write at the same paths), vmshell=1 (interactive shell)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mount -t proc proc /proc; mount -t devtmpfs dev /dev
for m in $MODS; do insmod /mods/\$m.ko || echo "insmod \$m failed"; done
for a in \$(cat /proc/cmdline); do case \$a in vmout=*) OUT=\${a#vmout=};; vmmods=*) MODS=\${a#vmmods=};; vmrw=*) RW=\${a#vmrw=};; vmshell=*) SH=1;; esac; done
O9P=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o \$O9P,ro,cache=loose hostroot /lower || { echo "9p mount failed"; exec sh; }
mount -t tmpfs -o size=50% tmpfs /upper; mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w overlay /newroot || { echo "overlay failed"; exec sh; }
R=/newroot
mount -t proc proc \$R/proc; mount -t sysfs sys \$R/sys; mount -t devtmpfs dev \$R/dev
mkdir -p \$R/dev/pts \$R/dev/shm; mount -t devpts devpts \$R/dev/pts; mount -t tmpfs tmpfs \$R/dev/shm; mount -t tmpfs tmpfs \$R/run
mount -t debugfs debugfs \$R/sys/kernel/debug; mount -t tracefs tracefs \$R/sys/kernel/tracing
mount -t bpf bpf \$R/sys/fs/bpf; mount -t configfs configfs \$R/sys/kernel/config
KV=\$(uname -r)
[ -n "\$MODS" ] && [ ! -e \$R/lib/modules/\$KV ] && { mkdir -p \$R/lib/modules; ln -s "\$MODS" \$R/lib/modules/\$KV; }
i=0; for d in \$(echo "\$RW" | tr ',' ' '); do mount -t 9p -o \$O9P,cache=none rw\$i "\$R\$d"; i=\$((i+1)); done
if [ -n "\$OUT" ]; then
  mkdir -p "\$R\$OUT"; mount -t 9p -o \$O9P,cache=none out "\$R\$OUT"
  read up _ < /proc/uptime; echo "up \$up" > "\$R\$OUT/t_up"
  chroot \$R /bin/sh "\$OUT/cmd.sh" > "\$R\$OUT/stdout" 2> "\$R\$OUT/stderr" < /dev/null
  echo \$? > "\$R\$OUT/rc"
  read up _ < /proc/uptime; echo "done \$up" >> "\$R\$OUT/t_up"
  umount "\$R\$OUT"
fi
[ -n "\$SH" ] && setsid cttyhack sh
sync; poweroff -f
EOF
chmod +x init
find . | cpio -o -H newc 2>/dev/null | gzip -1 > ../initrd.img.$$
cd ..; mv -f initrd.img.$$ initrd.img; rm -rf initrd.$$
echo "vm-setup: kernel $KV ready in $VM_DIR"
