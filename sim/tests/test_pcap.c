// SPDX-License-Identifier: MIT
/*
 * pcap writer/reader tests.  File layouts are checked byte by byte against
 * the pcap-savefile(5) and pcapng specifications (hand-built files here);
 * tests/oracle checks the writer's output with tshark and scapy, and the
 * reader with editcap-converted pcapng files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pcap.h"

static char tmpl[256];

static const char *tmpfile_path(void)
{
	const char *d = getenv("TMPDIR");
	int fd;

	snprintf(tmpl, sizeof(tmpl), "%s/hcasim-pcap-XXXXXX", d && *d ? d : "/tmp");
	fd = mkstemp(tmpl);
	if (fd >= 0)
		close(fd);
	return tmpl;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static size_t read_file(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, cap, f);
		fclose(f);
	}
	return n;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_time(void)
{
	CHECK_EQ(pcap_cycles_to_ns(1), 4, "1 cycle = 4 ns");
	CHECK_EQ(pcap_cycles_to_ns(250000000ull), 1000000000ull, "250M cycles = 1 s");
	CHECK_EQ(pcap_cycles_to_ns(250000001ull), 1000000004ull, "1 s + 1 cycle");
	CHECK_EQ(pcap_cycles_to_ns(4000000000000000000ull), 16000000000000000000ull, "no overflow");
	CHECK_EQ(pcap_ns_to_cycles(4), 1, "4 ns = 1 cycle");
	CHECK_EQ(pcap_ns_to_cycles(7), 1, "7 ns rounds down");
	CHECK_EQ(pcap_ns_to_cycles(3000000000ull), 750000000ull, "3 s");
	CHECK_EQ(pcap_ns_to_cycles(pcap_cycles_to_ns(123456789012345ull)), 123456789012345ull,
		 "round trip");
}

static void test_write_read(void)
{
	const char *path = tmpfile_path();
	static uint8_t frames[5][300];
	static const size_t lens[5] = { 60, 1, 0, 300, 100 };
	static const uint64_t cyc[5] = { 0, 1, 250000000ull, 250000001ull, 1ull << 40 };
	struct pcap_writer *w = pcap_writer_open(path, 200);
	struct pcap_reader *r;
	struct pcap_frame f;
	uint8_t raw[4096];
	size_t n;
	int rc, i;

	CHECK(w != NULL, "open writer: %s", strerror(errno));
	if (!w)
		return;
	for (i = 0; i < 5; i++) {
		for (size_t k = 0; k < sizeof(frames[i]); k++)
			frames[i][k] = (uint8_t)(i * 31 + k);
		CHECK_EQ(pcap_write(w, cyc[i], frames[i], lens[i]), 0, "write");
	}
	CHECK_EQ(pcap_writer_count(w), 5, "count");
	CHECK_EQ(pcap_write(w, 0, NULL, 5), -EINVAL, "NULL frame refused");
	CHECK_EQ(pcap_write_ns(w, (uint64_t)UINT32_MAX * 1000000000ull + 2000000000ull, frames[0], 4),
		 -ERANGE, "seconds beyond 32 bits refused");
	CHECK_EQ(pcap_writer_close(w), 0, "close");

	/* The bytes, per pcap-savefile(5). */
	n = read_file(path, raw, sizeof(raw));
	CHECK_EQ(n, 24 + 5 * 16 + 60 + 1 + 0 + 200 + 100, "file size (snaplen 200 truncates 300)");
	CHECK(raw[0] == 0x4d && raw[1] == 0x3c && raw[2] == 0xb2 && raw[3] == 0xa1,
	      "nanosecond magic, little-endian");
	CHECK(raw[4] == 2 && raw[5] == 0 && raw[6] == 4 && raw[7] == 0, "version 2.4");
	CHECK_EQ(le32(raw + 16), 200, "snaplen");
	CHECK_EQ(le32(raw + 20), 1, "LINKTYPE_ETHERNET");
	CHECK_EQ(le32(raw + 24), 0, "rec0 seconds");
	CHECK_EQ(le32(raw + 28), 0, "rec0 ns");
	CHECK_EQ(le32(raw + 32), 60, "rec0 incl_len");
	CHECK_EQ(le32(raw + 36), 60, "rec0 orig_len");
	CHECK_EQ(le32(raw + 24 + 16 + 60 + 4), 4, "rec1 ns = 4 (one cycle)");
	CHECK(!memcmp(raw + 40, frames[0], 60), "rec0 data");

	r = pcap_reader_open(path);
	CHECK(r != NULL, "open reader: %s", pcap_reader_error(NULL));
	if (!r)
		return;
	for (i = 0; i < 5; i++) {
		size_t want = lens[i] > 200 ? 200 : lens[i];

		rc = pcap_read(r, &f);
		CHECK_EQ(rc, 1, "read frame");
		if (rc != 1)
			break;
		CHECK_EQ(f.ns, pcap_cycles_to_ns(cyc[i]), "timestamp");
		CHECK_EQ(f.len, want, "captured length");
		CHECK_EQ(f.orig_len, lens[i], "original length");
		CHECK(!want || !memcmp(f.data, frames[i], want), "frame %d bytes", i);
	}
	CHECK_EQ(pcap_read(r, &f), 0, "end of file");
	CHECK_EQ(pcap_read(r, &f), 0, "still end of file");
	pcap_reader_close(r);
	unlink(path);

	CHECK(pcap_writer_open("/nonexistent-dir/x.pcap", 0) == NULL && errno == ENOENT,
	      "writer open error");
	CHECK(pcap_reader_open("/nonexistent-dir/x.pcap") == NULL && errno == ENOENT, "reader open error");
	CHECK(strstr(pcap_reader_error(NULL), "x.pcap") != NULL, "open error message names the file");
	CHECK_EQ(pcap_writer_close(NULL), 0, "close NULL");
	pcap_reader_close(NULL);
}

