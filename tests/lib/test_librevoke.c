// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for librevoke: one check per rule of include/revoke.h, each
 * asserting the return values it sees.  A small "driver" (drv_ops)
 * counts its calls and its releases; its read blocks on a revoke_waitq
 * until data is there.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "revoke.h"
#include "../unit/tap.h"

static atomic_int nr_open, nr_release, nr_read, nr_awaken, nr_remap;
/* what the last read returned, set inside the table */
static atomic_long read_result;
static struct revoke_waitq wq;
static atomic_bool data_ready;
static int priv_obj;

static void reset(void)
{
	nr_open = nr_release = nr_read = nr_awaken = nr_remap = 0;
	data_ready = false;
}

static bool has_data(void *arg)
{
	return atomic_load(&data_ready);
}

static int drv_open(struct revoke_inode *inode, struct revoke_file *file)
{
	nr_open++;
	revoke_file_set_private(file, &priv_obj);
	return 0;
}

static int drv_release(struct revoke_inode *inode, struct revoke_file *file)
{
	nr_release++;
	return 0;
}

static ssize_t drv_read(struct revoke_file *file, void *buf, size_t len,
			off_t *pos)
{
	int err;

	nr_read++;
	err = revoke_waitq_wait(&wq, file, has_data, NULL);
	if (!err)
		memset(buf, 'x', len);
	read_result = err ? err : (long)len;
	return read_result;
}

static ssize_t drv_write(struct revoke_file *file, const void *buf,
			 size_t len, off_t *pos)
{
	return (ssize_t)len;
}

static unsigned int drv_poll(struct revoke_file *file)
{
	return REVOKE_POLLOUT;
}

static long drv_ioctl(struct revoke_file *file, unsigned int cmd,
		      unsigned long arg)
{
	return 42;
}

static void drv_awaken(struct revoke_file *file)
{
	nr_awaken++;
	revoke_waitq_wake_all(&wq);
}

static int drv_open_fails(struct revoke_inode *inode, struct revoke_file *file)
{
	return -ENXIO;
}

static const struct revoke_file_operations drv_ops = {
	.open = drv_open,
	.release = drv_release,
	.read = drv_read,
	.write = drv_write,
	.poll = drv_poll,
	.ioctl = drv_ioctl,
	.awaken_all_waiters = drv_awaken,
};

static const struct revoke_file_operations failing_ops = {
	.open = drv_open_fails,
	.release = drv_release,
};

static void remap(struct revoke_file *file)
{
	nr_remap++;
}

static struct revoke_file *open_one(struct revoke_inode *inode)
{
	struct revoke_file *f = NULL;

	if (revoke_file_open(inode, 0, &f))
		return NULL;
	return f;
}

static void test_calls_reach_the_table(void)
{
	struct revoke_inode inode;
	struct revoke_file *f;
	char buf[4];

	reset();
	revoke_inode_init(&inode, &drv_ops, NULL);
	f = open_one(&inode);
	CHECK("open runs the table's open once", f && nr_open == 1);
	CHECK("open sets the private data", revoke_file_private(f) == &priv_obj);
	data_ready = true;
	CHECK("read goes to the table", revoke_call_read(f, buf, 4, NULL) == 4);
	CHECK("write goes to the table", revoke_call_write(f, buf, 3, NULL) == 3);
	CHECK("ioctl goes to the table", revoke_call_ioctl(f, 1, 0) == 42);
	CHECK("poll goes to the table", revoke_call_poll(f) == REVOKE_POLLOUT);
	CHECK("a missing llseek fails with ESPIPE",
	      revoke_call_llseek(f, 0, SEEK_SET) == -ESPIPE);
	CHECK("a missing fsync fails with EINVAL", revoke_call_fsync(f, 0) == -EINVAL);
	CHECK("a missing mmap fails with ENODEV", revoke_call_mmap(f, NULL) == -ENODEV);
	CHECK("a missing flush succeeds", revoke_call_flush(f) == 0);
	CHECK("a file is not revoked before substitute", !revoke_file_revoked(f));
	revoke_file_put(f);
	CHECK("the last put releases once", nr_release == 1);
	CHECK("the inode can be destroyed once its files are closed",
	      revoke_inode_destroy(&inode) == 0);
}

