// SPDX-License-Identifier: MIT
/*
 * BTH opcode table (IB spec vol. 1, table 38 "OpCode field", and the header
 * layouts of section 9.4 / annex A17).  Encoder and decoder share it: the
 * extension headers an opcode carries, in wire order, are
 *
 *   BTH [DETH] [RETH] [AtomicETH] [AETH] [AtomicAckETH] [ImmDt] payload pad ICRC
 *
 * Opcodes of single-packet operations (READ request, atomics, ACK, atomic
 * ACK, UD sends) are marked ONLY, so ROCE_OP_START/ROCE_OP_END hold for them
 * as RXE_START_MASK/RXE_END_MASK do in Linux rxe.
 */
#include "roce_hdr.h"

#include "hcasim/hca_spec.h"

#define EXT_LEN(h)                                                        \
	((((h) & ROCE_DETH) ? HCA_WIRE_DETH_LEN : 0) +                   \
	 (((h) & ROCE_RETH) ? HCA_WIRE_RETH_LEN : 0) +                   \
	 (((h) & ROCE_ATMETH) ? HCA_WIRE_ATOMICETH_LEN : 0) +            \
	 (((h) & ROCE_AETH) ? HCA_WIRE_AETH_LEN : 0) +                   \
	 (((h) & ROCE_ATMACK) ? HCA_WIRE_ATOMICACKETH_LEN : 0) +         \
	 (((h) & ROCE_IMMDT) ? HCA_WIRE_IMMDT_LEN : 0))

#define OP(code, fl, hd) \
	[HCA_BTH_OP_##code] = { .name = #code, .flags = (fl), .hdrs = (hd), .ext_len = EXT_LEN(hd) }

/* Shorthands. */
#define REQ ROCE_OP_REQ
#define RESP ROCE_OP_RESP
#define SEND ROCE_OP_SEND
#define WRITE ROCE_OP_WRITE
#define READ ROCE_OP_READ
#define ATOMIC ROCE_OP_ATOMIC
#define FIRST ROCE_OP_FIRST
#define MIDDLE ROCE_OP_MIDDLE
#define LAST ROCE_OP_LAST
#define ONLY ROCE_OP_ONLY
#define IMM ROCE_OP_IMM
#define PAY ROCE_PAYLOAD

/* The SEND and RDMA WRITE families are identical for RC and UC. */
#define SEND_WRITE_OPS(T, TF)                                                                   \
	OP(T##_SEND_FIRST, TF | REQ | SEND | FIRST, PAY),                                       \
	OP(T##_SEND_MIDDLE, TF | REQ | SEND | MIDDLE, PAY),                                     \
	OP(T##_SEND_LAST, TF | REQ | SEND | LAST, PAY),                                         \
	OP(T##_SEND_LAST_WITH_IMMEDIATE, TF | REQ | SEND | LAST | IMM, ROCE_IMMDT | PAY),       \
	OP(T##_SEND_ONLY, TF | REQ | SEND | ONLY, PAY),                                         \
	OP(T##_SEND_ONLY_WITH_IMMEDIATE, TF | REQ | SEND | ONLY | IMM, ROCE_IMMDT | PAY),       \
	OP(T##_RDMA_WRITE_FIRST, TF | REQ | WRITE | FIRST, ROCE_RETH | PAY),                    \
	OP(T##_RDMA_WRITE_MIDDLE, TF | REQ | WRITE | MIDDLE, PAY),                              \
	OP(T##_RDMA_WRITE_LAST, TF | REQ | WRITE | LAST, PAY),                                  \
	OP(T##_RDMA_WRITE_LAST_WITH_IMMEDIATE, TF | REQ | WRITE | LAST | IMM, ROCE_IMMDT | PAY), \
	OP(T##_RDMA_WRITE_ONLY, TF | REQ | WRITE | ONLY, ROCE_RETH | PAY),                      \
	OP(T##_RDMA_WRITE_ONLY_WITH_IMMEDIATE, TF | REQ | WRITE | ONLY | IMM,                   \
	   ROCE_RETH | ROCE_IMMDT | PAY)

static const struct roce_opcode_info roce_opcodes[256] = {
	SEND_WRITE_OPS(RC, ROCE_OP_RC),
	OP(RC_RDMA_READ_REQUEST, ROCE_OP_RC | REQ | READ | ONLY, ROCE_RETH),
	OP(RC_RDMA_READ_RESPONSE_FIRST, ROCE_OP_RC | RESP | READ | FIRST, ROCE_AETH | PAY),
	OP(RC_RDMA_READ_RESPONSE_MIDDLE, ROCE_OP_RC | RESP | READ | MIDDLE, PAY),
	OP(RC_RDMA_READ_RESPONSE_LAST, ROCE_OP_RC | RESP | READ | LAST, ROCE_AETH | PAY),
	OP(RC_RDMA_READ_RESPONSE_ONLY, ROCE_OP_RC | RESP | READ | ONLY, ROCE_AETH | PAY),
	OP(RC_ACKNOWLEDGE, ROCE_OP_RC | RESP | ROCE_OP_ACK | ONLY, ROCE_AETH),
	OP(RC_ATOMIC_ACKNOWLEDGE, ROCE_OP_RC | RESP | ATOMIC | ONLY, ROCE_AETH | ROCE_ATMACK),
	OP(RC_COMPARE_SWAP, ROCE_OP_RC | REQ | ATOMIC | ONLY, ROCE_ATMETH),
	OP(RC_FETCH_ADD, ROCE_OP_RC | REQ | ATOMIC | ONLY, ROCE_ATMETH),
	SEND_WRITE_OPS(UC, ROCE_OP_UC),
	OP(UD_SEND_ONLY, ROCE_OP_UD | REQ | SEND | ONLY, ROCE_DETH | PAY),
	OP(UD_SEND_ONLY_WITH_IMMEDIATE, ROCE_OP_UD | REQ | SEND | ONLY | IMM,
	   ROCE_DETH | ROCE_IMMDT | PAY),
};

const struct roce_opcode_info *roce_opcode(uint8_t opcode)
{
	const struct roce_opcode_info *info = &roce_opcodes[opcode];

	return info->name ? info : NULL;
}
