// SPDX-License-Identifier: MIT
/*
 * pcap writer (nanosecond, little-endian, Ethernet) and pcap/pcapng reader.
 * File formats: https://www.tcpdump.org/manpages/pcap-savefile.5.html and
 * the pcapng specification (draft-ietf-opsawg-pcapng).
 */
#include "pcap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hcasim/hca_spec.h"

#define NS_PER_S 1000000000ull

uint64_t pcap_cycles_to_ns(uint64_t c)
{
	return c / HCA_CLK_HZ * NS_PER_S + c % HCA_CLK_HZ * NS_PER_S / HCA_CLK_HZ;
}

uint64_t pcap_ns_to_cycles(uint64_t ns)
{
	return ns / NS_PER_S * HCA_CLK_HZ + ns % NS_PER_S * HCA_CLK_HZ / NS_PER_S;
}

/* ------------------------------------------------------------- writer */

struct pcap_writer {
	FILE *f;
	uint32_t snaplen;
	uint64_t count;
	int err;
};

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

struct pcap_writer *pcap_writer_open(const char *path, uint32_t snaplen)
{
	struct pcap_writer *w;
	uint8_t h[24];

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->snaplen = snaplen ? snaplen : PCAP_SNAPLEN_DEFAULT;
	w->f = fopen(path, "wb");
	if (!w->f) {
		int e = errno;

		free(w);
		errno = e;
		return NULL;
	}
	le32(h, PCAP_MAGIC_NSEC);
	le16(h + 4, 2);		/* version 2.4 */
	le16(h + 6, 4);
	le32(h + 8, 0);		/* thiszone */
	le32(h + 12, 0);	/* sigfigs */
	le32(h + 16, w->snaplen);
	le32(h + 20, PCAP_LINKTYPE_ETHERNET);
	if (fwrite(h, sizeof(h), 1, w->f) != 1) {
		int e = errno ? errno : EIO;

		fclose(w->f);
		free(w);
		errno = e;
		return NULL;
	}
	return w;
}

int pcap_write_ns(struct pcap_writer *w, uint64_t ns, const void *frame, size_t len)
{
	uint8_t h[16];
	uint32_t incl;

	if (!w || (!frame && len) || len > UINT32_MAX)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (ns / NS_PER_S > UINT32_MAX)
		return -ERANGE;
	incl = len > w->snaplen ? w->snaplen : (uint32_t)len;
	le32(h, (uint32_t)(ns / NS_PER_S));
	le32(h + 4, (uint32_t)(ns % NS_PER_S));
	le32(h + 8, incl);
	le32(h + 12, (uint32_t)len);
	if (fwrite(h, sizeof(h), 1, w->f) != 1 || (incl && fwrite(frame, incl, 1, w->f) != 1)) {
		w->err = -(errno ? errno : EIO);
		return w->err;
	}
	w->count++;
	return 0;
}

int pcap_write(struct pcap_writer *w, uint64_t cycle, const void *frame, size_t len)
{
	return pcap_write_ns(w, pcap_cycles_to_ns(cycle), frame, len);
}

uint64_t pcap_writer_count(const struct pcap_writer *w)
{
	return w ? w->count : 0;
}

int pcap_writer_close(struct pcap_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = w->err;
	if (fclose(w->f) != 0 && !err)
		err = -(errno ? errno : EIO);
	free(w);
	return err;
}

/* ------------------------------------------------------------- reader */

#define PCAPNG_SHB 0x0a0d0d0au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_SPB 0x00000003u
#define PCAPNG_EPB 0x00000006u
#define PCAPNG_BOM 0x1a2b3c4du
#define PCAPNG_MAX_IF 64
#define PCAPNG_MAX_BLOCK (PCAP_MAX_FRAME + 4096)

struct pcapng_if {
	uint16_t linktype;
	uint32_t snaplen;
	uint64_t ts_div;	/* timestamp units per second (power of 10 or 2) */
	bool ts_pow2;
	uint8_t ts_exp;
};

struct pcap_reader {
	FILE *f;
	bool ng;
	bool swap;		/* file byte order differs from little-endian reading */
	bool nsec;		/* classic pcap: nanosecond timestamps */
	uint32_t snaplen;
	uint32_t linktype;
	struct pcapng_if ifs[PCAPNG_MAX_IF];
	unsigned int nifs;
	uint8_t *buf;
	size_t cap;
	int err;
	char msg[160];
};

