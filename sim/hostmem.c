// SPDX-License-Identifier: MIT
/* Host memory behind an IOMMU: see hostmem.h. */
#include "hostmem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HM_PAGE 4096u

struct hm_map {
	uint64_t iova;
	uint64_t len;
	uint8_t *host;
	unsigned int perm;
	int owned;		/* allocated by hostmem_alloc */
};

struct hostmem {
	struct hm_map *maps;	/* sorted by iova, non-overlapping */
	size_t nmaps, cap;
	uint64_t next_iova;	/* hostmem_alloc cursor */
	uint64_t nfaults;
	struct hostmem_fault log[HOSTMEM_FAULT_LOG];
	unsigned int log_head;	/* next slot to write */
	uint64_t rd_bytes, wr_bytes;
};

struct hostmem *hostmem_create(void)
{
	struct hostmem *hm = calloc(1, sizeof(*hm));

	if (hm)
		hm->next_iova = 0x10000000ull;
	return hm;
}

void hostmem_destroy(struct hostmem *hm)
{
	if (!hm)
		return;
	for (size_t i = 0; i < hm->nmaps; i++)
		if (hm->maps[i].owned)
			free(hm->maps[i].host);
	free(hm->maps);
	free(hm);
}

/* Index of the first mapping whose end is above iova. */
static size_t hm_lower(const struct hostmem *hm, uint64_t iova)
{
	size_t lo = 0, hi = hm->nmaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (hm->maps[mid].iova + hm->maps[mid].len <= iova)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int hm_insert(struct hostmem *hm, uint64_t iova, void *host, size_t len,
		     unsigned int perm, int owned)
{
	size_t i;

	if (!len || !perm || (perm & ~(unsigned int)HOSTMEM_RW) || iova + len < iova)
		return -EINVAL;
	i = hm_lower(hm, iova);
	if (i < hm->nmaps && hm->maps[i].iova < iova + len)
		return -EINVAL;	/* overlap */
	if (hm->nmaps == hm->cap) {
		size_t ncap = hm->cap ? 2 * hm->cap : 16;
		struct hm_map *n = realloc(hm->maps, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		hm->maps = n;
		hm->cap = ncap;
	}
	memmove(&hm->maps[i + 1], &hm->maps[i], (hm->nmaps - i) * sizeof(*hm->maps));
	hm->maps[i] = (struct hm_map){ .iova = iova, .len = len, .host = host,
				       .perm = perm, .owned = owned };
	hm->nmaps++;
	return 0;
}

int hostmem_map(struct hostmem *hm, uint64_t iova, void *host, size_t len, unsigned int perm)
{
	if (!host)
		return -EINVAL;
	return hm_insert(hm, iova, host, len, perm, 0);
}

int hostmem_unmap(struct hostmem *hm, uint64_t iova)
{
	size_t i = hm_lower(hm, iova);

	if (i >= hm->nmaps || hm->maps[i].iova != iova)
		return -ENOENT;
	if (hm->maps[i].owned)
		free(hm->maps[i].host);
	memmove(&hm->maps[i], &hm->maps[i + 1], (hm->nmaps - i - 1) * sizeof(*hm->maps));
	hm->nmaps--;
	return 0;
}

void *hostmem_alloc(struct hostmem *hm, size_t len, uint64_t *iova)
{
	size_t rounded = (len + HM_PAGE - 1) & ~(size_t)(HM_PAGE - 1);
	void *p;

	if (!len || rounded < len)
		return NULL;
	if (posix_memalign(&p, HM_PAGE, rounded))
		return NULL;
	memset(p, 0, rounded);
	if (hm_insert(hm, hm->next_iova, p, len, HOSTMEM_RW, 1)) {
		free(p);
		return NULL;
	}
	if (iova)
		*iova = hm->next_iova;
	hm->next_iova += rounded + HM_PAGE;	/* unmapped guard page */
	return p;
}

/* The mapping holding all of [iova, iova+len), or NULL. */
static struct hm_map *hm_find(struct hostmem *hm, uint64_t iova, size_t len)
{
	size_t i;

	if (iova + len < iova)
		return NULL;
	i = hm_lower(hm, iova);
	if (i >= hm->nmaps)
		return NULL;
	if (hm->maps[i].iova > iova || iova + len > hm->maps[i].iova + hm->maps[i].len)
		return NULL;
	return &hm->maps[i];
}

void *hostmem_ptr(struct hostmem *hm, uint64_t iova, size_t len)
{
	struct hm_map *m = hm_find(hm, iova, len ? len : 1);

	return m ? m->host + (iova - m->iova) : NULL;
}

static void hm_fault(struct hostmem *hm, uint64_t iova, size_t len, int write)
{
	size_t i = hm_lower(hm, iova);
	unsigned int perm = 0;

	if (i < hm->nmaps && hm->maps[i].iova <= iova)
		perm = hm->maps[i].perm;
	hm->log[hm->log_head] = (struct hostmem_fault){ .iova = iova, .len = len,
							.write = write, .perm = perm };
	hm->log_head = (hm->log_head + 1) % HOSTMEM_FAULT_LOG;
	hm->nfaults++;
}

/*
 * A DMA may span adjacent mappings (a device does not know how the host
 * split its maps); every byte must be covered with the needed permission.
 * Check the whole range first, then move the bytes, so a fault moves none.
 */
static int hm_check(struct hostmem *hm, uint64_t iova, size_t len, unsigned int need)
{
	uint64_t pos = iova, end = iova + len;
	size_t i;

	if (end < iova)
		return -EFAULT;
	i = hm_lower(hm, iova);
	while (pos < end) {
		if (i >= hm->nmaps || hm->maps[i].iova > pos || !(hm->maps[i].perm & need))
			return -EFAULT;
		pos = hm->maps[i].iova + hm->maps[i].len;
		i++;
	}
	return 0;
}

static void hm_copy(struct hostmem *hm, uint64_t iova, uint8_t *buf, size_t len, int write)
{
	size_t i = hm_lower(hm, iova);

	while (len) {
		struct hm_map *m = &hm->maps[i++];
		uint64_t off = iova - m->iova;
		size_t n = m->len - off < len ? (size_t)(m->len - off) : len;

		if (write)
			memcpy(m->host + off, buf, n);
		else
			memcpy(buf, m->host + off, n);
		buf += n;
		iova += n;
		len -= n;
	}
}

int hostmem_dma_read(struct hostmem *hm, uint64_t iova, void *buf, size_t len)
{
	if (!len)
		return 0;
	if (hm_check(hm, iova, len, HOSTMEM_READ)) {
		hm_fault(hm, iova, len, 0);
		return -EFAULT;
	}
	hm_copy(hm, iova, buf, len, 0);
	hm->rd_bytes += len;
	return 0;
}

int hostmem_dma_write(struct hostmem *hm, uint64_t iova, const void *buf, size_t len)
{
	if (!len)
		return 0;
	if (hm_check(hm, iova, len, HOSTMEM_WRITE)) {
		hm_fault(hm, iova, len, 1);
		return -EFAULT;
	}
	hm_copy(hm, iova, (uint8_t *)(uintptr_t)buf, len, 1);
	hm->wr_bytes += len;
	return 0;
}

uint64_t hostmem_fault_count(const struct hostmem *hm)
{
	return hm->nfaults;
}

const struct hostmem_fault *hostmem_fault(const struct hostmem *hm, unsigned int i)
{
	if (i >= HOSTMEM_FAULT_LOG || i >= hm->nfaults)
		return NULL;
	return &hm->log[(hm->log_head + HOSTMEM_FAULT_LOG - 1 - i) % HOSTMEM_FAULT_LOG];
}

uint64_t hostmem_bytes_read(const struct hostmem *hm)
{
	return hm->rd_bytes;
}

uint64_t hostmem_bytes_written(const struct hostmem *hm)
{
	return hm->wr_bytes;
}
