// SPDX-License-Identifier: GPL-2.0
/*
 * fds.c - add fd=PID:FD: revoke one open file description and every
 * copy of it (dup, fork, SCM_RIGHTS, pidfd_getfd), not the other opens
 * of its file: EVIOCREVOKE for any file.
 *
 *	pidfd_open(PID), pidfd_getfd(FD): our own copy of the description
 *	-> its struct file address, read by the ident iterator
 *	-> "revoked_files" (bpf/file_set.bpf.h): every operation through it
 *	   fails with EIO
 *	-> the pipeline for the holders of that struct file only (wake,
 *	   unmap, release: released by default)
 *	-> close our copy: once no one holds it the file is freed, and the
 *	   hooks drop its entry (file_free_security).
 *
 * Holding our copy from before the entry goes in until after the
 * pipeline means the address names that file and no other all along.
 * Root may name any process's descriptor; a member of the daemon's
 * --group only one of a process that is theirs as ptrace sees it.  A revoked
 * description never works again: there is no del of it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"

/* copies still being closed, each in a thread of its own (fds_close()) */
static atomic_int fds_closing;
/* beyond this many, add --fd is refused until some are closed */
#define FDS_CLOSING_MAX 64

static void *fds_close_main(void *arg)
{
	close((int)(intptr_t)arg);
	atomic_fetch_sub(&fds_closing, 1);
	return NULL;
}

/*
 * Close our copy @fd in a detached thread of its own, never in the
 * thread that serves requests, nor in the control socket's closer (whose
 * queue the connections' closes wait in): the last close of a FUSE file
 * waits for its server's FLUSH answer, without end if the server never
 * answers.  The hooks drop the entry once the file is freed.
 */
static void fds_close(int fd)
{
	pthread_attr_t attr;
	pthread_t thread;
	int err;

	atomic_fetch_add(&fds_closing, 1);
	err = pthread_attr_init(&attr);
	if (!err) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		err = pthread_create(&thread, &attr, fds_close_main,
				     (void *)(intptr_t)fd);
		pthread_attr_destroy(&attr);
	}
	if (err)
		fds_close_main((void *)(intptr_t)fd);
}

/*
 * Are all four ids of the "Uid:" or "Gid:" line (@field) of
 * /proc/@pid/status @want (real, effective, saved and filesystem)?
 */
static bool fds_ids_are(pid_t pid, const char *field, unsigned int want)
{
	unsigned int id[4];
	char path[64], line[256];
	size_t n = strlen(field);
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n)) {
			ok = sscanf(line + n, "%u %u %u %u", &id[0], &id[1],
				    &id[2], &id[3]) == 4 &&
			     id[0] == want && id[1] == want &&
			     id[2] == want && id[3] == want;
			break;
		}
	fclose(f);
	return ok;
}

/*
 * Is process @pidfd, which was @pid when opened, @peer's to name?  Root's
 * always; else what ptrace asks of a user (PTRACE_MODE_ATTACH_REALCREDS,
 * pidfd_getfd's own check): all its uids and gids are @peer's, so not a
 * setuid or setgid program it started, and it is dumpable (the kernel
 * gives root /proc/@pid of one that is not).  Read while it still lives,
 * so that /proc/@pid was that process, not one that reused the pid.
 */
static int fds_may_take(const struct ctl_peer *peer, pid_t pid, int pidfd,
			char *why, size_t len)
{
	char path[64];
	struct stat st;
	bool ok;

	if (peer->uid == 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	ok = fds_ids_are(pid, "Uid:", peer->uid) &&
	     fds_ids_are(pid, "Gid:", peer->gid) &&
	     !stat(path, &st) && st.st_uid == peer->uid;
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0))
		ok = false;	/* gone meanwhile: what was read may be another's */
	if (ok)
		return 0;
	snprintf(why, len, "process %d is not yours (you are uid %u; a "
		 "setuid, setgid or non-dumpable process is not yours either); "
		 "only root may revoke its descriptors; run it with sudo",
		 (int)pid, (unsigned int)peer->uid);
	return -EPERM;
}

/*
 * Our own copy of descriptor @fd of process @pid, or a negative errno
 * with the reason in @why.
 */
static int fds_take(const struct ctl_peer *peer, pid_t pid, int fd, char *why,
		    size_t len)
{
	int pidfd, copy, err;

	if (atomic_load(&fds_closing) >= FDS_CLOSING_MAX) {
		snprintf(why, len, "%d open files revoked before are still "
			 "being closed (a FUSE server that does not answer?); "
			 "try again once they are", atomic_load(&fds_closing));
		return -EBUSY;
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		err = -errno;
		snprintf(why, len, "no process %d: %s", (int)pid,
			 strerror(-err));
		return err;
	}
	err = fds_may_take(peer, pid, pidfd, why, len);
	if (err)
		goto out;
	copy = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (copy < 0) {
		err = -errno;
		if (err == -EBADF)
			snprintf(why, len, "process %d has no descriptor %d",
				 (int)pid, fd);
		else if (err == -EIO)
			snprintf(why, len, "descriptor %d of process %d is a "
				 "revoked file (revoked by path, device or "
				 "filesystem, or a dead file add released it to)",
				 fd, (int)pid);
		else
			snprintf(why, len, "cannot take descriptor %d of "
				 "process %d: %s", fd, (int)pid, strerror(-err));
		goto out;
	}
	err = copy;
out:
	close(pidfd);
	return err;
}

/* Put the file @copy refers to in the revoked file set. */
static int fds_deny(struct daemon *d, const struct revoke_req *req, int copy,
		    struct revoke_ident *id, enum revoke_change *change,
		    struct rbuf *resp)
{
	struct revoke_file_val val = {};
	char why[64];
	int err;

