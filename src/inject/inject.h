/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inject.h - stopping every thread of a process with ptrace, executing
 * system calls in it, and letting it go exactly as it was.
 *
 * Injected calls run the process's own "syscall" instruction (the one a
 * stopped thread was in, or one in its vDSO); a process with none gets
 * one written over a word of its code while every thread is stopped
 * (tracee_insn.c), and the word is put back, as every register is,
 * before it resumes.
 *
 * The folder's one public header: what other folders (the pipeline, the
 * daemon, the tests) use of it, with the CPU's registers and system
 * calls (arch.h) and what is read from /proc (procfs.h).  Its files
 * share tracee_int.h besides, which says the order their calls go in.
 * Nothing here calls up into src/pipeline/ or src/daemon/.
 */
#ifndef REVOKE_INJECT_H
#define REVOKE_INJECT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/types.h>

#include "arch.h"
#include "procfs.h"

#define TRACEE_MAX_RESEND 8
/*
 * The options every thread is seized with (tracee.c, tracee_insn.c,
 * tracee_syscall.c), but PTRACE_O_SUSPEND_SECCOMP only when the kernel
 * lets us have it: tracee_seize_opts().
 */
#define TRACEE_SEIZE_OPTS (PTRACE_O_TRACESYSGOOD | PTRACE_O_SUSPEND_SECCOMP)

/**
 * struct tracee_thread - one thread of a process under our ptrace
 * @tid: its kernel pid
 * @stopped: it is in a ptrace stop we caused
 * @in_vfork: it did not stop, asleep in vfork() (not waited for)
 * @injecting: system calls are being run in it; it is in a syscall stop
 *	or at the trap of a single step
 * @step: its injected calls are single-stepped (one stop each), which
 *	its signal mask and actions allow; else run from syscall entry to
 *	exit stop
 * @dirty: @regs differs from what the thread had; set them before leaving
 * @saved: its registers when it stopped
 * @regs: the registers it leaves with (@saved, or a completed call)
 * @resend: signals that arrived while it ran injected calls, sent again
 *	after it is let go
 * @nresend: their number
 */
struct tracee_thread {
	pid_t tid;
	bool stopped;
	bool in_vfork;
	bool injecting;
	bool step;
	bool dirty;
	arch_regs_t saved;
	arch_regs_t regs;
	int resend[TRACEE_MAX_RESEND];
	int nresend;
};

/**
 * struct tracee - a process all of whose threads we stopped
 * @tgid: the process
 * @pidfd: a pidfd on it, taken before the first ptrace call and
 *	checked after the last thread is seized
 * @th: its threads
 * @nr: their number
 * @injector: index in @th of the thread that runs injected calls, or -1
 * @syscall_ip: address of a syscall instruction in the process
 * @unstopped: threads seized but not stopped in time (left to the reaper)
 * @vforking: those of them asleep in vfork(), which hold nothing of
 *	their own and touch nothing until their child execs or exits
 * @patched: @syscall_ip is an instruction we wrote (tracee_insn.c) over
 *	@patch_word, put back before any thread is let go
 * @patch_ip: where
 * @patch_word: the word that was there
 */
struct tracee {
	pid_t tgid;
	int pidfd;
	struct tracee_thread *th;
	size_t nr;
	int injector;
	unsigned long syscall_ip;
	int unstopped;
	int vforking;
	bool patched;
	unsigned long patch_ip;
	unsigned long patch_word;
};

int tracee_seize_opts(void);
int tracee_attach(struct tracee *t, pid_t tgid, int pidfd, int timeout_ms,
		  char *why, size_t whylen);
int tracee_interrupt(struct tracee *t, pid_t tgid, int pidfd,
		     const pid_t *tids, size_t n, char *why, size_t whylen);
int tracee_wait(struct tracee *t, int timeout_ms, char *why, size_t whylen);
int tracee_syscall(struct tracee *t, long nr, const unsigned long args[6],
		   long *ret);
unsigned long tracee_stack_scratch(const struct tracee *t, size_t len);
int tracee_read(struct tracee *t, unsigned long addr, void *buf, size_t len);
int tracee_write(struct tracee *t, unsigned long addr, const void *buf,
		 size_t len);
void tracee_detach(struct tracee *t);
/* tracee_thread.c: let go threads that stopped late; from the main loop */
int tracee_reap(void);

#endif /* REVOKE_INJECT_H */