/* Little helpers to hand-build files. */
struct buf {
	uint8_t b[4096];
	size_t n;
	int be;
};

static void p8(struct buf *b, uint8_t v)
{
	b->b[b->n++] = v;
}

static void p16(struct buf *b, uint16_t v)
{
	if (b->be) {
		p8(b, (uint8_t)(v >> 8));
		p8(b, (uint8_t)v);
	} else {
		p8(b, (uint8_t)v);
		p8(b, (uint8_t)(v >> 8));
	}
}

static void p32(struct buf *b, uint32_t v)
{
	if (b->be) {
		p16(b, (uint16_t)(v >> 16));
		p16(b, (uint16_t)v);
	} else {
		p16(b, (uint16_t)v);
		p16(b, (uint16_t)(v >> 16));
	}
}

static void pbytes(struct buf *b, const void *d, size_t n)
{
	memcpy(b->b + b->n, d, n);
	b->n += n;
}

/* Classic big-endian microsecond pcap (what a big-endian tcpdump writes). */
static void test_classic_be_usec(void)
{
	const char *path = tmpfile_path();
	struct buf b = { .be = 1 };
	struct pcap_reader *r;
	struct pcap_frame f;
	uint8_t fr[64];

	memset(fr, 0xab, sizeof(fr));
	p32(&b, PCAP_MAGIC_USEC);
	p16(&b, 2);
	p16(&b, 4);
	p32(&b, 0);
	p32(&b, 0);
	p32(&b, 65535);
	p32(&b, 1);
	p32(&b, 1700000000);	/* sec */
	p32(&b, 999999);	/* usec */
	p32(&b, 64);
	p32(&b, 64);
	pbytes(&b, fr, 64);
	write_file(path, b.b, b.n);
	r = pcap_reader_open(path);
	CHECK(r != NULL, "open BE usec: %s", pcap_reader_error(NULL));
	if (r) {
		CHECK_EQ(pcap_read(r, &f), 1, "BE usec frame");
		CHECK_EQ(f.ns, 1700000000ull * 1000000000ull + 999999000ull, "usec timestamp");
		CHECK(f.len == 64 && !memcmp(f.data, fr, 64), "BE usec data");
		CHECK_EQ(pcap_read(r, &f), 0, "BE usec EOF");
		pcap_reader_close(r);
	}
	/* Same file cut inside the record: an error, repeated. */
	write_file(path, b.b, b.n - 1);
	r = pcap_reader_open(path);
	if (r) {
		CHECK_EQ(pcap_read(r, &f), -EINVAL, "truncated record");
		CHECK_EQ(pcap_read(r, &f), -EINVAL, "error is sticky");
		CHECK(strstr(pcap_reader_error(r), "truncated") != NULL, "message: %s", pcap_reader_error(r));
		pcap_reader_close(r);
	}
	/* Cut inside the record header. */
	write_file(path, b.b, 24 + 7);
	r = pcap_reader_open(path);
	if (r) {
		CHECK_EQ(pcap_read(r, &f), -EINVAL, "truncated record header");
		pcap_reader_close(r);
	}
	/* usec fraction out of range. */
	b.b[24 + 4] = 0x7f;
	write_file(path, b.b, b.n);
	r = pcap_reader_open(path);
	if (r) {
		CHECK_EQ(pcap_read(r, &f), -EINVAL, "usec >= 10^6");
		pcap_reader_close(r);
	}
	/* Huge incl_len. */
	b.b[24 + 4] = 0;
	b.b[24 + 8] = 0x10;
	write_file(path, b.b, b.n);
	r = pcap_reader_open(path);
	if (r) {
		CHECK_EQ(pcap_read(r, &f), -EINVAL, "incl_len 256 MiB");
		pcap_reader_close(r);
	}
	/* Not Ethernet (LINKTYPE_RAW = 101), bad magic, short header. */
	b.b[23] = 101;
	write_file(path, b.b, b.n);
	CHECK(pcap_reader_open(path) == NULL, "linktype 101 refused");
	CHECK(strstr(pcap_reader_error(NULL), "link type") != NULL, "message: %s", pcap_reader_error(NULL));
	b.b[23] = 1;
	b.b[0] = 0;
	write_file(path, b.b, b.n);
	CHECK(pcap_reader_open(path) == NULL, "bad magic refused");
	write_file(path, b.b, 10);
	CHECK(pcap_reader_open(path) == NULL, "short header refused");
	write_file(path, b.b, 0);
	CHECK(pcap_reader_open(path) == NULL, "empty file refused");
	unlink(path);
}