static _Thread_local char open_msg[160];

static void set_err(struct pcap_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r ? r->msg : open_msg, sizeof(open_msg), fmt, ap);
	va_end(ap);
	if (r)
		r->err = err;
}

static uint32_t rd32(const struct pcap_reader *r, const uint8_t *p)
{
	if (r->swap)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint16_t rd16(const struct pcap_reader *r, const uint8_t *p)
{
	return r->swap ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

/* Read exactly n bytes: 1, 0 at a clean end of file (nothing read), -EINVAL if cut short. */
static int rd_exact(struct pcap_reader *r, void *p, size_t n, const char *what)
{
	size_t got = fread(p, 1, n, r->f);

	if (got == n)
		return 1;
	if (ferror(r->f)) {
		set_err(r, -EIO, "read error in %s", what);
		return -EIO;
	}
	if (got == 0)
		return 0;
	set_err(r, -EINVAL, "file truncated inside %s", what);
	return -EINVAL;
}

static int grow(struct pcap_reader *r, size_t n)
{
	uint8_t *b;

	if (n <= r->cap)
		return 0;
	b = realloc(r->buf, n);
	if (!b) {
		set_err(r, -ENOMEM, "out of memory");
		return -ENOMEM;
	}
	r->buf = b;
	r->cap = n;
	return 0;
}

static bool linktype_ok(uint32_t lt)
{
	return lt == PCAP_LINKTYPE_ETHERNET;
}

/* pcapng: parse a Section Header Block whose first 8 bytes are in h. */
static int ng_shb(struct pcap_reader *r, const uint8_t *h)
{
	uint8_t b[4];
	uint32_t len;
	int rc = rd_exact(r, b, 4, "pcapng section header");

	if (rc <= 0)
		return rc ? rc : (set_err(r, -EINVAL, "file truncated inside pcapng section header"), -EINVAL);
	if (b[0] == 0x4d && b[1] == 0x3c && b[2] == 0x2b && b[3] == 0x1a)
		r->swap = false;
	else if (b[0] == 0x1a && b[1] == 0x2b && b[2] == 0x3c && b[3] == 0x4d)
		r->swap = true;
	else {
		set_err(r, -EINVAL, "pcapng: bad byte-order magic");
		return -EINVAL;
	}
	len = rd32(r, h + 4);
	if (len < 28 || len % 4 || len > PCAPNG_MAX_BLOCK) {
		set_err(r, -EINVAL, "pcapng: bad section header length %u", len);
		return -EINVAL;
	}
	r->nifs = 0;	/* interfaces are per section */
	if (grow(r, len))
		return -ENOMEM;
	rc = rd_exact(r, r->buf, len - 12, "pcapng section header");
	if (rc <= 0)
		return rc ? rc : (set_err(r, -EINVAL, "file truncated inside pcapng section header"), -EINVAL);
	if (rd32(r, r->buf + len - 16) != len) {
		set_err(r, -EINVAL, "pcapng: section header trailing length mismatch");
		return -EINVAL;
	}
	return 1;
}

static int ng_idb(struct pcap_reader *r, const uint8_t *body, uint32_t blen)
{
	struct pcapng_if *i;
	uint32_t off = 8;

	if (blen < 8) {
		set_err(r, -EINVAL, "pcapng: short interface description");
		return -EINVAL;
	}
	if (r->nifs >= PCAPNG_MAX_IF) {
		set_err(r, -EINVAL, "pcapng: more than %d interfaces", PCAPNG_MAX_IF);
		return -EINVAL;
	}
	i = &r->ifs[r->nifs++];
	i->linktype = rd16(r, body);
	i->snaplen = rd32(r, body + 4);
	i->ts_div = 1000000;
	i->ts_pow2 = false;
	i->ts_exp = 6;
	/* Options: code(2) length(2) value, padded to 4. */
	while (off + 4 <= blen) {
		uint16_t code = rd16(r, body + off), olen = rd16(r, body + off + 2);

		if (code == 0)
			break;
		if (off + 4 + olen > blen) {
			set_err(r, -EINVAL, "pcapng: interface option overruns its block");
			return -EINVAL;
		}
		if (code == 9 && olen >= 1) {	/* if_tsresol */
			uint8_t v = body[off + 4];

			i->ts_pow2 = v & 0x80;
			i->ts_exp = v & 0x7f;
			if ((i->ts_pow2 && i->ts_exp > 63) || (!i->ts_pow2 && i->ts_exp > 19)) {
				set_err(r, -EINVAL, "pcapng: unsupported if_tsresol 0x%02x", v);
				return -EINVAL;
			}
			i->ts_div = 1;
			for (unsigned int k = 0; k < i->ts_exp; k++)
				i->ts_div *= i->ts_pow2 ? 2 : 10;
		}
		off += 4 + ((olen + 3u) & ~3u);
	}
	return 1;
}

static uint64_t ng_ns(const struct pcapng_if *i, uint64_t ts)
{
	if (i->ts_div == NS_PER_S)
		return ts;
	/* ts / div seconds: split to avoid overflow. */
	return ts / i->ts_div * NS_PER_S +
	       (uint64_t)((unsigned __int128)(ts % i->ts_div) * NS_PER_S / i->ts_div);
}

static int ng_read(struct pcap_reader *r, struct pcap_frame *fr)
{
	for (;;) {
		uint8_t h[8];
		uint32_t type, len, blen;
		const uint8_t *body;
		int rc = rd_exact(r, h, 8, "pcapng block header");

		if (rc <= 0)
			return rc;
		type = rd32(r, h);
		if (type == PCAPNG_SHB) {
			rc = ng_shb(r, h);
			if (rc < 0)
				return rc;
			continue;
		}
		len = rd32(r, h + 4);
		if (len < 12 || len % 4 || len > PCAPNG_MAX_BLOCK) {
			set_err(r, -EINVAL, "pcapng: bad block length %u (type 0x%x)", len, type);
			return -EINVAL;
		}
		if (grow(r, len))
			return -ENOMEM;
		rc = rd_exact(r, r->buf, len - 8, "pcapng block");
		if (rc <= 0)
			return rc ? rc : (set_err(r, -EINVAL, "file truncated inside a pcapng block"), -EINVAL);
		if (rd32(r, r->buf + len - 12) != len) {
			set_err(r, -EINVAL, "pcapng: trailing block length mismatch (type 0x%x)", type);
			return -EINVAL;
		}
		body = r->buf;
		blen = len - 12;
		if (type == PCAPNG_IDB) {
			rc = ng_idb(r, body, blen);
			if (rc < 0)
				return rc;
		} else if (type == PCAPNG_EPB || type == PCAPNG_SPB) {
			uint32_t ifid = 0, caplen, origlen, hl = type == PCAPNG_EPB ? 20 : 4;
			const struct pcapng_if *i;

			if (blen < hl) {
				set_err(r, -EINVAL, "pcapng: short packet block");
				return -EINVAL;
			}
			if (type == PCAPNG_EPB) {
				ifid = rd32(r, body);
				caplen = rd32(r, body + 12);
				origlen = rd32(r, body + 16);
			} else {
				origlen = rd32(r, body);
				caplen = blen - hl;
			}
			if (ifid >= r->nifs) {
				set_err(r, -EINVAL, "pcapng: packet for undeclared interface %u", ifid);
				return -EINVAL;
			}
			i = &r->ifs[ifid];
			if (type == PCAPNG_SPB) {
				if (i->snaplen && caplen > i->snaplen)
					caplen = i->snaplen;
				if (caplen > origlen)
					caplen = origlen;
			}
			if (caplen > blen - hl || caplen > PCAP_MAX_FRAME) {
				set_err(r, -EINVAL, "pcapng: captured length %u overruns its block", caplen);
				return -EINVAL;
			}
			if (!linktype_ok(i->linktype)) {
				set_err(r, -EINVAL, "pcapng: link type %u is not Ethernet", i->linktype);
				return -EINVAL;
			}
			fr->ns = type == PCAPNG_EPB
				 ? ng_ns(i, (uint64_t)rd32(r, body + 4) << 32 | rd32(r, body + 8))
				 : 0;
			fr->data = body + hl;
			fr->len = caplen;
			fr->orig_len = origlen < caplen ? caplen : origlen;
			return 1;
		}
		/* Other blocks (statistics, name resolution, custom): skipped. */
	}
}

static int classic_read(struct pcap_reader *r, struct pcap_frame *fr)
{
	uint8_t h[16];
	uint32_t sec, frac, incl, orig;
	int rc = rd_exact(r, h, 16, "pcap record header");

	if (rc <= 0)
		return rc;
	sec = rd32(r, h);
	frac = rd32(r, h + 4);
	incl = rd32(r, h + 8);
	orig = rd32(r, h + 12);
	if (incl > PCAP_MAX_FRAME) {
		set_err(r, -EINVAL, "pcap record of %u bytes (corrupt file?)", incl);
		return -EINVAL;
	}
	if (frac >= (r->nsec ? NS_PER_S : 1000000)) {
		set_err(r, -EINVAL, "pcap record timestamp fraction %u out of range", frac);
		return -EINVAL;
	}
	if (grow(r, incl ? incl : 1))
		return -ENOMEM;
	if (incl) {
		rc = rd_exact(r, r->buf, incl, "pcap record");
		if (rc <= 0)
			return rc ? rc : (set_err(r, -EINVAL, "file truncated inside a pcap record"), -EINVAL);
	}
	fr->ns = (uint64_t)sec * NS_PER_S + (r->nsec ? frac : (uint64_t)frac * 1000);
	fr->data = r->buf;
	fr->len = incl;
	fr->orig_len = orig < incl ? incl : orig;
	return 1;
}

struct pcap_reader *pcap_reader_open(const char *path)
{
	struct pcap_reader *r;
	uint8_t h[24];
	uint32_t magic;
	int rc;

	if (!path) {
		set_err(NULL, -EINVAL, "no file name");
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->f = fopen(path, "rb");
	if (!r->f) {
		int e = errno;

		set_err(NULL, -e, "%s: %s", path, strerror(e));
		free(r);
		errno = e;
		return NULL;
	}
	rc = rd_exact(r, h, 8, "file header");
	if (rc <= 0)
		goto bad_header;
	magic = (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24;
	if (magic == PCAPNG_SHB) {
		r->ng = true;
		if (ng_shb(r, h) <= 0)
			goto bad_header;
		return r;
	}
	if (rd_exact(r, h + 8, 16, "file header") <= 0)
		goto bad_header;
	if (magic == PCAP_MAGIC_NSEC || magic == PCAP_MAGIC_USEC) {
		r->swap = false;
	} else if (magic == __builtin_bswap32(PCAP_MAGIC_NSEC) || magic == __builtin_bswap32(PCAP_MAGIC_USEC)) {
		r->swap = true;
		magic = __builtin_bswap32(magic);
	} else {
		set_err(r, -EINVAL, "%s: not a pcap or pcapng file (magic 0x%08x)", path, magic);
		goto bad_header;
	}
	r->nsec = magic == PCAP_MAGIC_NSEC;
	r->snaplen = rd32(r, h + 16);
	r->linktype = rd32(r, h + 20) & 0x0fffffff;	/* upper bits: FCS length flags */
	if (rd16(r, h + 4) != 2) {
		set_err(r, -EINVAL, "%s: pcap major version %u", path, rd16(r, h + 4));
		goto bad_header;
	}
	if (!linktype_ok(r->linktype)) {
		set_err(r, -EINVAL, "%s: link type %u is not Ethernet", path, r->linktype);
		goto bad_header;
	}
	return r;

bad_header:
	if (!r->err)
		set_err(r, -EINVAL, "%s: truncated file header", path);
	memcpy(open_msg, r->msg, sizeof(open_msg));
	fclose(r->f);
	free(r->buf);
	free(r);
	errno = EINVAL;
	return NULL;
}

int pcap_read(struct pcap_reader *r, struct pcap_frame *f)
{
	int rc;

	if (!r || !f)
		return -EINVAL;
	if (r->err)
		return r->err;
	rc = r->ng ? ng_read(r, f) : classic_read(r, f);
	if (rc < 0 && !r->err)
		r->err = rc;
	return rc;
}

const char *pcap_reader_error(const struct pcap_reader *r)
{
	return r ? (r->err ? r->msg : "no error") : open_msg;
}

void pcap_reader_close(struct pcap_reader *r)
{
	if (!r)
		return;
	fclose(r->f);
	free(r->buf);
	free(r);
}
