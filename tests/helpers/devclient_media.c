// SPDX-License-Identifier: GPL-2.0
/*
 * devclient_media.c - devclient's modes for devices that stream: an ALSA
 * capture stream (snd-aloop's) and V4L2 capture with MMAP buffers
 * (vivid's), set up with the kernel's ioctls only (no alsa-lib, no
 * libv4l2).  See devclient.c for the client.
 *
 *	pcm-capture	S16_LE, 2 channels, 48000 Hz, periods of 480 frames,
 *			4 of them; prepared and started.  read: READI_FRAMES
 *			of one period, "read: ok 480".
 *	pcm-mmap	the same with MMAP_INTERLEAVED access, the ring and
 *			the status and control pages mapped.  mmap-read:
 *			waits until the hardware pointer in the mapped status
 *			page moves, with no system call on the device, and
 *			reads the ring there: "mmap-read: advanced FRAMES".
 *	v4l2-mmap	VIDIOC_S_FMT to a small YUYV frame, REQBUFS of 2 MMAP
 *			buffers, each mapped and queued, STREAMON.  dqbuf:
 *			VIDIOC_DQBUF then QBUF of the same buffer, "dqbuf: ok
 *			seq N".  peek: reads the first byte of every buffer
 *			through its mapping, no system call: "peek: ok".
 *
 * The stop threshold of both pcm modes is the boundary: a stream that
 * nobody reads for a while overruns and goes on, it never stops in XRUN.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <sound/asound.h>

#include "devclient.h"
#include "helper.h"

#define PCM_RATE	48000
#define PCM_CHANNELS	2
#define PCM_PERIOD	480
#define PCM_PERIODS	4
#define PCM_FRAME_BYTES	(PCM_CHANNELS * 2)

#define V4L2_BUFFERS	2

static enum { NONE, PCM_CAPTURE, PCM_MMAP, V4L2_MMAP } mode;

static struct {
	unsigned long period, buffer, boundary;
	volatile struct snd_pcm_mmap_status *status;
	volatile struct snd_pcm_mmap_control *control;
	volatile unsigned char *ring;
	int16_t frames[PCM_PERIOD * PCM_CHANNELS];
} pcm;

static struct {
	unsigned int count;
	volatile unsigned char *map[8];
	size_t len[8];
} v4l2;

/* ---- ALSA ------------------------------------------------------------------ */

static struct snd_mask *hw_mask(struct snd_pcm_hw_params *p, int param)
{
	return &p->masks[param - SNDRV_PCM_HW_PARAM_FIRST_MASK];
}

static struct snd_interval *hw_interval(struct snd_pcm_hw_params *p, int param)
{
	return &p->intervals[param - SNDRV_PCM_HW_PARAM_FIRST_INTERVAL];
}

/* every configuration, as alsa-lib's snd_pcm_hw_params_any() starts */
static void hw_any(struct snd_pcm_hw_params *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	for (i = SNDRV_PCM_HW_PARAM_FIRST_MASK; i <= SNDRV_PCM_HW_PARAM_LAST_MASK; i++)
		memset(hw_mask(p, i), 0xff, sizeof(struct snd_mask));
	for (i = SNDRV_PCM_HW_PARAM_FIRST_INTERVAL; i <= SNDRV_PCM_HW_PARAM_LAST_INTERVAL; i++)
		hw_interval(p, i)->max = ~0u;
	p->rmask = ~0u;
	p->info = ~0u;
}

static void hw_set_mask(struct snd_pcm_hw_params *p, int param, unsigned int val)
{
	struct snd_mask *m = hw_mask(p, param);

	memset(m, 0, sizeof(*m));
	m->bits[val / 32] = 1u << (val % 32);
}

static void hw_set_interval(struct snd_pcm_hw_params *p, int param, unsigned int val)
{
	struct snd_interval *i = hw_interval(p, param);

	i->min = i->max = val;
	i->integer = 1;
}

