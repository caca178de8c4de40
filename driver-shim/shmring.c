// SPDX-License-Identifier: MIT
/* Shared-memory frame rings between an HCA and the switch: see shmring.h. */
#include "shmring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "swproto.h"

#define REC_HDR 8

static uint64_t rec_size(uint64_t len)
{
	return REC_HDR + ((len + 7) & ~(uint64_t)7);
}

size_t shmring_seg_size(uint64_t ring_bytes)
{
	return SHMRING_DATA_OFF + 2 * (size_t)ring_bytes;
}

int shmring_create(uint64_t ring_bytes, struct shmring_seg **seg, char *err, size_t errlen)
{
	size_t size = shmring_seg_size(ring_bytes);
	int fd = memfd_create("hcasim-link", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	*seg = MAP_FAILED;
	if (fd < 0 || ftruncate(fd, (off_t)size) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) ||
	    (*seg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0)) ==
		    MAP_FAILED) {
		snprintf(err, errlen, "cannot make the shared segment: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		*seg = NULL;
		return -1;
	}
	memset(*seg, 0, SHMRING_DATA_OFF);
	(*seg)->magic = SHMRING_MAGIC;
	(*seg)->version = SHMRING_VERSION;
	(*seg)->ring_bytes = ring_bytes;
	return fd;
}

struct shmring_seg *shmring_attach(int fd, uint64_t *ring_bytes, char *err, size_t errlen)
{
	struct shmring_seg *seg;
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	uint64_t rb;

	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		snprintf(err, errlen, "the shared segment is not a memfd sealed against shrinking");
		return NULL;
	}
	if (fstat(fd, &st) || st.st_size < SHMRING_DATA_OFF) {
		snprintf(err, errlen, "shared segment of %lld bytes: smaller than its header",
			 (long long)st.st_size);
		return NULL;
	}
	seg = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (seg == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the shared segment: %s", strerror(errno));
		return NULL;
	}
	rb = seg->ring_bytes;	/* read once: the peer may change it */
	if (seg->magic != SHMRING_MAGIC || seg->version != SHMRING_VERSION || rb < 4096 ||
	    rb > (1u << 30) || (rb & (rb - 1)) || shmring_seg_size(rb) != (size_t)st.st_size) {
		snprintf(err, errlen,
			 "bad shared segment: magic %#x version %u, rings of %llu bytes in %lld bytes",
			 seg->magic, seg->version, (unsigned long long)rb, (long long)st.st_size);
		munmap(seg, (size_t)st.st_size);
		return NULL;
	}
	*ring_bytes = rb;
	return seg;
}

void shmring_unmap(struct shmring_seg *seg, uint64_t ring_bytes)
{
	if (seg)
		munmap(seg, shmring_seg_size(ring_bytes));
}

void shmring_init(struct shmring *r, struct shmring_seg *seg, uint64_t ring_bytes, int which,
		  int wake_fd)
{
	memset(r, 0, sizeof(*r));
	r->ctl = &seg->ctl[which];
	r->size = ring_bytes;
	r->data = (uint8_t *)seg + SHMRING_DATA_OFF + (size_t)which * r->size;
	r->wake_fd = wake_fd;
	r->pos = atomic_load_explicit(&r->ctl->head, memory_order_acquire);
	r->tail = r->pos;
}

int shmring_put(struct shmring *r, const uint8_t *frame, size_t len)
{
	uint64_t off = r->pos & (r->size - 1), need = rec_size(len), room = r->size - off;
	uint64_t skip = need > room ? room : 0;
	uint32_t hdr[2] = { (uint32_t)len, 0 };
	uint8_t *p;

	if (len > HCASW_MAX_FRAME)
		return -1;
	if (r->pos + skip + need - atomic_load_explicit(&r->ctl->head, memory_order_acquire) > r->size)
		return -1;
	if (skip) {
		uint32_t wrap = SHMRING_WRAP;

		memcpy(r->data + off, &wrap, 4);
		r->pos += skip;
		off = 0;
	}
	p = r->data + off;
	memcpy(p, hdr, REC_HDR);
	memcpy(p + REC_HDR, frame, len);
	memset(p + REC_HDR + len, 0, need - REC_HDR - len);
	r->pos += need;
	return 0;
}

int shmring_publish(struct shmring *r)
{
	uint64_t one = 1;

	if (atomic_load_explicit(&r->ctl->tail, memory_order_relaxed) == r->pos)
		return 0;
	atomic_store(&r->ctl->tail, r->pos);	/* seq_cst: ordered before the load below */
	if (!atomic_load(&r->ctl->sleeping) || !atomic_exchange(&r->ctl->sleeping, 0))
		return 0;
	while (write(r->wake_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	return 1;
}

static const uint8_t *broken(struct shmring *r, const char *what, uint64_t v)
{
	snprintf(r->error, sizeof(r->error), "%s (%llu) at byte %llu of the ring", what,
		 (unsigned long long)v, (unsigned long long)r->pos);
	return NULL;
}

const uint8_t *shmring_next(struct shmring *r, size_t *len)
{
	uint32_t l;
	uint64_t off;

	if (r->error[0])
		return NULL;
	for (;;) {
		if (r->pos == r->tail) {
			r->tail = atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
			if (r->pos == r->tail)
				return NULL;
		}
		if (r->tail - r->pos > r->size)
			return broken(r, "tail beyond the ring's size", r->tail - r->pos);
		off = r->pos & (r->size - 1);
		memcpy(&l, r->data + off, 4);
		if (l != SHMRING_WRAP)
			break;
		if (off == 0)
			return broken(r, "wrap mark at the start of the ring", l);
		r->pos += r->size - off;
	}
	if (l > HCASW_MAX_FRAME)
		return broken(r, "oversized frame", l);
	if (rec_size(l) > r->size - off || rec_size(l) > r->tail - r->pos)
		return broken(r, "truncated frame", l);
	*len = l;
	r->pos += rec_size(l);
	return r->data + off + REC_HDR;
}

void shmring_release(struct shmring *r)
{
	atomic_store_explicit(&r->ctl->head, r->pos, memory_order_release);
}

int shmring_pending(struct shmring *r)
{
	if (r->error[0])
		return 0;
	return r->pos != atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
}

int shmring_sleep(struct shmring *r, int sleeping)
{
	if (!sleeping) {
		atomic_store_explicit(&r->ctl->sleeping, 0, memory_order_relaxed);
		return 0;
	}
	atomic_store(&r->ctl->sleeping, 1);	/* seq_cst: before the load of tail */
	if (r->error[0] || r->pos == atomic_load(&r->ctl->tail))
		return 0;
	atomic_store_explicit(&r->ctl->sleeping, 0, memory_order_relaxed);
	return 1;
}

void shmring_clear_wake(struct shmring *r)
{
	uint64_t v;

	while (read(r->wake_fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
}