static void ng_block_end(struct buf *b, size_t start)
{
	uint32_t len;

	while ((b->n - start) % 4)
		p8(b, 0);
	len = (uint32_t)(b->n - start + 4);
	/* Patch the length after the type word. */
	if (b->be) {
		b->b[start + 4] = (uint8_t)(len >> 24);
		b->b[start + 5] = (uint8_t)(len >> 16);
		b->b[start + 6] = (uint8_t)(len >> 8);
		b->b[start + 7] = (uint8_t)len;
	} else {
		b->b[start + 4] = (uint8_t)len;
		b->b[start + 5] = (uint8_t)(len >> 8);
		b->b[start + 6] = (uint8_t)(len >> 16);
		b->b[start + 7] = (uint8_t)(len >> 24);
	}
	p32(b, len);
}

static void ng_file(struct buf *b, int be)
{
	size_t s;
	uint8_t d[70];

	for (size_t i = 0; i < sizeof(d); i++)
		d[i] = (uint8_t)(i + 1);
	memset(b, 0, sizeof(*b));
	b->be = be;
	/* SHB with an option (shb_userappl). */
	s = b->n;
	p32(b, 0x0a0d0d0a);
	p32(b, 0);
	p32(b, 0x1a2b3c4d);
	p16(b, 1);
	p16(b, 0);
	p32(b, 0xffffffff);
	p32(b, 0xffffffff);
	p16(b, 4);
	p16(b, 5);
	pbytes(b, "hcasi", 5);
	while ((b->n - s) % 4)
		p8(b, 0);
	p16(b, 0);
	p16(b, 0);
	ng_block_end(b, s);
	/* IDB 0: Ethernet, if_tsresol 9 (ns). */
	s = b->n;
	p32(b, 1);
	p32(b, 0);
	p16(b, 1);
	p16(b, 0);
	p32(b, 0);
	p16(b, 9);
	p16(b, 1);
	p8(b, 9);
	p8(b, 0);
	p8(b, 0);
	p8(b, 0);
	p16(b, 0);
	p16(b, 0);
	ng_block_end(b, s);
	/* IDB 1: Ethernet, default resolution (us). */
	s = b->n;
	p32(b, 1);
	p32(b, 0);
	p16(b, 1);
	p16(b, 0);
	p32(b, 65535);
	ng_block_end(b, s);
	/* A name-resolution block: skipped. */
	s = b->n;
	p32(b, 4);
	p32(b, 0);
	p32(b, 0);
	ng_block_end(b, s);
	/* EPB on if 0: ts = 5 s + 123 ns, 61 bytes captured of 70. */
	s = b->n;
	p32(b, 6);
	p32(b, 0);
	p32(b, 0);
	p32(b, (uint32_t)((5000000123ull) >> 32));
	p32(b, (uint32_t)5000000123ull);
	p32(b, 61);
	p32(b, 70);
	pbytes(b, d, 61);
	ng_block_end(b, s);
	/* EPB on if 1: ts in us. */
	s = b->n;
	p32(b, 6);
	p32(b, 0);
	p32(b, 1);
	p32(b, 0);
	p32(b, 2500000);
	p32(b, 64);
	p32(b, 64);
	pbytes(b, d, 64);
	ng_block_end(b, s);
	/* SPB (interface 0). */
	s = b->n;
	p32(b, 3);
	p32(b, 0);
	p32(b, 62);
	pbytes(b, d, 62);
	ng_block_end(b, s);
}

