// SPDX-License-Identifier: GPL-2.0
/*
 * tracee_insn.c - a "syscall" instruction for a stopped process that has
 * none to lend: one it is not in, and no [vdso] (it may unmap it).
 *
 * The instruction is written over the word at an address the process
 * can execute, with PTRACE_POKETEXT, which writes through a non-writable
 * text page (FOLL_FORCE: the page becomes the process's private copy;
 * a MAP_SHARED mapping is refused, so no file is ever changed), and the
 * original word is put back before any thread runs again:
 *
 *  - only while every thread of the process is in a ptrace stop we
 *    caused (tracee_attach() with nothing left unstopped): no thread can
 *    run the patched word by its own;
 *  - where: the stopped injecting thread's instruction pointer if it lies
 *    in an executable mapping, else the start of any executable mapping
 *    (/proc/PID/maps, r-x, [vsyscall] aside, which cannot be written);
 *  - the injecting thread has PTRACE_O_EXITKILL first: if revoke-bpfd
 *    dies meanwhile, the process dies too rather than run the word;
 *  - put back by tracee_detach() before the first thread is let go,
 *    through any thread still stopped, else through /proc/PID/mem; a
 *    process alive whose word could not be put back is killed (SIGKILL
 *    through its pidfd) rather than left to run a foreign instruction.
 *
 * CRIU's compel does the same to run its parasite's first call.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/common.h"
#include "tracee_int.h"

/* What exec_mapping() looks for, and finds. */
struct exec_search {
	unsigned long ip;
	unsigned long first;
	int found;
};

/* procfs_maps() callback: one private executable mapping. */
static int exec_one(const struct procfs_mapping *m, void *arg)
{
	struct exec_search *s = arg;

	if (m->perms[2] != 'x' || m->perms[3] != 'p' ||
	    strstr(m->name, "[vsyscall]") || m->end - m->start < sizeof(long))
		return 0;
	if (!s->first)
		s->first = m->start;
	if (s->ip >= m->start && s->ip + sizeof(long) <= m->end)
		s->found = 1;
	return 0;
}

/* Is @ip inside an executable, writable-by-ptrace mapping of @tgid? */
static int exec_mapping(pid_t tgid, unsigned long ip, unsigned long *first)
{
	struct exec_search s = { .ip = ip };
	int err;

	err = procfs_maps(tgid, exec_one, &s);
	*first = s.first;
	return err < 0 ? err : s.found;
}

/*
 * Should revoke-bpfd die while the word is written, the kernel would let
 * the threads go with it in place: PTRACE_O_EXITKILL on @tid has the
 * process killed instead (tracee_syscall() sets it too, for its own
 * registers).
 */
static int exitkill(pid_t tid)
{
	if (!ptrace(PTRACE_SETOPTIONS, tid, NULL,
		    (void *)(long)(tracee_seize_opts() | PTRACE_O_EXITKILL)))
		return 0;
	/* seized without PTRACE_O_SUSPEND_SECCOMP (see seize()) */
	if (errno == EINVAL &&
	    !ptrace(PTRACE_SETOPTIONS, tid, NULL,
		    (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)))
		return 0;
	return -errno;
}

/* Write the instruction over the word at @ip through stopped thread @tid. */
static int patch_at(struct tracee *t, pid_t tid, unsigned long ip)
{
	unsigned long word, patched;
	unsigned char *b = (unsigned char *)&patched;
	int err;

	err = exitkill(tid);
	if (err)
		return err;
	errno = 0;
	word = (unsigned long)ptrace(PTRACE_PEEKTEXT, tid, (void *)ip, NULL);
	if (errno)
		return -errno;
	patched = word;
	arch_put_syscall_insn(b, sizeof(patched));
	if (ptrace(PTRACE_POKETEXT, tid, (void *)ip, (void *)patched))
		return -errno;
	t->patch_ip = ip;
	t->patch_word = word;
	t->patched = true;
	t->syscall_ip = ip;
	return 0;
}

/**
 * tracee_insn_place() - give a stopped process a syscall instruction
 * @t: from tracee_attach(), with an injecting thread chosen and every
 *	thread stopped
 *
 * Return: 0 with @t->syscall_ip set, -EBUSY if some thread is not
 * stopped, or another negative errno if no executable word could be
 * written.
 */
int tracee_insn_place(struct tracee *t)
{
	const struct tracee_thread *th;
	unsigned long ip, first;
	int in_exec;

	if (t->injector < 0)
		return -ESRCH;
	if (t->unstopped)
		return -EBUSY;
	th = &t->th[t->injector];
	ip = arch_ip(&th->saved);
	in_exec = exec_mapping(t->tgid, ip, &first);
	if (in_exec < 0)
		return in_exec;
	if (in_exec && !patch_at(t, th->tid, ip))
		return 0;
	if (first && first != ip && !patch_at(t, th->tid, first))
		return 0;
	return -ENOEXEC;
}

/* Put the word back through /proc/PID/mem: no thread is left stopped. */
static int restore_by_mem(struct tracee *t)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->tgid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pwrite(fd, &t->patch_word, sizeof(t->patch_word),
		   (off_t)t->patch_ip);
	close(fd);
	return n == (ssize_t)sizeof(t->patch_word) ? 0 : -EIO;
}

/**
 * tracee_insn_restore() - put back the word tracee_insn_place() wrote
 * @t: the process, before any of its threads is let go
 *
 * A process that has exited needs nothing.  One that is alive and whose
 * word cannot be put back is killed through its pidfd, and that said on
 * stderr: it must not run the instruction in place of its own code.
 */
void tracee_insn_restore(struct tracee *t)
{
	size_t i;
	int err = -ESRCH;

	if (!t->patched)
		return;
	for (i = 0; i < t->nr && err; i++) {
		if (!t->th[i].tid || !t->th[i].stopped)
			continue;
		err = ptrace(PTRACE_POKETEXT, t->th[i].tid, (void *)t->patch_ip,
			     (void *)t->patch_word) ? -errno : 0;
	}
	if (err)
		err = restore_by_mem(t);
	t->patched = false;
	if (!err || syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0))
		return;
	log_err("pid %d: cannot put back its code at "
		"%#lx (%s): killed\n", (int)t->tgid, t->patch_ip,
		strerrorname_np(-err) ?: "EIO");
	syscall(SYS_pidfd_send_signal, t->pidfd, SIGKILL, NULL, 0);
}
