/* Entry and return trampolines of the DARC agent (x86-64 SysV).
 *
 * A patched call site `call foo` becomes `call stub`; the stub does
 *   mov $site, %r11d ; call *enter ; jmp *foo
 * darc_enter_asm saves every argument register, asks darc_c_enter whether to
 * time this call and, if so, the C side swaps the caller's return address
 * for darc_ret_asm. The callee then returns into darc_ret_asm, which saves
 * the return registers, lets darc_c_ret take the time and hand back the real
 * return address, and returns there. Stack alignment: darc_enter_asm is
 * entered with %rsp = 0 mod 16 and darc_ret_asm too (see the comments). */
	.text
	.globl darc_enter_asm
	.hidden darc_enter_asm
	.type darc_enter_asm, @function
darc_enter_asm:
	/* [rsp] = back into the stub, [rsp+8] = the caller's return address */
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	sub $128, %rsp
	movdqu %xmm0, 0(%rsp)
	movdqu %xmm1, 16(%rsp)
	movdqu %xmm2, 32(%rsp)
	movdqu %xmm3, 48(%rsp)
	movdqu %xmm4, 64(%rsp)
	movdqu %xmm5, 80(%rsp)
	movdqu %xmm6, 96(%rsp)
	movdqu %xmm7, 112(%rsp)
	mov %r11d, %edi
	lea 200(%rsp), %rsi /* 128 + 8 * 8 + 8: the caller's return address */
	call darc_c_enter
	movdqu 0(%rsp), %xmm0
	movdqu 16(%rsp), %xmm1
	movdqu 32(%rsp), %xmm2
	movdqu 48(%rsp), %xmm3
	movdqu 64(%rsp), %xmm4
	movdqu 80(%rsp), %xmm5
	movdqu 96(%rsp), %xmm6
	movdqu 112(%rsp), %xmm7
	add $128, %rsp
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	ret
	.size darc_enter_asm, .-darc_enter_asm

	.globl darc_ret_asm
	.hidden darc_ret_asm
	.type darc_ret_asm, @function
darc_ret_asm:
	/* %rsp = 0 mod 16 here (the callee popped its return address) */
	sub $8, %rsp /* becomes the real return address */
	push %rax
	push %rdx
	sub $40, %rsp
	movdqu %xmm0, 0(%rsp)
	movdqu %xmm1, 16(%rsp)
	call darc_c_ret
	mov %rax, 56(%rsp)
	movdqu 0(%rsp), %xmm0
	movdqu 16(%rsp), %xmm1
	add $40, %rsp
	pop %rdx
	pop %rax
	ret
	.size darc_ret_asm, .-darc_ret_asm
	.section .note.GNU-stack,"",@progbits
