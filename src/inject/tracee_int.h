/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracee_int.h - what the files of src/inject/ share, inside it only:
 * one thread under ptrace and the reaper (tracee_thread.c), a stopped
 * process's memory (tracee_mem.c), a "syscall" instruction written for
 * it (tracee_insn.c), waiting for its threads to stop (tracee_stop.c),
 * running calls in it (tracee_syscall.c), and stopping and letting go
 * the whole process (tracee.c).  Calls go in that order, never back;
 * arch_x86_64.c and procfs.c are below them all.  Other folders include
 * inject.h.
 */
#ifndef REVOKE_TRACEE_INT_H
#define REVOKE_TRACEE_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "inject.h"

/* The stop status of a syscall stop, with PTRACE_O_TRACESYSGOOD. */
#define TRACEE_SYSCALL_STOP (SIGTRAP | 0x80)

/* tracee_thread.c */
uint64_t tracee_now_ns(void);
int tracee_wait_thread(struct tracee_thread *th, int *status,
		       uint64_t deadline);
bool tracee_signal_stop(int status);
int tracee_step_trap(pid_t tid, int status);
void tracee_reap_later(pid_t tid, const arch_regs_t *regs, bool stepping);
void tracee_lose_thread(struct tracee_thread *th);
bool tracee_detach_or_reap(pid_t tid);

/* tracee_insn.c */
int tracee_insn_place(struct tracee *t);
void tracee_insn_restore(struct tracee *t);

/* tracee_stop.c */
void tracee_wait_stops(struct tracee *t, uint64_t deadline);

/* tracee_syscall.c */
int tracee_syscall_choose(struct tracee *t);

#endif /* REVOKE_TRACEE_INT_H */