static void test_failed_open_owes_no_release(void)
{
	struct revoke_inode inode;
	struct revoke_file *f = NULL;

	reset();
	revoke_inode_init(&inode, &failing_ops, NULL);
	CHECK("a failing open returns its errno",
	      revoke_file_open(&inode, 0, &f) == -ENXIO && !f);
	CHECK("a failed open owes no release", nr_release == 0);
	CHECK("a failed open leaves no file on the inode",
	      revoke_inode_destroy(&inode) == 0);
}

static void test_substitute(void)
{
	struct revoke_inode inode;
	struct revoke_file *f;
	char buf[4] = "abc";

	reset();
	revoke_inode_init(&inode, &drv_ops, NULL);
	f = open_one(&inode);
	CHECK("substitute says it revoked the file",
	      fops_substitute(f, &revoked_file_ops, remap) == REVOKE_SUBSTITUTED);
	CHECK("substitute calls the mapping hook once", nr_remap == 1);
	CHECK("substitute calls the old awaken_all_waiters once", nr_awaken == 1);
	CHECK("substitute runs the old release once", nr_release == 1);
	CHECK("substitute clears the private data", revoke_file_private(f) == NULL);
	CHECK("the file reads as revoked", revoke_file_revoked(f));
	CHECK("a second substitute says it was already revoked",
	      fops_substitute(f, &revoked_file_ops, remap) == REVOKE_ALREADY_REVOKED);
	CHECK("a second substitute calls nothing",
	      nr_remap == 1 && nr_awaken == 1 && nr_release == 1);
	nr_read = 0;
	CHECK("revoked read returns 0 (end of file)",
	      revoke_call_read(f, buf, 4, NULL) == 0);
	CHECK("revoked read never reaches the old table", nr_read == 0);
	CHECK("revoked write fails with EIO", revoke_call_write(f, buf, 4, NULL) == -EIO);
	CHECK("revoked ioctl fails with EIO", revoke_call_ioctl(f, 1, 0) == -EIO);
	CHECK("revoked llseek fails with EIO",
	      revoke_call_llseek(f, 0, SEEK_SET) == -EIO);
	CHECK("revoked mmap fails with EIO", revoke_call_mmap(f, NULL) == -EIO);
	CHECK("revoked fsync fails with EIO", revoke_call_fsync(f, 0) == -EIO);
	CHECK("revoked flush succeeds", revoke_call_flush(f) == 0);
	CHECK("revoked poll is IN|OUT|ERR|RDNORM|WRNORM",
	      revoke_call_poll(f) == (REVOKE_POLLIN | REVOKE_POLLOUT | REVOKE_POLLERR |
				      REVOKE_POLLRDNORM | REVOKE_POLLWRNORM));
	revoke_file_put(f);
	CHECK("the last put after substitute does not release again",
	      nr_release == 1);
	revoke_inode_destroy(&inode);
}

