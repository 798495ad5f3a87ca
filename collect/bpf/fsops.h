/* Shared by fsops.bpf.c and collect/fsops*.c (plain C, included from both).
 * The generic fs layer: the functions a file system registers in its
 * file_operations, inode_operations, address_space_operations and
 * super_operations, timed at entry and exit. */
#ifndef OSPROF_COLLECT_BPF_FSOPS_H
#define OSPROF_COLLECT_BPF_FSOPS_H

/* How a function's argument leads to its super_block (and so the fs type). */
enum fsops_kind {
	FSOPS_K_NONE = 0,
	FSOPS_K_KIOCB,   /* ki_filp->f_inode->i_sb */
	FSOPS_K_FILE,    /* f_inode->i_sb */
	FSOPS_K_INODE,   /* i_sb */
	FSOPS_K_DENTRY,  /* d_sb */
	FSOPS_K_SB,      /* itself */
	FSOPS_K_MAPPING, /* host->i_sb */
	FSOPS_K_FOLIO,   /* mapping->host->i_sb */
	FSOPS_K_PAGE,    /* mapping->host->i_sb */
	FSOPS_K_RAC,     /* mapping->host->i_sb */
	FSOPS_K_PATH,    /* dentry->d_sb */
};

/* The ops tables of one open file, read by the discovery program. */
#define FSOPS_TBL_BYTES 512
enum { FSOPS_T_FILE, FSOPS_T_INODE, FSOPS_T_AOPS, FSOPS_T_SUPER, FSOPS_NTBL };
struct fsops_probe_out {
	__u64 addr[FSOPS_NTBL]; /* table addresses; 0 = none */
	__u64 s_type;           /* struct file_system_type of the file's sb */
	__u32 len[FSOPS_NTBL];  /* bytes copied */
	__s32 err;              /* 0, or why the file could not be read */
	__u32 pad;
	__u8 tbl[FSOPS_NTBL][FSOPS_TBL_BYTES];
};

/* Histogram key: op = function id, aux = fs index (fsops_types value). The
 * per-thread stack entry id is function id | fs index << 24. */
#define FSOPS_FS_SHIFT 24
/* Functions per timing object (program pairs fo_*_0 .. fo_*_15). */
#define FSOPS_SLOTS  16
#define FSOPS_MAX_FS 64

#endif
