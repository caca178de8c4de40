/* SPDX-License-Identifier: MIT */
/*
 * Host memory behind an IOMMU, as one simulated device sees it.
 *
 * The holder of a device (test harness, driver shim) maps host buffers at
 * I/O virtual addresses; the device's DMA reaches host memory only through
 * hostmem_dma_read/hostmem_dma_write.  An access that touches any byte
 * outside a mapping, or writes a read-only mapping, is a fault: it is
 * recorded in the fault log and not performed -- no byte is transferred
 * (docs/programming.md section 3).
 */
#ifndef HCASIM_SIM_HOSTMEM_H
#define HCASIM_SIM_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	HOSTMEM_READ = 1,	/* device may read */
	HOSTMEM_WRITE = 2,	/* device may write */
	HOSTMEM_RW = 3,
};

struct hostmem_fault {
	uint64_t iova;
	uint64_t len;
	int write;		/* 1 = device write, 0 = device read */
	unsigned int perm;	/* permission of the mapping hit, 0 = unmapped */
};

struct hostmem;

struct hostmem *hostmem_create(void);
/* Frees the maps and every buffer hostmem_alloc() made; not mapped user buffers. */
void hostmem_destroy(struct hostmem *hm);

/*
 * Map host buffer [host, host+len) at [iova, iova+len).
 * 0, or -EINVAL (len 0, wrap-around, overlap with an existing mapping,
 * perm 0 or unknown bits), -ENOMEM.
 */
int hostmem_map(struct hostmem *hm, uint64_t iova, void *host, size_t len, unsigned int perm);
/* Remove exactly the mapping that starts at iova: 0 or -ENOENT. */
int hostmem_unmap(struct hostmem *hm, uint64_t iova);

/*
 * Test convenience: allocate `len` zeroed bytes (page-aligned) and map them
 * read-write at a fresh IOVA (above any earlier one, page-aligned, with an
 * unmapped guard page between allocations).  Returns the host pointer and
 * stores the IOVA; NULL on failure.
 */
void *hostmem_alloc(struct hostmem *hm, size_t len, uint64_t *iova);
/* Host pointer for [iova, iova+len) if wholly inside one mapping, else NULL. */
void *hostmem_ptr(struct hostmem *hm, uint64_t iova, size_t len);

/* Device accesses. 0, or -EFAULT (recorded, nothing transferred). */
int hostmem_dma_read(struct hostmem *hm, uint64_t iova, void *buf, size_t len);
int hostmem_dma_write(struct hostmem *hm, uint64_t iova, const void *buf, size_t len);

/* Fault log: total count since creation and the most recent faults. */
uint64_t hostmem_fault_count(const struct hostmem *hm);
/* i = 0 is the most recent; NULL beyond the retained log (HOSTMEM_FAULT_LOG). */
const struct hostmem_fault *hostmem_fault(const struct hostmem *hm, unsigned int i);
#define HOSTMEM_FAULT_LOG 64

/* Bytes moved by successful device accesses (for benchmarks). */
uint64_t hostmem_bytes_read(const struct hostmem *hm);
uint64_t hostmem_bytes_written(const struct hostmem *hm);

#ifdef __cplusplus
}
#endif

#endif /* HCASIM_SIM_HOSTMEM_H */