static void test_revoked_table_members(void)
{
	const struct revoke_file_operations *o = &revoked_file_ops;

	CHECK("revoked open fails with EIO", o->open(NULL, NULL) == -EIO);
	CHECK("revoked release returns 0", o->release(NULL, NULL) == 0);
	CHECK("revoked readdir fails with EIO", o->readdir(NULL, NULL) == -EIO);
	CHECK("revoked fasync fails with EIO", o->fasync(0, NULL, 1) == -EIO);
	CHECK("revoked lock fails with EIO", o->lock(NULL, 0, NULL) == -EIO);
	CHECK("revoked flock fails with EIO", o->flock(NULL, 0, NULL) == -EIO);
	CHECK("revoked sendpage fails with EIO",
	      o->sendpage(NULL, NULL, 0, 0, NULL, 0) == -EIO);
	CHECK("revoked get_unmapped_area fails with EIO",
	      (long)o->get_unmapped_area(NULL, 0, 0, 0, 0) == -EIO);
	CHECK("revoked check_flags fails with EIO", o->check_flags(0) == -EIO);
	CHECK("revoked splice_read fails with EIO",
	      o->splice_read(NULL, NULL, NULL, 0, 0) == -EIO);
	CHECK("revoked splice_write fails with EIO",
	      o->splice_write(NULL, NULL, NULL, 0, 0) == -EIO);
	CHECK("the EIO variant's read fails with EIO",
	      revoked_file_ops_eio.read(NULL, NULL, 1, NULL) == -EIO);
	CHECK("the EIO variant differs from the seed's table only in read",
	      revoked_file_ops_eio.write == o->write &&
	      revoked_file_ops_eio.poll == o->poll &&
	      revoked_file_ops_eio.release == o->release);
}

static void test_put_before_substitute_releases_once(void)
{
	struct revoke_inode inode;
	struct revoke_file *f;

	reset();
	revoke_inode_init(&inode, &drv_ops, NULL);
	f = open_one(&inode);
	revoke_file_get(f);
	revoke_file_put(f);
	CHECK("a put that is not the last does not release", nr_release == 0);
	CHECK("substitute with a reference held releases",
	      fops_substitute(f, &revoked_file_ops, NULL) == REVOKE_SUBSTITUTED &&
	      nr_release == 1);
	revoke_file_put(f);
	CHECK("and the last put does not release again", nr_release == 1);
	revoke_inode_destroy(&inode);
}

struct reader_arg {
	struct revoke_file *f;
	ssize_t ret;
};

static void *blocked_reader(void *p)
{
	struct reader_arg *a = p;
	char buf[4];

	a->ret = revoke_call_read(a->f, buf, sizeof(buf), NULL);
	return NULL;
}

static void test_blocked_reader_is_woken(void)
{
	struct reader_arg a = { .ret = 1234 };
	struct revoke_inode inode;
	pthread_t th;
	int i;

	reset();
	revoke_inode_init(&inode, &drv_ops, NULL);
	a.f = open_one(&inode);
	pthread_create(&th, NULL, blocked_reader, &a);
	for (i = 0; i < 1000 && nr_read == 0; i++)
		usleep(1000);
	CHECK("the reader is blocked in the old table", nr_read == 1 && a.ret == 1234);
	CHECK("substitute returns while a reader was blocked",
	      fops_substitute(a.f, &revoked_file_ops, NULL) == REVOKE_SUBSTITUTED);
	CHECK("when substitute returns, the reader has left the old read with EIO",
	      read_result == -EIO);
	pthread_join(th, NULL);
	CHECK("and its call returned EIO", a.ret == -EIO);
	CHECK("release ran once, after the reader left", nr_release == 1);
	revoke_file_put(a.f);
	revoke_inode_destroy(&inode);
}

static void test_inode_substitute(void)
{
	struct revoke_file *f1, *f2, *f3 = NULL;
	struct revoke_inode inode;
	size_t n = 99;

	reset();
	revoke_inode_init(&inode, &drv_ops, NULL);
	f1 = open_one(&inode);
	f2 = open_one(&inode);
	CHECK("inode_fops_substitute succeeds",
	      inode_fops_substitute(&inode, &revoked_file_ops_eio, remap, &n) == 0);
	CHECK("inode_fops_substitute revokes every open file",
	      n == 2 && revoke_file_revoked(f1) && revoke_file_revoked(f2));
	CHECK("each open file is released once", nr_release == 2);
	CHECK("each file's mappings are revoked", nr_remap == 2);
	CHECK("a later open gets the revoked table and fails with EIO",
	      revoke_file_open(&inode, 0, &f3) == -EIO && !f3);
	CHECK("a later open never reaches the old open", nr_open == 2);
	CHECK("the EIO table's read fails with EIO",
	      revoke_call_read(f1, NULL, 1, NULL) == -EIO);
	CHECK("a second inode_fops_substitute revokes nothing more",
	      inode_fops_substitute(&inode, &revoked_file_ops_eio, remap, &n) == 0 &&
	      n == 0 && nr_release == 2);
	CHECK("an inode with open files cannot be destroyed",
	      revoke_inode_destroy(&inode) == -EBUSY);
	revoke_file_put(f1);
	revoke_file_put(f2);
	CHECK("closing revoked files releases nothing more", nr_release == 2);
	CHECK("the inode can be destroyed after", revoke_inode_destroy(&inode) == 0);
}

