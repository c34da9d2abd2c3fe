// SPDX-License-Identifier: GPL-2.0
/*
 * tracee_syscall.c - run system calls in a process stopped by
 * tracee_attach(): choose the thread that runs them and the "syscall"
 * instruction it runs (its own, the [vdso]'s, or one written for it by
 * tracee_insn.c), then set up its registers, single-step the call (or
 * run it between its two syscall stops) and read the result.  Its
 * registers are put back by tracee_detach().
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "tracee_int.h"

#define INJECT_TIMEOUT_MS 2000

/* procfs_maps() callback: the bounds of the [vdso] mapping. */
static int vdso_bounds(const struct procfs_mapping *m, void *arg)
{
	unsigned long *bounds = arg;

	if (strcmp(m->name, "[vdso]"))
		return 0;
	bounds[0] = m->start;
	bounds[1] = m->end;
	return 1;
}

/* Find the address of a syscall instruction in the [vdso] mapping. */
static int vdso_syscall_ip(struct tracee *t, unsigned long *ip)
{
	unsigned long bounds[2] = { 0, 0 }, start, end, a;
	unsigned char buf[8192];
	size_t len, i;
	int err;

	err = procfs_maps(t->tgid, vdso_bounds, bounds);
	if (err < 0)
		return err;
	start = bounds[0];
	end = bounds[1];
	for (a = start; a && a < end; a += sizeof(buf)) {
		len = end - a < sizeof(buf) ? end - a : sizeof(buf);
		if (tracee_read(t, a, buf, len))
			return -EFAULT;
		for (i = 0; i + arch_syscall_insn_len <= len; i++) {
			if (arch_is_syscall_insn(buf + i, len - i)) {
				*ip = a + i;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/**
 * tracee_syscall_choose() - choose how injected calls will run
 * @t: a process whose threads are stopped
 *
 * Choose the thread that runs injected calls and a syscall instruction:
 * preferably one stopped inside a system call, whose own instruction is
 * right behind its ip; else one in the [vdso]; else one written for the
 * purpose (tracee_insn.c).
 *
 * Return: 0 (@t->syscall_ip may still be 0: then only tracee_syscall()
 * fails), -ESRCH if no thread is stopped, or a negative errno.
 */
int tracee_syscall_choose(struct tracee *t)
{
	unsigned char insn[8];
	size_t i;

	t->injector = -1;
	t->syscall_ip = 0;
	for (i = 0; i < t->nr; i++) {
		const struct tracee_thread *th = &t->th[i];
		unsigned long ip;

		if (!th->stopped)
			continue;
		if (t->injector < 0)
			t->injector = (int)i;
		if (arch_syscall_nr(&th->saved) < 0)
			continue;
		ip = arch_syscall_insn_ip(&th->saved);
		if (!tracee_read(t, ip, insn, arch_syscall_insn_len) &&
		    arch_is_syscall_insn(insn, arch_syscall_insn_len)) {
			t->injector = (int)i;
			t->syscall_ip = ip;
			return 0;
		}
	}
	if (t->injector < 0)
		return -ESRCH;
	if (vdso_syscall_ip(t, &t->syscall_ip))
		t->syscall_ip = 0;
	if (t->syscall_ip)
		return 0;
	/* none to borrow: write one, every thread stopped (tracee_insn.c) */
	return tracee_insn_place(t);
}

/**
 * tracee_stack_scratch() - room for data the injected calls read
 * @t: a process stopped by tracee_attach()
 * @len: how many bytes
 *
 * Return: an address of @len free bytes on the stack of the thread that
 * runs injected calls, below what it uses; 0 if no thread can inject.
 */
unsigned long tracee_stack_scratch(const struct tracee *t, size_t len)
{
	if (t->injector < 0)
		return 0;
	return arch_stack_scratch(&t->th[t->injector].saved, len);
}

/*
 * May the injected calls of @th be single-stepped?  The kernel reports a
 * step with force_sig_fault(SIGTRAP), which, when the thread blocks
 * SIGTRAP or the process ignores it, unblocks it and resets its action to
 * SIG_DFL, for good.  Such a thread runs its calls through two syscall
 * stops instead.  Every thread is stopped: neither can change meanwhile.
 * The ignored mask in /proc/PID/stat (field 33, proc(5)) holds the
 * standard signals, SIGTRAP among them.
 */
static bool may_step(const struct tracee *t, const struct tracee_thread *th)
{
	const uint64_t trap = 1ull << (SIGTRAP - 1);
	char path[64], ignored[32];
	uint64_t blocked;

	if (ptrace(PTRACE_GETSIGMASK, th->tid, (void *)sizeof(blocked),
		   &blocked) || (blocked & trap))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)t->tgid);
	if (procfs_stat_field(path, 33, ignored, sizeof(ignored)))
		return false;
	return !(strtoull(ignored, NULL, 10) & trap);
}

/*
 * Resume @th, by a single step if @step, else to its next syscall stop,
 * until it reaches that stop (the trap of the step, or the syscall stop).
 * Signals that come first are held back, to be sent again by
 * tracee_detach(), and it goes on.
 */
static int resume_until(struct tracee_thread *th, bool step, uint64_t deadline)
{
	int status, err;

	for (;;) {
		if (ptrace(step ? PTRACE_SINGLESTEP : PTRACE_SYSCALL, th->tid,
			   NULL, NULL))
			return -errno;
		err = tracee_wait_thread(th, &status, deadline);
		if (err)
			return err;
		err = step ? tracee_step_trap(th->tid, status) :
			     WIFSTOPPED(status) &&
			     WSTOPSIG(status) == TRACEE_SYSCALL_STOP;
		if (err)
			return err < 0 ? err : 0;
		if (tracee_signal_stop(status) && th->nresend < TRACEE_MAX_RESEND)
			th->resend[th->nresend++] = WSTOPSIG(status);
	}
}

/*
 * Run the call set up in @th, whose registers point at the "syscall"
 * instruction at @ip, and read the registers it leaves.  Single-stepped,
 * the kernel reports the step on the way out of the call, before any
 * other signal: one stop, where PTRACE_SYSCALL takes two (entry, exit).
 */
static int run_syscall(struct tracee_thread *th, unsigned long ip,
		       arch_regs_t *regs)
{
	uint64_t deadline = tracee_now_ns() + INJECT_TIMEOUT_MS * 1000000ull;
	int err;

	err = resume_until(th, th->step, deadline);
	if (!err && !th->step)
		err = resume_until(th, false, deadline);	/* exit */
	if (!err)
		err = arch_getregs(th->tid, regs);
	/* past the "syscall" checked at @ip: a step never ends elsewhere */
	if (!err && th->step && arch_ip(regs) != ip + arch_syscall_insn_len)
		err = -EIO;
	return err;
}

/**
 * tracee_syscall() - execute one system call in the stopped process
 * @t: a process stopped by tracee_attach()
 * @nr: the system call
 * @args: its six arguments
 * @ret: its result (a negative errno on failure)
 *
 * Return: 0 if the call ran (whatever its result), or a negative errno if
 * it could not be run; the process is then let go by tracee_detach() as
 * usual.
 */
int tracee_syscall(struct tracee *t, long nr, const unsigned long args[6],
		   long *ret)
{
	struct tracee_thread *th;
	arch_regs_t regs;
	int err;

	if (t->injector < 0 || !t->syscall_ip)
		return -ENOEXEC;
	th = &t->th[t->injector];
	if (!th->stopped)
		return -ESRCH;
	regs = th->saved;
	if (!th->injecting) {
		ptrace(PTRACE_SETOPTIONS, th->tid, NULL,
		       (void *)(long)(tracee_seize_opts() | PTRACE_O_EXITKILL));
		th->injecting = true;
		th->step = may_step(t, th);
	}
	arch_setup_syscall(&regs, t->syscall_ip, nr, args);
	err = arch_setregs(th->tid, &regs);
	if (!err)
		err = run_syscall(th, t->syscall_ip, &regs);
	if (err == -ETIMEDOUT)
		th->stopped = false;	/* still running it: reaper */
	else if (err == -ESRCH || err == -ECHILD)
		tracee_lose_thread(th);
	if (err)
		return err;
	*ret = arch_syscall_ret(&regs);
	return 0;
}