static int pcm_hw_params(int fd, int mmap_access)
{
	struct snd_pcm_hw_params p;

	hw_any(&p);
	hw_set_mask(&p, SNDRV_PCM_HW_PARAM_ACCESS, mmap_access ?
		    SNDRV_PCM_ACCESS_MMAP_INTERLEAVED : SNDRV_PCM_ACCESS_RW_INTERLEAVED);
	hw_set_mask(&p, SNDRV_PCM_HW_PARAM_FORMAT, SNDRV_PCM_FORMAT_S16_LE);
	hw_set_mask(&p, SNDRV_PCM_HW_PARAM_SUBFORMAT, SNDRV_PCM_SUBFORMAT_STD);
	hw_set_interval(&p, SNDRV_PCM_HW_PARAM_SAMPLE_BITS, 16);
	hw_set_interval(&p, SNDRV_PCM_HW_PARAM_FRAME_BITS, 16 * PCM_CHANNELS);
	hw_set_interval(&p, SNDRV_PCM_HW_PARAM_CHANNELS, PCM_CHANNELS);
	hw_set_interval(&p, SNDRV_PCM_HW_PARAM_RATE, PCM_RATE);
	hw_set_interval(&p, SNDRV_PCM_HW_PARAM_PERIOD_SIZE, PCM_PERIOD);
	hw_set_interval(&p, SNDRV_PCM_HW_PARAM_PERIODS, PCM_PERIODS);
	hw_set_interval(&p, SNDRV_PCM_HW_PARAM_BUFFER_SIZE, PCM_PERIOD * PCM_PERIODS);
	if (ioctl(fd, SNDRV_PCM_IOCTL_HW_PARAMS, &p) < 0) {
		fprintf(stderr, "devclient: SNDRV_PCM_IOCTL_HW_PARAMS: %s\n", strerror(errno));
		return -1;
	}
	pcm.period = hw_interval(&p, SNDRV_PCM_HW_PARAM_PERIOD_SIZE)->min;
	pcm.buffer = hw_interval(&p, SNDRV_PCM_HW_PARAM_BUFFER_SIZE)->min;
	return 0;
}

/* twice: the first call tells the boundary, the stop threshold of the second */
static int pcm_sw_params(int fd)
{
	struct snd_pcm_sw_params sw;
	int i;

	for (i = 0; i < 2; i++) {
		memset(&sw, 0, sizeof(sw));
		sw.tstamp_mode = SNDRV_PCM_TSTAMP_NONE;
		sw.period_step = 1;
		sw.avail_min = pcm.period;
		sw.start_threshold = pcm.buffer;
		sw.stop_threshold = i ? pcm.boundary : pcm.buffer;
		sw.proto = SNDRV_PCM_VERSION;
		if (ioctl(fd, SNDRV_PCM_IOCTL_SW_PARAMS, &sw) < 0) {
			fprintf(stderr, "devclient: SNDRV_PCM_IOCTL_SW_PARAMS: %s\n",
				strerror(errno));
			return -1;
		}
		pcm.boundary = sw.boundary;
	}
	return 0;
}

/* the status and control pages and the ring, as alsa-lib maps them */
static int pcm_map(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd,
		 SNDRV_PCM_MMAP_OFFSET_STATUS);
	if (p == MAP_FAILED)
		goto fail;
	pcm.status = p;
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 SNDRV_PCM_MMAP_OFFSET_CONTROL);
	if (p == MAP_FAILED)
		goto fail;
	pcm.control = p;
	p = mmap(NULL, pcm.buffer * PCM_FRAME_BYTES, PROT_READ, MAP_SHARED, fd,
		 SNDRV_PCM_MMAP_OFFSET_DATA);
	if (p == MAP_FAILED)
		goto fail;
	pcm.ring = p;
	return 0;