static void test_pcapng(void)
{
	const char *path = tmpfile_path();
	struct buf b;
	struct pcap_frame f;
	struct pcap_reader *r;
	uint8_t d[70];

	for (size_t i = 0; i < sizeof(d); i++)
		d[i] = (uint8_t)(i + 1);
	for (int be = 0; be < 2; be++) {
		ng_file(&b, be);
		write_file(path, b.b, b.n);
		r = pcap_reader_open(path);
		CHECK(r != NULL, "open pcapng (be=%d): %s", be, pcap_reader_error(NULL));
		if (!r)
			continue;
		CHECK_EQ(pcap_read(r, &f), 1, "EPB 0");
		CHECK_EQ(f.ns, 5000000123ull, "EPB ns resolution");
		CHECK(f.len == 61 && f.orig_len == 70 && !memcmp(f.data, d, 61), "EPB 0 data");
		CHECK_EQ(pcap_read(r, &f), 1, "EPB 1");
		CHECK_EQ(f.ns, 2500000000ull, "EPB us resolution");
		CHECK(f.len == 64 && !memcmp(f.data, d, 64), "EPB 1 data");
		CHECK_EQ(pcap_read(r, &f), 1, "SPB");
		CHECK(f.len == 62 && f.orig_len == 62 && !memcmp(f.data, d, 62), "SPB data");
		CHECK_EQ(pcap_read(r, &f), 0, "pcapng EOF");
		pcap_reader_close(r);
	}
	/* Corruptions: every truncation, a bad trailing length, a bad interface id. */
	ng_file(&b, 0);
	{
		unsigned int errs = 0;

		for (size_t cut = 0; cut < b.n; cut++) {
			int rc = 1, frames = 0;

			write_file(path, b.b, cut);
			r = pcap_reader_open(path);
			if (!r) {
				errs++;
				continue;
			}
			while ((rc = pcap_read(r, &f)) == 1)
				frames++;
			errs += rc < 0 || frames < 3;
			pcap_reader_close(r);
		}
		CHECK_EQ(errs, b.n, "every truncated pcapng is short or an error");
	}
	{
		size_t epb0 = 0;
		uint8_t save;

		/* Find the first EPB (type 6) by walking blocks. */
		for (size_t o = 0; o + 8 <= b.n;) {
			if (le32(b.b + o) == 6) {
				epb0 = o;
				break;
			}
			o += le32(b.b + o + 4);
		}
		CHECK(epb0 > 0, "found EPB");
		save = b.b[epb0 + 8];
		b.b[epb0 + 8] = 7;	/* interface 7: undeclared */
		write_file(path, b.b, b.n);
		r = pcap_reader_open(path);
		if (r) {
			CHECK_EQ(pcap_read(r, &f), -EINVAL, "undeclared interface");
			pcap_reader_close(r);
		}
		b.b[epb0 + 8] = save;
		b.b[epb0 + 20] = 200;	/* caplen beyond the block */
		write_file(path, b.b, b.n);
		r = pcap_reader_open(path);
		if (r) {
			CHECK_EQ(pcap_read(r, &f), -EINVAL, "caplen overruns block");
			pcap_reader_close(r);
		}
		b.b[epb0 + 20] = 61;
		b.b[b.n - 1] ^= 1;	/* last block's trailing length */
		write_file(path, b.b, b.n);
		r = pcap_reader_open(path);
		if (r) {
			int rc;

			while ((rc = pcap_read(r, &f)) == 1)
				;
			CHECK_EQ(rc, -EINVAL, "trailing length mismatch");
			pcap_reader_close(r);
		}
	}
	unlink(path);
}

/* Random files: never crash (ASan watches), always end in 0 or an error. */
static void test_fuzz(void)
{
	const char *path = tmpfile_path();
	uint64_t s = 12345;
	struct buf b;
	unsigned int opened = 0;

	for (int it = 0; it < 3000; it++) {
		struct pcap_reader *r;
		struct pcap_frame f;
		size_t n;
		int rc, guard = 0;

		ng_file(&b, it & 1);
		if (it % 3 == 0) {
			/* classic header + random records */
			b.be = 0;
			b.n = 0;
			p32(&b, PCAP_MAGIC_NSEC);
			p16(&b, 2);
			p16(&b, 4);
			p32(&b, 0);
			p32(&b, 0);
			p32(&b, 65535);
			p32(&b, 1);
			while (b.n < 400)
				p8(&b, (uint8_t)((s = s * 6364136223846793005ull + 1442695040888963407ull) >> 56));
		}
		n = b.n;
		for (int k = 0; k < 1 + it % 5; k++) {
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			b.b[(s >> 33) % n] ^= (uint8_t)(s >> 20);
		}
		write_file(path, b.b, n);
		r = pcap_reader_open(path);
		if (!r)
			continue;
		opened++;
		while ((rc = pcap_read(r, &f)) == 1 && guard++ < 1000)
			CHECK(f.len <= PCAP_MAX_FRAME, "frame length bounded");
		pcap_reader_close(r);
	}
	CHECK(opened > 100, "fuzz reached the record readers (%u)", opened);
	unlink(path);
}

int main(void)
{
	test_time();
	test_write_read();
	test_classic_be_usec();
	test_pcapng();
	test_fuzz();
	return check_done();
}
