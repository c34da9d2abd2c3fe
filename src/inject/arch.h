/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch.h - what the syscall injector (tracee*.c) and the waiter logic
 * (src/pipeline/waiters.c) need to know about one CPU architecture: its
 * register set as ptrace shows it, its system call convention and
 * restart rules, and which of its system calls block on a descriptor.
 *
 * One implementation file per architecture (arch_x86_64.c); nothing
 * architecture-specific lives anywhere else.
 */
#ifndef REVOKE_ARCH_H
#define REVOKE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/user.h>

#if defined(__x86_64__)
typedef struct user_regs_struct arch_regs_t;
#else
#error "revoke-bpf: the pipeline supports x86_64 only (see src/inject/arch.h)"
#endif

/* How a blocked system call involves a descriptor. */
enum arch_waiter_kind {
	ARCH_WAIT_NONE,
	ARCH_WAIT_FDARG,	/* one or two arguments are descriptors */
	ARCH_WAIT_POLL,		/* poll, ppoll: struct pollfd array, count */
	ARCH_WAIT_SELECT,	/* select, pselect6: nfds, three fd_sets */
	ARCH_WAIT_EPOLL,	/* epoll_wait & co: epfd, events, maxevents */
};

/**
 * struct arch_waiter - a system call that can block on a descriptor
 * @kind: how it names the descriptor
 * @fdarg: for ARCH_WAIT_FDARG, the argument positions (-1: none)
 */
struct arch_waiter {
	enum arch_waiter_kind kind;
	int fdarg[2];
};

int arch_getregs(pid_t tid, arch_regs_t *regs);
int arch_setregs(pid_t tid, const arch_regs_t *regs);

long arch_syscall_nr(const arch_regs_t *regs);
long arch_syscall_ret(const arch_regs_t *regs);
unsigned long arch_syscall_arg(const arch_regs_t *regs, int i);
unsigned long arch_ip(const arch_regs_t *regs);

void arch_complete_syscall(arch_regs_t *regs, long ret);
void arch_setup_syscall(arch_regs_t *regs, unsigned long ip, long nr,
			const unsigned long args[6]);
bool arch_interrupted(const arch_regs_t *regs);
void arch_restart_syscall(arch_regs_t *regs);

unsigned long arch_stack_scratch(const arch_regs_t *regs, size_t len);
unsigned long arch_syscall_insn_ip(const arch_regs_t *regs);
bool arch_is_syscall_insn(const unsigned char *p, size_t len);
void arch_put_syscall_insn(unsigned char *p, size_t len);
extern const size_t arch_syscall_insn_len;

struct arch_waiter arch_waiter_of(long nr);

/* System calls the pipeline injects. */
extern const long arch_nr_mmap, arch_nr_munmap, arch_nr_memfd_create,
	arch_nr_fcntl, arch_nr_dup3, arch_nr_close, arch_nr_io_uring_register;

#endif /* REVOKE_ARCH_H */