fail:
	fprintf(stderr, "devclient: mmap of the pcm's %s: %s\n",
		!pcm.status ? "status page" : !pcm.control ? "control page" : "ring",
		strerror(errno));
	return -1;
}

static int pcm_open(const char *node, int mmap_access)
{
	int fd, v = SNDRV_PCM_VERSION;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* as alsa-lib: this protocol's mmap of the status page is allowed */
	ioctl(fd, SNDRV_PCM_IOCTL_USER_PVERSION, &v);
	if (pcm_hw_params(fd, mmap_access) || pcm_sw_params(fd) ||
	    (mmap_access && pcm_map(fd)))
		return -2;
	if (ioctl(fd, SNDRV_PCM_IOCTL_PREPARE) < 0 || ioctl(fd, SNDRV_PCM_IOCTL_START) < 0) {
		fprintf(stderr, "devclient: PREPARE/START: %s\n", strerror(errno));
		return -2;
	}
	say("setup: pcm %s, period %lu frames, buffer %lu", mmap_access ?
	    "mmap_interleaved, status and control pages mapped" : "rw_interleaved",
	    pcm.period, pcm.buffer);
	return fd;
}

static int cmd_pcm_read(int fd, const char *arg, char *out, size_t len)
{
	struct snd_xferi x = { .buf = pcm.frames, .frames = pcm.period };

	(void)arg;
	if (ioctl(fd, SNDRV_PCM_IOCTL_READI_FRAMES, &x) < 0)
		return -1;
	snprintf(out, len, "ok %ld", (long)x.result);
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Waits (up to the command timeout) until the hardware pointer in the
 * mapped status page moves, sleeping 1 ms between looks: no system call
 * on the device.  Then reads the new frames in the mapped ring, and moves
 * the application pointer in the mapped control page up to them.
 */
static int cmd_mmap_read(int fd, const char *arg, char *out, size_t len)
{
	struct timespec ms = { .tv_nsec = 1000000 };
	unsigned long h0, h1, n, i;
	long deadline = now_ms() + (long)dc_timeout * 1000;
	volatile unsigned char sink = 0;

	(void)fd, (void)arg;
	h0 = pcm.status->hw_ptr;
	while ((h1 = pcm.status->hw_ptr) == h0) {
		if (now_ms() >= deadline) {
			snprintf(out, len, "stalled at %lu, state %d", h0,
				 (int)pcm.status->state);
			return 0;
		}
		nanosleep(&ms, NULL);
	}
	n = (h1 + pcm.boundary - h0) % pcm.boundary;
	for (i = 0; i < n && i < pcm.buffer; i++)
		sink ^= pcm.ring[((h0 + i) % pcm.buffer) * PCM_FRAME_BYTES];
	(void)sink;
	pcm.control->appl_ptr = h1;
	snprintf(out, len, "advanced %lu", n);
	return 0;
}

/* ---- V4L2 ------------------------------------------------------------------ */

static int v4l2_fail(const char *what)
{
	fprintf(stderr, "devclient: %s: %s\n", what, strerror(errno));
	return -2;
}

static int v4l2_map(int fd)
{
	struct v4l2_requestbuffers req = {
		.count = V4L2_BUFFERS, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	struct v4l2_buffer b;
	unsigned int i;
	void *p;

	if (ioctl(fd, VIDIOC_REQBUFS, &req) < 0)
		return v4l2_fail("VIDIOC_REQBUFS");
	v4l2.count = req.count < 8 ? req.count : 8;
	for (i = 0; i < v4l2.count; i++) {
		memset(&b, 0, sizeof(b));
		b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		b.memory = V4L2_MEMORY_MMAP;
		b.index = i;
		if (ioctl(fd, VIDIOC_QUERYBUF, &b) < 0)
			return v4l2_fail("VIDIOC_QUERYBUF");
		p = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset);
		if (p == MAP_FAILED)
			return v4l2_fail("mmap of a buffer");
		v4l2.map[i] = p;
		v4l2.len[i] = b.length;
		if (ioctl(fd, VIDIOC_QBUF, &b) < 0)
			return v4l2_fail("VIDIOC_QBUF");
	}
	return 0;
}

static int v4l2_open(const char *node)
{
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	int fd, type = V4L2_BUF_TYPE_VIDEO_CAPTURE, ret;

	fd = open(node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	fmt.fmt.pix.width = 320;
	fmt.fmt.pix.height = 240;
	fmt.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	if (ioctl(fd, VIDIOC_S_FMT, &fmt) < 0)
		return v4l2_fail("VIDIOC_S_FMT");
	/* as many frames a second as the input allows, up to 30 */
	parm.parm.capture.timeperframe.numerator = 1;
	parm.parm.capture.timeperframe.denominator = 30;
	ioctl(fd, VIDIOC_S_PARM, &parm);
	ret = v4l2_map(fd);
	if (ret)
		return ret;
	if (ioctl(fd, VIDIOC_STREAMON, &type) < 0)
		return v4l2_fail("VIDIOC_STREAMON");
	say("setup: v4l2 %ux%u, %u/%u s a frame, %u mmap buffers",
	    fmt.fmt.pix.width, fmt.fmt.pix.height,
	    parm.parm.capture.timeperframe.numerator,
	    parm.parm.capture.timeperframe.denominator, v4l2.count);
	return fd;
}

static int cmd_dqbuf(int fd, const char *arg, char *out, size_t len)
{
	struct v4l2_buffer b = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP,
	};

	(void)arg;
	if (ioctl(fd, VIDIOC_DQBUF, &b) < 0)
		return -1;
	snprintf(out, len, "ok seq %u", b.sequence);
	if (ioctl(fd, VIDIOC_QBUF, &b) < 0)
		return -1;
	return 0;
}

static int cmd_peek(int fd, const char *arg, char *out, size_t len)
{
	volatile unsigned char sink = 0;
	unsigned int i;

	(void)fd, (void)arg;
	for (i = 0; i < v4l2.count; i++)
		sink ^= v4l2.map[i][0] ^ v4l2.map[i][v4l2.len[i] - 1];
	(void)sink;
	snprintf(out, len, "ok");
	return 0;
}

/* ---- the modes ------------------------------------------------------------- */

int media_open(const char *name, const char *node)
{
	if (!strcmp(name, "pcm-capture")) {
		mode = PCM_CAPTURE;
		return pcm_open(node, 0);
	}
	if (!strcmp(name, "pcm-mmap")) {
		mode = PCM_MMAP;
		return pcm_open(node, 1);
	}
	if (!strcmp(name, "v4l2-mmap")) {
		mode = V4L2_MMAP;
		return v4l2_open(node);
	}
	return -3;
}

static const struct dc_cmd pcm_capture_cmds[] = {
	{ "read", cmd_pcm_read, "reading" },
};

static const struct dc_cmd pcm_mmap_cmds[] = {
	{ "mmap-read", cmd_mmap_read, NULL },
};

static const struct dc_cmd v4l2_cmds[] = {
	{ "dqbuf", cmd_dqbuf, "dequeueing" },
	{ "peek", cmd_peek, NULL },
};

const struct dc_cmd *media_cmd(const char *name)
{
	const struct dc_cmd *t = NULL;
	size_t n = 0, i;

	switch (mode) {
	case PCM_CAPTURE:
		t = pcm_capture_cmds, n = sizeof(pcm_capture_cmds) / sizeof(t[0]);
		break;
	case PCM_MMAP:
		t = pcm_mmap_cmds, n = sizeof(pcm_mmap_cmds) / sizeof(t[0]);
		break;
	case V4L2_MMAP:
		t = v4l2_cmds, n = sizeof(v4l2_cmds) / sizeof(t[0]);
		break;
	case NONE:
		break;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(name, t[i].name))
			return &t[i];
	return NULL;
}
