`include "hca_defs.vh"

// BTH opcode decoder: one table for the header generator, the parser and the
// sequencer.  info[`OPI_VALID] is 0 for opcodes the device does not
// implement (the receive path drops those as malformed).  ext_len is the
// byte count of the extension headers, in wire order
//   BTH [DETH] [RETH] [AtomicETH] [AETH] [AtomicAckETH] [ImmDt].
module hca_opinfo (
    input  logic [7:0]         opcode,
    output logic [`OPI_W-1:0]  info,
    output logic [5:0]         ext_len
);
  // Build an info word from flags.
  function automatic [`OPI_W-1:0] op(input [`OPI_W-1:0] fl);
    op = fl | (`OPI_W'(1) << `OPI_VALID);
  endfunction

  localparam logic [`OPI_W-1:0] REQ = `OPI_W'(1) << `OPI_REQ, RESP = `OPI_W'(1) << `OPI_RESP;
  localparam logic [`OPI_W-1:0] SEND = `OPI_W'(1) << `OPI_SEND, WRITE = `OPI_W'(1) << `OPI_WRITE, READ = `OPI_W'(1) << `OPI_READ;
  localparam logic [`OPI_W-1:0] ATOMIC = `OPI_W'(1) << `OPI_ATOMIC, ACK = `OPI_W'(1) << `OPI_ACK;
  localparam logic [`OPI_W-1:0] FIRST = `OPI_W'(1) << `OPI_FIRST, MIDDLE = `OPI_W'(1) << `OPI_MIDDLE;
  localparam logic [`OPI_W-1:0] LAST = `OPI_W'(1) << `OPI_LAST, ONLY = `OPI_W'(1) << `OPI_ONLY, IMM = `OPI_W'(1) << `OPI_IMM;
  localparam logic [`OPI_W-1:0] RC = `OPI_W'(1) << `OPI_RC, UC = `OPI_W'(1) << `OPI_UC, UD = `OPI_W'(1) << `OPI_UD;
  localparam logic [`OPI_W-1:0] RETH = `OPI_W'(1) << `OPI_RETH, AETH = `OPI_W'(1) << `OPI_AETH, IMMDT = `OPI_W'(1) << `OPI_IMMDT;
  localparam logic [`OPI_W-1:0] ATMETH = `OPI_W'(1) << `OPI_ATMETH, ATMACK = `OPI_W'(1) << `OPI_ATMACK;
  localparam logic [`OPI_W-1:0] DETH = `OPI_W'(1) << `OPI_DETH, PAY = `OPI_W'(1) << `OPI_PAY;

  logic [`OPI_W-1:0] sw;   // SEND/WRITE family without the transport bit
  logic              is_rc, is_uc;

  always_comb begin
    // Low 5 bits select within the RC (0x00) and UC (0x20) SEND/WRITE blocks.
    case (opcode[4:0])
      5'h00: sw = op(REQ | SEND | FIRST | PAY);
      5'h01: sw = op(REQ | SEND | MIDDLE | PAY);
      5'h02: sw = op(REQ | SEND | LAST | PAY);
      5'h03: sw = op(REQ | SEND | LAST | IMM | IMMDT | PAY);
      5'h04: sw = op(REQ | SEND | ONLY | PAY);
      5'h05: sw = op(REQ | SEND | ONLY | IMM | IMMDT | PAY);
      5'h06: sw = op(REQ | WRITE | FIRST | RETH | PAY);
      5'h07: sw = op(REQ | WRITE | MIDDLE | PAY);
      5'h08: sw = op(REQ | WRITE | LAST | PAY);
      5'h09: sw = op(REQ | WRITE | LAST | IMM | IMMDT | PAY);
      5'h0A: sw = op(REQ | WRITE | ONLY | RETH | PAY);
      5'h0B: sw = op(REQ | WRITE | ONLY | IMM | RETH | IMMDT | PAY);
      default: sw = '0;
    endcase
    is_rc = (opcode[7:5] == 3'b000);
    is_uc = (opcode[7:5] == 3'b001);

    info = '0;
    if (is_rc && opcode[4:0] <= 5'h0B)
      info = sw | RC;
    else if (is_uc && opcode[4:0] <= 5'h0B)
      info = sw | UC;
    else begin
      case (opcode)
        8'(`HCA_BTH_OP_RC_RDMA_READ_REQUEST):         info = op(RC | REQ | READ | ONLY | RETH);
        8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_FIRST):  info = op(RC | RESP | READ | FIRST | AETH | PAY);
        8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_MIDDLE): info = op(RC | RESP | READ | MIDDLE | PAY);
        8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_LAST):   info = op(RC | RESP | READ | LAST | AETH | PAY);
        8'(`HCA_BTH_OP_RC_RDMA_READ_RESPONSE_ONLY):   info = op(RC | RESP | READ | ONLY | AETH | PAY);
        8'(`HCA_BTH_OP_RC_ACKNOWLEDGE):               info = op(RC | RESP | ACK | ONLY | AETH);
        8'(`HCA_BTH_OP_RC_ATOMIC_ACKNOWLEDGE):        info = op(RC | RESP | ATOMIC | ONLY | AETH | ATMACK);
        8'(`HCA_BTH_OP_RC_COMPARE_SWAP):              info = op(RC | REQ | ATOMIC | ONLY | ATMETH);
        8'(`HCA_BTH_OP_RC_FETCH_ADD):                 info = op(RC | REQ | ATOMIC | ONLY | ATMETH);
        8'(`HCA_BTH_OP_UD_SEND_ONLY):                 info = op(UD | REQ | SEND | ONLY | DETH | PAY);
        8'(`HCA_BTH_OP_UD_SEND_ONLY_WITH_IMMEDIATE):  info = op(UD | REQ | SEND | ONLY | IMM | DETH | IMMDT | PAY);
        default:                                      info = '0;
      endcase
    end

    ext_len = (info[`OPI_DETH]   ? 6'(`HCA_WIRE_DETH_LEN) : 6'd0)
            + (info[`OPI_RETH]   ? 6'(`HCA_WIRE_RETH_LEN) : 6'd0)
            + (info[`OPI_ATMETH] ? 6'(`HCA_WIRE_ATOMICETH_LEN) : 6'd0)
            + (info[`OPI_AETH]   ? 6'(`HCA_WIRE_AETH_LEN) : 6'd0)
            + (info[`OPI_ATMACK] ? 6'(`HCA_WIRE_ATOMICACKETH_LEN) : 6'd0)
            + (info[`OPI_IMMDT]  ? 6'(`HCA_WIRE_IMMDT_LEN) : 6'd0);
  end
endmodule
