#!/bin/bash
# vm-run.sh CMD...  -- runs CMD as root in a throwaway VM booting Debian 12's
# own kernel (prepared by scripts/vm-setup.sh), for tests of the kernel paths
# this machine's kernel lacks (kprobes, fentry/fexit, modules).
# Guest root = host / (9p, read-only) + tmpfs overlay (writes are discarded);
# cwd kept; CMD's stdout, stderr and exit status are returned (125: the VM
# died or never ran CMD; the console tail goes to stderr).
# Env: VM_DIR (kernel+initrd+modules), VM_ACCEL=tcg|tcg-multi|kvm, VM_MEM, VM_SMP,
#      VM_RW="dir1,dir2" (shared writable at the same paths), VM_LOG=file
#      (console log), VM_TIMEOUT (s), VM_APPEND (extra kernel args)
set -u
VM_DIR=${VM_DIR:-/var/cache/osprof-vm}
if [ ! -s "$VM_DIR/kver" ] || [ ! -s "$VM_DIR/initrd.img" ]; then
  echo "vm-run: no VM in $VM_DIR: run scripts/vm-setup.sh first (as root)" >&2
  exit 125
fi
KV=$(cat "$VM_DIR/kver")
ACCEL=${VM_ACCEL:-tcg}; MEM=${VM_MEM:-2G}; SMP=${VM_SMP:-2}
# Not under /tmp: guests mount a scratch disk there, which would hide it.
OUT=$(mktemp -d /var/tmp/osprof-vm-out.XXXXXX)
{ printf 'cd %q 2>/dev/null || cd /\n' "$PWD"; printf '%q ' "$@"; echo; } > "$OUT/cmd.sh"
# TCG runs both vCPUs on one host thread (thread=single): with one thread
# per vCPU (thread=multi, 15 % faster) the guest livelocked when osprof
# attached sys_enter while another vCPU looped through syscalls: the
# jump-label patch left that vCPU re-executing a stale translated int3 at
# syscall_trace_enter, which the kernel's "int3 already removed" path sends
# back to forever (soft lockup on both CPUs, RIP at the patched `jmp`;
# reproduced in 1 of 7 runs of kern_record under host load, 0 of 15 single).
case $ACCEL in
  kvm) ACC=(-accel kvm -cpu host,-arch-capabilities,-cx16);;
  tcg-multi) ACC=(-accel tcg,thread=multi,tb-size=512 -cpu max);;
  *)   ACC=(-accel tcg,thread=single,tb-size=512 -cpu max);;
esac
M=(-M pc); T=pci   # microvm+qboot hangs under TCG (no PIT/HPET for TSC/APIC calibration)
DEV=(-fsdev local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap
     -device virtio-9p-$T,fsdev=fsroot,mount_tag=hostroot
     -fsdev local,id=fsout,path="$OUT",security_model=none,multidevs=remap
     -device virtio-9p-$T,fsdev=fsout,mount_tag=out)
i=0; for d in $(echo "${VM_RW:-}" | tr ',' ' '); do
  DEV+=(-fsdev local,id=fsrw$i,path="$d",security_model=none,multidevs=remap -device virtio-9p-$T,fsdev=fsrw$i,mount_tag=rw$i); i=$((i+1)); done
timeout "${VM_TIMEOUT:-600}" qemu-system-x86_64 "${M[@]}" "${ACC[@]}" -m "$MEM" -smp "$SMP" \
  -display none -serial file:"$OUT/console.log" -monitor none -nic none -no-reboot \
  -kernel "$VM_DIR/vmlinux" -initrd "$VM_DIR/initrd.img" \
  -append "console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off cryptomgr.notests tsc=reliable no_timer_check i8042.noaux 8250.nr_uarts=1 vmmods=$VM_DIR/root/lib/modules/$KV vmout=$OUT vmrw=${VM_RW:-} ${VM_APPEND:-}" \
  "${DEV[@]}" ${VM_QEMU_EXTRA:-}
qrc=$?
cat "$OUT/stdout" 2>/dev/null; cat "$OUT/stderr" >&2 2>/dev/null
if [ -f "$OUT/rc" ]; then rc=$(cat "$OUT/rc"); else rc=125; echo "vm-run: no exit code (qemu rc=$qrc); console:" >&2; tail -30 "$OUT/console.log" >&2; fi
[ -n "${VM_LOG:-}" ] && cp "$OUT/console.log" "$VM_LOG" && cp "$OUT/t_up" "$VM_LOG.t" 2>/dev/null
rm -rf "$OUT"; exit "$rc"
