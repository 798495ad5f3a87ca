/* osprof's half of the relocator (rootcause/agent/reloc.h): decodes the
 * first instructions of a function with capstone into a relocation plan,
 * and tells whether the function branches into them from elsewhere. */
#ifndef OSPROF_RC_RELOC_PLAN_H
#define OSPROF_RC_RELOC_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include "rootcause/agent/reloc.h"

/* Plans the relocation of whole instructions covering >= min_len bytes of
 * code (avail bytes readable, at link-time address vaddr). 0, or -ENOTSUP
 * with the reason in why. */
int rc_reloc_plan(const uint8_t *code, size_t avail, uint64_t vaddr, uint32_t min_len,
                  struct rcr_plan *p, char *why, size_t whylen);
/* 0 unless an instruction of the function [vaddr, vaddr + size) outside
 * the first len bytes branches into (vaddr, vaddr + len): -EXDEV and why. */
int rc_reloc_entry_check(const uint8_t *fn, size_t size, uint64_t vaddr, uint32_t len, char *why,
                         size_t whylen);

/* How the trampoline backend hooks a function [vaddr, vaddr + size) as f0:
 * RCS_JUMP (a jump over its relocated first instructions), RCS_BREAK (an
 * int3 over the first one alone: it branches into them, or is shorter than
 * a jump; why says which), or -ENOTSUP (why). p: the plan. */
int rc_reloc_plan_entry(const uint8_t *code, size_t size, uint64_t vaddr, struct rcr_plan *p,
                        char *why, size_t whylen);

#endif