	err = d->pipeline.ready ? holders_ident(&d->pipeline.holders, copy, id) :
				  -ENOSYS;
	if (err) {
		snprintf(why, sizeof(why), "%s", err == -ENOSYS ?
			 "the holder iterators are not loaded" : strerror(-err));
		answer_err(resp, -err, "cannot read what the descriptor refers "
			   "to: %s; see revoke-bpfd's log", why);
		return -1;
	}
	val.key = id->key;
	val.revoked_at = (uint64_t)time(NULL);
	val.pid = req->fd_pid;
	val.fd = req->fd_num;
	err = file_set_add(&d->rb, id->file, &val, change);
	if (err == -ENOSPC) {
		answer_err(resp, ENOSPC, "the revoked open file set is full (%d "
			   "entries); an entry goes when its file is closed by "
			   "every holder", REVOKE_FILE_ENTRIES);
		return -1;
	}
	return err ? answer_set_err(resp, &d->rb, err, "open file ") : 0;
}

/* The pipeline for the holders of @id's file, and its answer. */
/*
 * A mapping made through an overlayfs description maps its real file, a
 * struct file of its own that the holder iterators, narrowed to the one
 * description, do not match: say that such mappings were not looked for
 * (add exits 4), never that they were taken away.
 */
static void fds_overlay_mappings(const struct revoke_ident *id,
				 struct pipeline_result *res)
{
	/* the kernel's name (the ident iterator): no call reaches a FUSE server */
	if (!strcmp(id->fstype, "overlay"))
		pipeline_fail_kept(res, 0, "unmap",
				   "overlayfs_mappings_not_looked_for");
}

static void fds_pipeline(struct daemon *d, const struct ctl_peer *peer,
			 const struct revoke_req *req,
			 const struct revoke_ident *id, struct rbuf *resp)
{
	struct pipeline_opts opts = verbs_pipeline_opts(d, req);
	struct pipeline_result res;
	char what[64];
	int err;

	/* EVIOCREVOKE's: the holders' descriptors go, so the file can */
	if (!req->has_release)
		opts.release = REVOKE_RELEASE_YES;
	holders_skip(&d->pipeline.holders, getpid(), peer->pid);
	busy_step(d, "holders");
	err = pipeline_run_file(&d->pipeline, &id->key, id->file, &opts, &res);
	holders_skip(&d->pipeline.holders, getpid(), 0);
	if (!err)
		fds_overlay_mappings(id, &res);
	answer_pipeline(resp, err, &res);
	if (err)
		return;
	pipeline_report_lines(resp, &res);
	snprintf(what, sizeof(what), "fd=%u:%u", req->fd_pid, req->fd_num);
	pipeline_report_log_run(what, &res);
	pipeline_report_log(&res);
	pipeline_result_free(&res);
}

static int fds_list_one(uint64_t file, const struct revoke_file_val *val,
			void *ctx)
{
	(void)file;
	rbuf_printf(ctx, REVOKE_FIELD_OPEN_FD "=%u:%u " REVOKE_FIELD_KIND "=fd "
		    REVOKE_FIELD_DEV "=%u:%u " REVOKE_FIELD_INO "=%llu "
		    REVOKE_FIELD_REVOKED_AT "=%llu " REVOKE_FIELD_DENIALS
		    "=%llu\n", val->pid, val->fd, revoke_kdev_major(val->key.dev),
		    revoke_kdev_minor(val->key.dev),
		    (unsigned long long)val->key.ino,
		    (unsigned long long)val->revoked_at,
		    (unsigned long long)val->denials);
	return 0;
}

/**
 * fds_list() - list's lines for the revoked open files that live on
 * @d: the daemon
 * @body: where they go
 *
 * Return: 0 or a negative errno.
 */
int fds_list(struct daemon *d, struct rbuf *body)
{
	return file_set_for_each(&d->rb, fds_list_one, body);
}

/**
 * fds_add() - add fd=PID:FD: revoke one open file description
 * @d: the daemon
 * @peer: who asked
 * @req: the request (has_fd)
 * @resp: the answer
 *
 * Return: 0 once answered, -1 once an error was answered.
 */
int fds_add(struct daemon *d, const struct ctl_peer *peer,
	    const struct revoke_req *req, struct rbuf *resp)
{
	enum revoke_change change;
	struct revoke_ident id;
	char why[256];
	int copy, ret = -1;

	copy = fds_take(peer, (pid_t)req->fd_pid, (int)req->fd_num, why,
			sizeof(why));
	if (copy < 0) {
		answer_err(resp, -copy, "%s", why);
		return -1;
	}
	busy_step(d, "attach");
	if (fds_deny(d, req, copy, &id, &change, resp))
		goto out;
	log_info("add fd=%u:%u (file dev=%u:%u ino=%llu) by uid=%u pid=%d: "
		 "%s\n", req->fd_pid, req->fd_num,
		 revoke_kdev_major(id.key.dev), revoke_kdev_minor(id.key.dev),
		 (unsigned long long)id.key.ino, (unsigned int)peer->uid,
		 (int)peer->pid, answer_change_name(change));
	rbuf_printf(resp, "ok %s\n", answer_change_name(change));
	rbuf_printf(resp, REVOKE_FIELD_OPEN_FD "=%u:%u " REVOKE_FIELD_DEV "=%u:%u "
		    REVOKE_FIELD_INO "=%llu", req->fd_pid, req->fd_num,
		    revoke_kdev_major(id.key.dev), revoke_kdev_minor(id.key.dev),
		    (unsigned long long)id.key.ino);
	answer_attach(resp, &d->rb);
	fds_pipeline(d, peer, req, &id, resp);
	ret = 0;
out:
	fds_close(copy);
	file_set_refresh(&d->rb);
	return ret;
}
