// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * revoke_example.c - the example of librevoke(3): a "device" whose
 * handles are revoked when it is unplugged.  A reader thread blocks in
 * read; unplugging wakes it, its read and every later call fail, a later
 * open fails, and the device's release runs once per handle.
 *
 *	cc revoke_example.c $(pkg-config --cflags --libs librevoke)
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <revoke.h>

struct device {
	struct revoke_inode inode;
	struct revoke_waitq readers;
	bool has_data;
};

static struct device dev;

static bool data_ready(void *arg)
{
	return ((struct device *)arg)->has_data;
}

static ssize_t dev_read(struct revoke_file *file, void *buf, size_t len,
			off_t *pos)
{
	int err = revoke_waitq_wait(&dev.readers, file, data_ready, &dev);

	if (err)
		return err;
	memset(buf, 0, len);
	return (ssize_t)len;
}

static int dev_release(struct revoke_inode *inode, struct revoke_file *file)
{
	printf("release of handle %p\n", (void *)file);
	return 0;
}

static void dev_awaken(struct revoke_file *file)
{
	revoke_waitq_wake_all(&dev.readers);
}

static const struct revoke_file_operations dev_ops = {
	.read = dev_read,
	.release = dev_release,
	.awaken_all_waiters = dev_awaken,
};

static void *reader(void *arg)
{
	char buf[16];
	ssize_t n = revoke_call_read(arg, buf, sizeof(buf), NULL);

	printf("blocked read returned %zd (%s)\n", n, n < 0 ? strerror((int)-n) : "ok");
	return NULL;
}

int main(void)
{
	struct revoke_file *a, *b, *c = NULL;
	size_t revoked;
	pthread_t th;
	char buf[4];
	int err;

	revoke_waitq_init(&dev.readers);
	revoke_inode_init(&dev.inode, &dev_ops, &dev);
	if (revoke_file_open(&dev.inode, 0, &a) || revoke_file_open(&dev.inode, 0, &b))
		return 1;
	pthread_create(&th, NULL, reader, a);
	sleep(1);

	/* the device is unplugged */
	inode_fops_substitute(&dev.inode, &revoked_file_ops_eio, NULL, &revoked);
	printf("revoked %zu handles\n", revoked);
	pthread_join(th, NULL);

	printf("read on the other handle: %zd\n", revoke_call_read(b, buf, 4, NULL));
	err = revoke_file_open(&dev.inode, 0, &c);
	printf("a new open: %d (%s)\n", err, strerror(-err));
	if (c)
		revoke_file_put(c);
	revoke_file_put(a);
	revoke_file_put(b);
	revoke_inode_destroy(&dev.inode);
	revoke_waitq_destroy(&dev.readers);
	return 0;
}
