// SPDX-License-Identifier: GPL-2.0
/*
 * arch_x86_64.c - the x86_64 side of src/inject/arch.h.
 *
 * System call convention: nr in rax, arguments in rdi rsi rdx r10 r8 r9,
 * result in rax; the kernel keeps the nr of the call being executed in
 * orig_rax (-1 outside a system call).  A call interrupted by a signal or
 * a ptrace stop has rax = -ERESTART* while stopped, and the kernel
 * restarts it on the way out of the signal code (arch/x86/kernel/signal.c,
 * arch_do_signal_or_restart): rax = orig_rax (or restart_syscall) and
 * rip -= 2, to execute the 2-byte "syscall" instruction again.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "arch.h"

/* include/linux/errno.h: kernel-internal, never seen by user space */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516

const size_t arch_syscall_insn_len = 2;

const long arch_nr_mmap = SYS_mmap;
const long arch_nr_munmap = SYS_munmap;
const long arch_nr_memfd_create = SYS_memfd_create;
const long arch_nr_fcntl = SYS_fcntl;
const long arch_nr_dup3 = SYS_dup3;
const long arch_nr_close = SYS_close;
const long arch_nr_io_uring_register = SYS_io_uring_register;

int arch_getregs(pid_t tid, arch_regs_t *regs)
{
	struct iovec iov = { regs, sizeof(*regs) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov))
		return -errno;
	return 0;
}

int arch_setregs(pid_t tid, const arch_regs_t *regs)
{
	struct iovec iov = { (void *)regs, sizeof(*regs) };

	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &iov))
		return -errno;
	return 0;
}

/* The nr of the system call the thread is in, or -1 if none. */
long arch_syscall_nr(const arch_regs_t *regs)
{
	return (long)regs->orig_rax;
}

long arch_syscall_ret(const arch_regs_t *regs)
{
	return (long)regs->rax;
}

unsigned long arch_syscall_arg(const arch_regs_t *regs, int i)
{
	switch (i) {
	case 0: return regs->rdi;
	case 1: return regs->rsi;
	case 2: return regs->rdx;
	case 3: return regs->r10;
	case 4: return regs->r8;
	default: return regs->r9;
	}
}

unsigned long arch_ip(const arch_regs_t *regs)
{
	return regs->rip;
}

/*
 * @len bytes of the stopped thread's stack that nothing uses: below its
 * stack pointer and the 128-byte red zone the ABI lets leaf functions
 * keep there, 16-byte aligned.
 */
unsigned long arch_stack_scratch(const arch_regs_t *regs, size_t len)
{
	return (regs->rsp - 128 - len) & ~15ul;
}

/*
 * Make an interrupted system call return @ret instead of being restarted:
 * with orig_rax = -1 the kernel's restart code leaves rax alone.
 */
void arch_complete_syscall(arch_regs_t *regs, long ret)
{
	regs->rax = (unsigned long)ret;
	regs->orig_rax = (unsigned long)-1;
}

/* Prepare @regs to execute system call @nr at the instruction at @ip. */
void arch_setup_syscall(arch_regs_t *regs, unsigned long ip, long nr,
			const unsigned long args[6])
{
	regs->rip = ip;
	regs->rax = (unsigned long)nr;
	regs->orig_rax = (unsigned long)-1;
	regs->rdi = args[0];
	regs->rsi = args[1];
	regs->rdx = args[2];
	regs->r10 = args[3];
	regs->r8 = args[4];
	regs->r9 = args[5];
}

/* Was the thread stopped inside a system call the kernel will restart? */
bool arch_interrupted(const arch_regs_t *regs)
{
	long ret = (long)regs->rax;

	if ((long)regs->orig_rax < 0)
		return false;
	return ret == -ERESTARTSYS || ret == -ERESTARTNOINTR ||
	       ret == -ERESTARTNOHAND || ret == -ERESTART_RESTARTBLOCK;
}

/*
 * Do what the kernel's signal code would have done for an interrupted
 * call (there is no signal to deliver): execute it again.  Needed when
 * the thread leaves a stop through a system call exit rather than
 * through the signal code, which is how injected calls return.
 */
void arch_restart_syscall(arch_regs_t *regs)
{
	if (!arch_interrupted(regs))
		return;
	if ((long)regs->rax == -ERESTART_RESTARTBLOCK)
		regs->rax = SYS_restart_syscall;
	else
		regs->rax = regs->orig_rax;
	regs->rip -= arch_syscall_insn_len;
}

/* Where the "syscall" instruction of the call the thread is in lies. */
unsigned long arch_syscall_insn_ip(const arch_regs_t *regs)
{
	return regs->rip - arch_syscall_insn_len;
}

bool arch_is_syscall_insn(const unsigned char *p, size_t len)
{
	return len >= 2 && p[0] == 0x0f && p[1] == 0x05;
}

/* Write the "syscall" instruction at the start of the @len bytes at @p. */
void arch_put_syscall_insn(unsigned char *p, size_t len)
{
	if (len < 2)
		return;
	p[0] = 0x0f;
	p[1] = 0x05;
}

struct arch_waiter arch_waiter_of(long nr)
{
	struct arch_waiter w = { ARCH_WAIT_FDARG, { 0, -1 } };

	switch (nr) {
	case SYS_read: case SYS_write: case SYS_readv: case SYS_writev:
	case SYS_pread64: case SYS_pwrite64: case SYS_preadv:
	case SYS_pwritev: case SYS_preadv2: case SYS_pwritev2:
	case SYS_ioctl: case SYS_fsync: case SYS_fdatasync: case SYS_flock:
	case SYS_fcntl: case SYS_ftruncate: case SYS_fallocate:
	case SYS_getdents64: case SYS_sync_file_range:
		return w;
	case SYS_sendfile: case SYS_tee:
		w.fdarg[1] = 1;
		return w;
	case SYS_splice: case SYS_copy_file_range:
		w.fdarg[1] = 2;
		return w;
	case SYS_poll: case SYS_ppoll:
		w.kind = ARCH_WAIT_POLL;
		return w;
	case SYS_select: case SYS_pselect6:
		w.kind = ARCH_WAIT_SELECT;
		return w;
	case SYS_epoll_wait: case SYS_epoll_pwait:
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
#endif
		w.kind = ARCH_WAIT_EPOLL;
		return w;
	default:
		w.kind = ARCH_WAIT_NONE;
		w.fdarg[0] = -1;
		return w;
	}
}
