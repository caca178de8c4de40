// SPDX-License-Identifier: MIT
/*
 * Addresses of the connection manager: sockaddrs, ports, path records and
 * rdma_getaddrinfo/rdma_freeaddrinfo.
 *
 * hcasim HCAs have IPv4 addresses (GID index 1, ::ffff:a.b.c.d); an
 * AF_INET6 address is accepted when it is the wildcard :: or IPv4-mapped.
 * Ports are per port space and per process (each `hcasim run` process has
 * its own HCAs), as the kernel keeps them per network namespace: a bound
 * port is unique among the ids whose addresses overlap, and port 0 takes a
 * free one from the ephemeral range.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"

#define PORT_EPHEMERAL_FIRST 32768
#define PORT_EPHEMERAL_COUNT 28232	/* to 60999, Linux's default range */

int cm_sockaddr_ipv4(const struct sockaddr *sa, uint32_t *ip, uint16_t *port)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)sa;

		*ip = ntohl(s->sin_addr.s_addr);
		*port = ntohs(s->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)sa;
		const uint8_t *a = s->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_UNSPECIFIED(&s->sin6_addr))
			*ip = 0;
		else if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr))
			*ip = (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 | (uint32_t)a[14] << 8 | a[15];
		else
			return EAFNOSUPPORT;	/* RoCEv2 over IPv6 is not emitted by the engine */
		*port = ntohs(s->sin6_port);
		return 0;
	}
	return EAFNOSUPPORT;
}

static int port_taken(const struct cm_id *self, enum rdma_port_space ps, uint32_t ip, uint16_t port)
{
	for (const struct cm_id *c = cm_ids; c; c = c->next)
		if (c != self && (c->flags & CM_F_BOUND) && !(c->flags & CM_F_CHILD) && c->id.ps == ps &&
		    c->lport == port && (!ip || !c->lip || c->lip == ip))
			return 1;
	return 0;
}

int cm_bind(struct cm_id *c, uint32_t ip, uint16_t port)
{
	static unsigned int next;
	struct cm_dev *d = NULL;

	if (ip) {
		d = cm_dev_by_ip(ip);
		if (!d)
			return EADDRNOTAVAIL;
	}
	if (!port) {
		unsigned int i;

		if (!next)
			next = (unsigned int)rand();
		for (i = 0; i < PORT_EPHEMERAL_COUNT; i++) {
			port = (uint16_t)(PORT_EPHEMERAL_FIRST + next++ % PORT_EPHEMERAL_COUNT);
			if (!port_taken(c, c->id.ps, ip, port))
				break;
		}
		if (i == PORT_EPHEMERAL_COUNT)
			return EADDRINUSE;
	} else if (port_taken(c, c->id.ps, ip, port)) {
		return EADDRINUSE;
	}
	c->lip = ip;
	c->lport = port;
	c->flags |= CM_F_BOUND;
	if (d)
		cm_bind_dev(c, d);
	cm_set_addrs(c);
	return 0;
}

/* The path record of a RoCE route (what rdma_resolve_route makes available in id->route). */
void cm_fill_path(struct cm_id *c)
{
	struct ibv_sa_path_rec *p = &c->path;

	memset(p, 0, sizeof(*p));
	if (c->dev)
		memcpy(p->sgid.raw, c->dev->gid, 16);
	memcpy(p->dgid.raw, c->rgid, 16);
	p->hop_limit = CM_HOP_LIMIT;
	p->traffic_class = c->tos;
	p->reversible = 1;
	p->numb_path = 1;
	p->pkey = htons(0xffff);
	p->mtu_selector = 2;	/* exactly */
	p->mtu = c->dev ? (uint8_t)c->dev->mtu : IBV_MTU_1024;
	p->rate_selector = 2;
	p->rate = 3;		/* 10 Gb/s */
	p->packet_life_time_selector = 2;
	p->packet_life_time = CM_QP_TIMEOUT - 1;
	c->id.route.path_rec = p;
	c->id.route.num_paths = 1;
}

/* ---- rdma_getaddrinfo ----------------------------------------------------------------------- */

static struct sockaddr *sa_dup(const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr *n = malloc(len);

	if (n)
		memcpy(n, sa, len);
	return n;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res) {
		struct rdma_addrinfo *next = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = next;
	}
}

/*
 * node/service through the system resolver (IPv4), then the RDMA view:
 * passive (RAI_PASSIVE) gives the source address, active the destination
 * (and the hints' source, if any); the port space and QP type follow each
 * other (TCP <-> RC, UDP <-> UD) when the hints leave them open.  Errors are
 * getaddrinfo's EAI_* codes, as librdmacm returns them.
 */
int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	struct addrinfo h, *ai;
	struct rdma_addrinfo *r;
	int passive = hints && (hints->ai_flags & RAI_PASSIVE);
	int ret;

	if (!res || (!node && !service))
		return EAI_NONAME;
	if (hints && hints->ai_family && hints->ai_family != AF_INET && hints->ai_family != AF_UNSPEC)
		return EAI_FAMILY;
	memset(&h, 0, sizeof(h));
	h.ai_family = AF_INET;
	h.ai_socktype = SOCK_STREAM;
	h.ai_flags = (passive ? AI_PASSIVE : 0) | (hints && (hints->ai_flags & RAI_NUMERICHOST) ? AI_NUMERICHOST : 0);
	ret = getaddrinfo(node, service, &h, &ai);
	if (ret)
		return ret;
	r = calloc(1, sizeof(*r));
	if (!r) {
		freeaddrinfo(ai);
		return EAI_MEMORY;
	}
	r->ai_flags = hints ? hints->ai_flags : 0;
	r->ai_family = AF_INET;
	r->ai_port_space = hints && hints->ai_port_space ? hints->ai_port_space
			   : hints && hints->ai_qp_type == IBV_QPT_UD ? RDMA_PS_UDP
								     : RDMA_PS_TCP;
	r->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type
			: r->ai_port_space == RDMA_PS_UDP || r->ai_port_space == RDMA_PS_IPOIB ? IBV_QPT_UD
												 : IBV_QPT_RC;
	if (passive) {
		r->ai_src_addr = sa_dup(ai->ai_addr, ai->ai_addrlen);
		r->ai_src_len = ai->ai_addrlen;
	} else {
		r->ai_dst_addr = sa_dup(ai->ai_addr, ai->ai_addrlen);
		r->ai_dst_len = ai->ai_addrlen;
		if (hints && hints->ai_src_addr && hints->ai_src_len) {
			r->ai_src_addr = sa_dup(hints->ai_src_addr, hints->ai_src_len);
			r->ai_src_len = hints->ai_src_len;
		}
	}
	freeaddrinfo(ai);
	if ((passive && !r->ai_src_addr) || (!passive && !r->ai_dst_addr) ||
	    (r->ai_src_len && !r->ai_src_addr)) {
		rdma_freeaddrinfo(r);
		return EAI_MEMORY;
	}
	*res = r;
	return 0;
}
