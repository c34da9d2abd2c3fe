// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/common/key.c: strict number parsing and the dev encoding. */
#include <errno.h>
#include <sys/sysmacros.h>

#include "common/key.h"
#include "tap.h"

static void test_parse_u64(void)
{
	uint64_t v = 0;

	CHECK("u64 parses zero", revoke_parse_u64("0", &v) == 0 && v == 0);
	CHECK("u64 parses 2^64-1",
	      revoke_parse_u64("18446744073709551615", &v) == 0 &&
	      v == UINT64_MAX);
	CHECK("u64 rejects 2^64 with ERANGE",
	      revoke_parse_u64("18446744073709551616", &v) == -ERANGE);
	CHECK("u64 rejects a huge number with ERANGE",
	      revoke_parse_u64("99999999999999999999999999", &v) == -ERANGE);
	CHECK("u64 rejects empty", revoke_parse_u64("", &v) == -EINVAL);
	CHECK("u64 rejects a sign", revoke_parse_u64("-1", &v) == -EINVAL);
	CHECK("u64 rejects plus", revoke_parse_u64("+1", &v) == -EINVAL);
	CHECK("u64 rejects leading space", revoke_parse_u64(" 1", &v) == -EINVAL);
	CHECK("u64 rejects trailing junk", revoke_parse_u64("12x", &v) == -EINVAL);
	CHECK("u64 rejects hex", revoke_parse_u64("0x10", &v) == -EINVAL);
}

static void test_parse_duration(void)
{
	uint64_t ms = 0;

	CHECK("duration: a bare number is seconds",
	      revoke_parse_duration_ms("2", 60000, &ms) == 0 && ms == 2000);
	CHECK("duration: s", revoke_parse_duration_ms("3s", 60000, &ms) == 0 &&
	      ms == 3000);
	CHECK("duration: ms", revoke_parse_duration_ms("100ms", 60000, &ms) == 0 &&
	      ms == 100);
	CHECK("duration: min", revoke_parse_duration_ms("1min", 60000, &ms) == 0 &&
	      ms == 60000);
	CHECK("duration: 0 is 0", revoke_parse_duration_ms("0", 60000, &ms) == 0 &&
	      ms == 0);
	CHECK("duration: past the maximum is ERANGE",
	      revoke_parse_duration_ms("61s", 60000, &ms) == -ERANGE);
	CHECK("duration: 2^64 s is ERANGE, not a wrap",
	      revoke_parse_duration_ms("18446744073709551615", 60000, &ms) == -ERANGE);
	CHECK("duration: an unknown unit is EINVAL",
	      revoke_parse_duration_ms("2h", 60000, &ms) == -EINVAL);
	CHECK("duration: a fraction is EINVAL",
	      revoke_parse_duration_ms("1.5s", 60000, &ms) == -EINVAL);
	CHECK("duration: no number is EINVAL",
	      revoke_parse_duration_ms("ms", 60000, &ms) == -EINVAL);
	CHECK("duration: a sign is EINVAL",
	      revoke_parse_duration_ms("-1", 60000, &ms) == -EINVAL);
}

static void test_parse_ino(void)
{
	uint64_t ino = 0;

	CHECK("ino parses 12", revoke_parse_ino("12", &ino) == 0 && ino == 12);
	CHECK("ino rejects 0", revoke_parse_ino("0", &ino) == -EINVAL);
	CHECK("ino rejects negative", revoke_parse_ino("-5", &ino) == -EINVAL);
	CHECK("ino rejects 2^64", revoke_parse_ino("18446744073709551616", &ino) == -ERANGE);
}

static void test_devspec(void)
{
	unsigned int maj = 99, min = 99;

	CHECK("devspec parses 8:1",
	      revoke_parse_devspec("8:1", &maj, &min) == 0 && maj == 8 && min == 1);
	CHECK("devspec parses the largest 4095:1048575",
	      revoke_parse_devspec("4095:1048575", &maj, &min) == 0 &&
	      maj == 4095 && min == 1048575);
	CHECK("devspec rejects major 4096",
	      revoke_parse_devspec("4096:0", &maj, &min) == -ERANGE);
	CHECK("devspec rejects minor 2^20",
	      revoke_parse_devspec("0:1048576", &maj, &min) == -ERANGE);
	CHECK("devspec rejects a missing colon",
	      revoke_parse_devspec("81", &maj, &min) == -EINVAL);
	CHECK("devspec rejects an empty minor",
	      revoke_parse_devspec("8:", &maj, &min) == -EINVAL);
	CHECK("devspec rejects two colons",
	      revoke_parse_devspec("8:1:2", &maj, &min) == -EINVAL);
	CHECK("devspec rejects a negative",
	      revoke_parse_devspec("-8:1", &maj, &min) == -EINVAL);
}

static void test_kdev(void)
{
	uint32_t kdev = 0;

	/* ext4 on loop0: st_dev 1792, kernel s_dev 7 << 20 */
	CHECK("st_dev of 7:0 is 1792 in user space", makedev(7, 0) == 1792);
	CHECK("st_dev 7:0 becomes s_dev 7<<20",
	      revoke_kdev_from_stdev(makedev(7, 0), &kdev) == 0 &&
	      kdev == 7u << 20);
	CHECK("st_dev 259:65536 (a large minor) becomes 259<<20|65536",
	      revoke_kdev_from_stdev(makedev(259, 65536), &kdev) == 0 &&
	      kdev == (259u << 20 | 65536));
	CHECK("tmpfs 0:22 is 22 either way",
	      revoke_kdev_from_stdev(makedev(0, 22), &kdev) == 0 && kdev == 22);
	CHECK("a major past 4095 cannot be a kernel dev",
	      revoke_kdev_from_stdev(makedev(4096, 0), &kdev) == -ERANGE);
	CHECK("kdev splits back into major",
	      revoke_kdev_major(259u << 20 | 65536) == 259);
	CHECK("kdev splits back into minor",
	      revoke_kdev_minor(259u << 20 | 65536) == 65536);
}

int main(void)
{
	test_parse_u64();
	test_parse_duration();
	test_parse_ino();
	test_devspec();
	test_kdev();
	return tap_done();
}
