// SPDX-License-Identifier: MIT
/* Host memory / IOMMU: mapping rules, faults move no byte, fault log. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hostmem.h"

int main(void)
{
	struct hostmem *hm = hostmem_create();
	uint8_t a[64], b[64], buf[128];
	uint64_t iova1, iova2;

	memset(a, 0xAA, sizeof(a));
	memset(b, 0xBB, sizeof(b));
	CHECK_EQ(hostmem_map(hm, 0x1000, a, sizeof(a), HOSTMEM_RW), 0, "map a");
	CHECK_EQ(hostmem_map(hm, 0x1040, b, sizeof(b), HOSTMEM_READ), 0, "map b adjacent, read-only");
	CHECK_EQ(hostmem_map(hm, 0x1020, buf, 16, HOSTMEM_RW), -EINVAL, "overlap refused");
	CHECK_EQ(hostmem_map(hm, 0x3000, buf, 0, HOSTMEM_RW), -EINVAL, "zero length refused");
	CHECK_EQ(hostmem_map(hm, UINT64_MAX - 4, buf, 16, HOSTMEM_RW), -EINVAL, "wrap refused");
	CHECK_EQ(hostmem_map(hm, 0x3000, buf, 16, 4), -EINVAL, "unknown perm refused");

	/* A read spanning the two adjacent mappings works. */
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(hostmem_dma_read(hm, 0x1030, buf, 32), 0, "read across maps");
	CHECK(buf[0] == 0xAA && buf[15] == 0xAA && buf[16] == 0xBB && buf[31] == 0xBB, "spanning read bytes");

	/* Write into the read-only map: fault, and the RW part is untouched too. */
	memset(buf, 0x11, sizeof(buf));
	CHECK_EQ(hostmem_dma_write(hm, 0x1030, buf, 32), -EFAULT, "write into read-only part faults");
	CHECK(a[0x30] == 0xAA && a[0x3F] == 0xAA, "faulting write moved no byte");
	CHECK_EQ(hostmem_fault_count(hm), 1, "one fault logged");
	CHECK(hostmem_fault(hm, 0) && hostmem_fault(hm, 0)->iova == 0x1030 && hostmem_fault(hm, 0)->write == 1,
	      "fault log entry");

	/* Past the end of the last map: fault; exactly the end: fine. */
	CHECK_EQ(hostmem_dma_read(hm, 0x1040, buf, 64), 0, "read to the exact end");
	CHECK_EQ(hostmem_dma_read(hm, 0x1041, buf, 64), -EFAULT, "one byte past the end faults");
	CHECK_EQ(hostmem_dma_read(hm, 0x0FFF, buf, 2), -EFAULT, "one byte before the start faults");
	CHECK_EQ(hostmem_dma_write(hm, UINT64_MAX - 1, buf, 4), -EFAULT, "wrapping DMA faults");
	CHECK_EQ(hostmem_fault_count(hm), 4, "four faults logged");
	CHECK(hostmem_fault(hm, 0)->iova == UINT64_MAX - 1 && hostmem_fault(hm, 3)->iova == 0x1030,
	      "fault log order is most recent first");

	/* hostmem_alloc: zeroed, guard page between allocations. */
	uint8_t *p1 = hostmem_alloc(hm, 100, &iova1);
	uint8_t *p2 = hostmem_alloc(hm, 8192, &iova2);
	CHECK(p1 && p2, "alloc");
	CHECK(iova2 >= iova1 + 4096 + 4096, "guard page between allocations");
	CHECK(p1[0] == 0 && p1[99] == 0 && p2[8191] == 0, "alloc zeroed");
	CHECK_EQ(hostmem_dma_write(hm, iova1 + 96, "wxyz", 4), 0, "write at the end of alloc");
	CHECK(memcmp(p1 + 96, "wxyz", 4) == 0, "written bytes visible");
	CHECK_EQ(hostmem_dma_write(hm, iova1 + 97, "wxyz", 4), -EFAULT, "write past alloc length faults");
	CHECK(hostmem_ptr(hm, iova2 + 10, 10) == p2 + 10, "hostmem_ptr");
	CHECK(hostmem_ptr(hm, iova2 + 8190, 10) == NULL, "hostmem_ptr beyond mapping");

	/* Unmap: later accesses fault. */
	CHECK_EQ(hostmem_unmap(hm, 0x1000), 0, "unmap a");
	CHECK_EQ(hostmem_unmap(hm, 0x1000), -ENOENT, "unmap twice");
	CHECK_EQ(hostmem_dma_read(hm, 0x1000, buf, 1), -EFAULT, "read after unmap faults");
	CHECK(hostmem_bytes_read(hm) == 32 + 64 && hostmem_bytes_written(hm) == 4, "byte counters");

	hostmem_destroy(hm);
	return check_done();
}
