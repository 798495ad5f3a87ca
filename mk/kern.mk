# Kernel layers (eBPF): syscall name table generated from the system headers,
# the floor loader of bench/syscall_overhead.sh.
