/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reach.bpf.h - files that reach a revoked object without being it.
 *
 * A tty: /dev/tty (5:0), /dev/console (5:1) and /dev/tty0 (4:0) are
 * inodes of their own, but their I/O goes to another tty: the session's
 * controlling terminal, the console, the foreground virtual console.
 * Such a file is resolved to the tty it reaches and denied if that tty
 * is revoked: by number (the tty's major and minor in revoked_rdev), or,
 * for a pty slave, by its devpts inode (revoke-bpf add /dev/pts/N).  An
 * open file reaches its tty through file->private_data (struct
 * tty_file_private); at file_open, before tty_open() ran, /dev/tty
 * reaches current->signal->tty.  The fields are read with probe reads:
 * private_data and driver_data are void pointers to the verifier.
 *
 * A loop device: the loop driver does its I/O on the backing file
 * without a hook, so a revoked file must not become one.  LOOP_SET_FD,
 * LOOP_CHANGE_FD and LOOP_CONFIGURE naming a descriptor of a revoked file
 * fail with -EIO.  LOOP_CONFIGURE's descriptor is in user memory, read
 * here and read again by the kernel: a thread that changes it, or the
 * descriptor table, in between wins the race; revoke-bpfd looks for
 * revoked backing files again after every add (see src/pipeline/loopdev.c).
 *
 * Included by revoke.bpf.c after its helpers: check_tty() is called from
 * check_file(), check_loop_ioctl() from the file_ioctl hook.
 */
#ifndef REVOKE_REACH_BPF_H
#define REVOKE_REACH_BPF_H

#define REACH_KDEV(ma, mi) ((__u32)(ma) << 20 | (__u32)(mi))
#define TTY_ALIAS_TTY REACH_KDEV(5, 0)
#define TTY_ALIAS_CONSOLE REACH_KDEV(5, 1)
#define TTY_ALIAS_TTY0 REACH_KDEV(4, 0)
#define UNIX98_PTY_SLAVE_MAJOR 136
#define TIOCVHANGUP 0x5437

/* Is @rdev a tty alias (/dev/tty, /dev/console, /dev/tty0)? */
static __always_inline bool tty_alias(__u32 rdev)
{
	return rdev == TTY_ALIAS_TTY || rdev == TTY_ALIAS_CONSOLE ||
	       rdev == TTY_ALIAS_TTY0;
}

/* uapi/linux/loop.h */
#define LOOP_SET_FD 0x4C00
#define LOOP_CHANGE_FD 0x4C06
#define LOOP_CONFIGURE 0x4C0A

/* The daemon's own TIOCVHANGUP, which it makes after the deny. */
static __always_inline bool daemon_hangup(struct inode *inode, __u32 hook,
					  __u64 arg)
{
	if (hook != REVOKE_HOOK_FILE_IOCTL || arg != TIOCVHANGUP ||
	    (inode->i_mode & S_IFMT) != S_IFCHR)
		return false;
	return daemon_self();
}

/* The tty that @file, a node of the alias @rdev, reaches; or NULL. */
static __always_inline struct tty_struct *alias_tty(struct file *file,
						    __u32 rdev, __u32 hook)
{
	struct tty_file_private *priv;
	struct task_struct *task;

	if (hook == REVOKE_HOOK_FILE_OPEN) {
		if (rdev != TTY_ALIAS_TTY)
			return NULL;	/* checked from its first operation on */
		task = bpf_get_current_task_btf();
		return BPF_CORE_READ(task, signal, tty);
	}
	priv = file->private_data;
	return BPF_CORE_READ(priv, tty);
}

/* A pty slave's devpts inode (tty->driver_data is its dentry). */
static __always_inline struct inode *pty_inode(struct tty_struct *tty)
{
	struct dentry *dentry = BPF_CORE_READ(tty, driver_data);

	return BPF_CORE_READ(dentry, d_inode);
}

/**
 * check_tty() - deny a tty alias whose tty is revoked
 * @file: the file
 * @inode: its inode
 * @armed: revoke_armed as the hook read it
 * @hook: enum revoke_hook
 * @op: enum revoke_op
 * @arg: the hook's argument
 *
 * Return: -EIO to deny, 1 to allow without looking further (the daemon's
 * own hangup of a revoked tty), 0 to go on with the other checks.
 */
static __always_inline int check_tty(struct file *file, struct inode *inode,
				     __u32 armed, __u32 hook, __u32 op,
				     __u64 arg)
{
	struct revoke_key shown = {};
	__u32 rdev = inode->i_rdev, major, minor, tty_rdev;
	struct tty_struct *tty;
	struct tty_driver *drv;
	int ret;

	if (daemon_hangup(inode, hook, arg))
		return 1;
	if (!tty_alias(rdev))
		return 0;
	if ((inode->i_mode & S_IFMT) != S_IFCHR)
		return 0;
	tty = alias_tty(file, rdev, hook);
	if (!tty)
		return 0;
	drv = BPF_CORE_READ(tty, driver);
	major = BPF_CORE_READ(drv, major);
	minor = BPF_CORE_READ(drv, minor_start) + BPF_CORE_READ(tty, index);
	inode_key(inode, &shown);
	tty_rdev = REACH_KDEV(major, minor);
	ret = deny_device(file, tty_rdev, REVOKE_RDEV_CHAR,
			  device_paused(tty_rdev, REVOKE_RDEV_CHAR, armed, hook),
			  &shown, armed, hook, op, arg);
	if (ret || major != UNIX98_PTY_SLAVE_MAJOR)
		return ret;
	return check_inode_read(pty_inode(tty), armed, hook, op, arg);
}

/* The file behind descriptor @fd of the current task, or NULL. */
static __always_inline struct file *task_fd_file(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;

	if (fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/**
 * check_loop_ioctl() - deny a loop device set up on a revoked file
 * @file: the file the ioctl is made on
 * @cmd: the ioctl
 * @arg: its argument
 * @armed: revoke_armed as the hook read it
 *
 * A struct loop_config that cannot be read (not resident) is refused
 * while something is revoked: fail closed.
 *
 * Return: -EIO or 0.
 */
static __always_inline int check_loop_ioctl(struct file *file,
					    unsigned int cmd,
					    unsigned long arg, __u32 armed)
{
	struct revoke_key key = {};
	struct inode *inode = file->f_inode, *bi;
	struct file *backing;
	__u32 mode, rdev, type;
	int fd = (int)arg, ret;

	if (cmd != LOOP_SET_FD && cmd != LOOP_CHANGE_FD &&
	    cmd != LOOP_CONFIGURE)
		return 0;
	if (!inode || (inode->i_mode & S_IFMT) != S_IFBLK)
		return 0;
	/* struct loop_config begins with the __u32 fd */
	if (cmd == LOOP_CONFIGURE &&
	    bpf_probe_read_user(&fd, sizeof(fd), (void *)arg))
		return -EIO;
	backing = task_fd_file(fd);
	if (!backing)
		return 0;	/* the kernel says EBADF */
	bi = BPF_CORE_READ(backing, f_inode);
	inode_key_read(bi, &key);
	mode = BPF_CORE_READ(bi, i_mode) & S_IFMT;
	if (mode == S_IFBLK || mode == S_IFCHR) {
		rdev = BPF_CORE_READ(bi, i_rdev);
		type = mode == S_IFBLK ? REVOKE_RDEV_BLOCK : REVOKE_RDEV_CHAR;
		ret = deny_device(backing, rdev, type,
				  device_paused(rdev, type, armed,
						REVOKE_HOOK_FILE_IOCTL),
				  &key, armed, REVOKE_HOOK_FILE_IOCTL,
				  REVOKE_OP_IOCTL, cmd);
		if (ret)
			return ret;
	}
	ret = check_inode_read(bi, armed, REVOKE_HOOK_FILE_IOCTL,
			       REVOKE_OP_IOCTL, cmd);
	if (ret)
		return ret;
	/* a loop device over an overlayfs file does its I/O on the real one */
	backing = ovl_real_file_read(backing);
	if (!backing)
		return 0;
	return check_inode_read(BPF_CORE_READ(backing, f_inode), armed,
				REVOKE_HOOK_FILE_IOCTL, REVOKE_OP_IOCTL, cmd);
}

#endif /* REVOKE_REACH_BPF_H */