/* An operation that tries to revoke its own file. */
static int self_result;
static long self_ioctl(struct revoke_file *file, unsigned int cmd,
		       unsigned long arg)
{
	self_result = fops_substitute(file, &revoked_file_ops, NULL);
	return 0;
}

static void test_substitute_from_inside_is_refused(void)
{
	static const struct revoke_file_operations self_ops = {
		.ioctl = self_ioctl, .release = drv_release,
	};
	struct revoke_inode inode;
	struct revoke_file *f;

	reset();
	revoke_inode_init(&inode, &self_ops, NULL);
	f = open_one(&inode);
	revoke_call_ioctl(f, 0, 0);
	CHECK("substitute from inside the file's own operation fails with EDEADLK",
	      self_result == -EDEADLK);
	CHECK("and changes nothing", !revoke_file_revoked(f) && nr_release == 0);
	revoke_file_put(f);
	revoke_inode_destroy(&inode);
}

static void test_bad_arguments(void)
{
	struct revoke_inode inode;
	struct revoke_file *f;

	revoke_inode_init(&inode, &drv_ops, NULL);
	f = open_one(&inode);
	CHECK("substitute with no table fails with EINVAL",
	      fops_substitute(f, NULL, NULL) == -EINVAL && !revoke_file_revoked(f));
	CHECK("substitute of no file fails with EINVAL",
	      fops_substitute(NULL, &revoked_file_ops, NULL) == -EINVAL);
	CHECK("inode substitute with no table fails with EINVAL",
	      inode_fops_substitute(&inode, NULL, NULL, NULL) == -EINVAL);
	CHECK("an inode needs a table", revoke_inode_init(&inode, NULL, NULL) == -EINVAL);
	revoke_file_put(f);
	revoke_inode_destroy(&inode);
}

static void test_nesting_past_the_slot(void)
{
	struct revoke_inode inode;
	const struct revoke_file_operations *fop;
	struct revoke_file *f;
	int idx[12], i;

	reset();
	revoke_inode_init(&inode, &drv_ops, NULL);
	f = open_one(&inode);
	for (i = 0; i < 12; i++)
		idx[i] = fops_read_lock(f, &fop);
	CHECK("read locks nest deeper than the per-thread slot", fop == &drv_ops);
	for (i = 11; i >= 0; i--)
		fops_read_unlock(f, idx[i]);
	CHECK("and unwind: substitute does not wait after",
	      fops_substitute(f, &revoked_file_ops, NULL) == REVOKE_SUBSTITUTED &&
	      nr_release == 1);
	revoke_file_put(f);
	revoke_inode_destroy(&inode);
}

int main(void)
{
	revoke_waitq_init(&wq);
	test_calls_reach_the_table();
	test_failed_open_owes_no_release();
	test_substitute();
	test_revoked_table_members();
	test_put_before_substitute_releases_once();
	test_blocked_reader_is_woken();
	test_inode_substitute();
	test_substitute_from_inside_is_refused();
	test_bad_arguments();
	test_nesting_past_the_slot();
	revoke_waitq_destroy(&wq);
	return tap_done();
}
