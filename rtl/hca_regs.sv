`include "hca_defs.vh"

// Register block: BAR0 (init segment, MSI-X table and PBA, doorbell pages)
// and the management port (docs/programming.md sections 2 and 7, the
// HCA_INIT_* / HCA_MSIX_* / HCA_MGMT_* registers of spec/hca.toml).
//
// It runs on every clock, also while the engine is held (eng_ce = 0), so
// register accesses are "zero time" for the engine.  Doorbells, context
// commands and EQE injection are forwarded to hca_ctx and acknowledged when
// it is done.  Holds the event FIFO, the statistics counters, the first-DMA-
// fault latch, the cycle counter and the MSI-X state.
module hca_regs #(
    parameter int DATA_W      = 64,
    parameter int LOG_MAX_QP  = 8,
    parameter int LOG_MAX_CQ  = 8,
    parameter int LOG_MAX_SRQ = 6,
    parameter int LOG_MAX_EQ  = 5,
    parameter int LOG_MAX_MR  = 10
) (
    input  logic        clk,
    input  logic        rst_n,
    input  logic        eng_ce,          // engine clock enable (0 while held)
    input  logic        time_warp,       // while held: jump the cycle counter
    input  logic [63:0] time_warp_cycles,
    // BAR0 register port (from hca_axil_slave)
    input  logic        b_req,
    input  logic        b_we,
    input  logic [19:0] b_addr,
    input  logic [31:0] b_wdata,
    output logic        b_ack,
    output logic [31:0] b_rdata,
    // management register port
    input  logic        m_req,
    input  logic        m_we,
    input  logic [13:0] m_addr,
    input  logic [31:0] m_wdata,
    output logic        m_ack,
    output logic [31:0] m_rdata,
    // hca_ctx: doorbells
    output logic        db_req,
    output logic [6:0]  db_page,
    output logic [11:0] db_reg,
    output logic [31:0] db_val,
    input  logic        db_ack,
    // hca_ctx: context commands (staging buffer in, read data out)
    output logic        cc_req,
    output logic [3:0]  cc_op,
    output logic [3:0]  cc_type,
    output logic [23:0] cc_idx,
    output logic [2047:0] cc_wdata,
    input  logic        cc_ack,
    input  logic [2:0]  cc_status,
    input  logic        cc_rvalid,       // with cc_ack: cc_rdata replaces the staging buffer
    input  logic [2047:0] cc_rdata,
    // hca_ctx: EQE injection
    output logic        inj_req,
    output logic [31:0] inj_eqn,
    output logic [15:0] inj_type,        // [7:0] type, [15:8] subtype
    output logic [31:0] inj_element,
    output logic [31:0] inj_data,
    input  logic        inj_ack,
    input  logic [2:0]  inj_status,
    // engine control
    output logic        srst,            // engine soft reset (one cycle)
    output logic        enabled,
    output logic        port_up,
    output logic [47:0] port_mac,        // wire order: mac[0] in [7:0]
    output logic [63:0] cycle,
    output logic [63:0] cycle_nx,        // the cycle counter after this clock edge (hca_timers)
    // events (engine and hca_ctx) into the FIFO
    input  logic        e_evt_valid,
    input  logic [7:0]  e_evt_type,
    input  logic [31:0] e_evt_elem,
    input  logic        c_evt_valid,
    input  logic [7:0]  c_evt_type,
    input  logic [31:0] c_evt_elem,
    // statistics: one-count pulses and byte amounts
    input  logic [`HCA_STAT_COUNT-1:0] stat_inc,
    input  logic [31:0] stat_tx_bytes,
    input  logic [31:0] stat_rx_bytes,
    // first DMA fault
    input  logic        f_valid,
    input  logic [7:0]  f_client,
    input  logic        f_write,
    input  logic [63:0] f_iova,
    // MSI-X: fire (set PBA if masked) and deliver (clear PBA) from the engine
    input  logic        x_fire,
    input  logic        x_deliver,
    input  logic [4:0]  x_vec,
    output logic [31:0] x_masked,
    output logic [31:0] x_pba,
    output logic        msix_valid,
    output logic [4:0]  msix_vector,
    output logic        fw_irq
);
  localparam int NV = `HCA_CAP_NUM_MSIX;
  localparam int NSTAT = `HCA_STAT_COUNT;
  localparam int EVD = `HCA_MGMT_EVT_DEPTH;

  // ---------------------------------------------------------------- state
  logic [31:0] fw_ver, ctrl, status, health, syndrome, cmdq_base_lo, cmdq_base_hi;
  logic [31:0] cmdq_log_size, cmdq_pi, cmdq_ci, cmdq_status;
  logic [31:0] clock_hi_latch;
  logic [31:0] msix_addr_lo [0:NV-1];
  logic [31:0] msix_addr_hi [0:NV-1];
  logic [31:0] msix_data    [0:NV-1];
  logic [NV-1:0] masked, pba;
  logic        fwe_cmdq, fwe_host;  // FW_EVENT.CMDQ_PI / HOST_CTRL (ENGINE_EVENT is computed)
  logic        engine_en, port_ctrl_up;
  logic [31:0] mac_lo, mac_hi;
  logic [31:0] inj_eqn_q, inj_element_q, inj_data_q, inj_status_q;
  logic [15:0] inj_type_q;
  logic [31:0] staging [0:63];
  logic [2:0]  ctx_status_q;
  logic [31:0] stats [0:NSTAT-1];
  logic        fault_sticky;
  logic [31:0] fault_lo, fault_hi, fault_info;
  logic [63:0] clk_cnt;
  // event FIFO
  logic [7:0]  evt_type [0:EVD-1];
  logic [31:0] evt_elem [0:EVD-1];
  logic [$clog2(EVD)-1:0] evt_head;
  logic [$clog2(EVD):0]   evt_count;
  logic        evt_overflow;

  assign enabled  = engine_en;
  assign port_up  = port_ctrl_up;
  assign port_mac = {mac_lo[7:0], mac_lo[15:8], mac_lo[23:16], mac_lo[31:24], mac_hi[7:0], mac_hi[15:8]};
  assign cycle    = clk_cnt;
  assign cycle_nx = eng_ce ? clk_cnt + 64'd1 : time_warp ? clk_cnt + time_warp_cycles : clk_cnt;
  assign x_masked = masked;
  assign x_pba    = pba;

  logic [31:0] fw_event_rd;
  assign fw_event_rd = {29'b0, fwe_host, (evt_count != 0), fwe_cmdq};
  assign fw_irq      = (fw_event_rd != 32'h0);

  // ------------------------------------------------------------ decoding
  // One request at a time: management first; a request that waits for
  // hca_ctx keeps its port selected until acknowledged.
  logic sel_m, sel_b, srv_m;
  logic busy_q, busy_m_q;
  always_comb begin
    if (busy_q) begin
      sel_m = busy_m_q;
      sel_b = !busy_m_q;
    end else begin
      sel_m = m_req;
      sel_b = !m_req && b_req;
    end
  end
  assign srv_m = sel_m;

  // Init segment address (host BAR0 or firmware window).
  logic        init_acc, init_host;
  logic [11:0] init_off;
  always_comb begin
    init_acc  = 1'b0;
    init_host = 1'b0;
    init_off  = '0;
    if (sel_m && m_addr >= 14'(`HCA_MGMT_INIT_WINDOW) &&
        m_addr < 14'(`HCA_MGMT_INIT_WINDOW + `HCA_BAR0_INIT_SEG_SIZE)) begin
      init_acc = 1'b1;
      init_off = m_addr[11:0];
    end else if (sel_b && b_addr < 20'(`HCA_BAR0_INIT_SEG_SIZE)) begin
      init_acc  = 1'b1;
      init_host = 1'b1;
      init_off  = b_addr[11:0];
    end
  end

  localparam logic [31:0] CAP0 =
      (32'(LOG_MAX_QP) << `HCA_INIT_CAP0_LOG_MAX_QP_SHIFT) | (32'(LOG_MAX_CQ) << `HCA_INIT_CAP0_LOG_MAX_CQ_SHIFT) |
      (32'(LOG_MAX_SRQ) << `HCA_INIT_CAP0_LOG_MAX_SRQ_SHIFT) | (32'(LOG_MAX_EQ) << `HCA_INIT_CAP0_LOG_MAX_EQ_SHIFT) |
      (32'(LOG_MAX_MR) << `HCA_INIT_CAP0_LOG_MAX_MR_SHIFT) | (32'(`HCA_CAP_LOG_MAX_PD) << `HCA_INIT_CAP0_LOG_MAX_PD_SHIFT);
  localparam logic [31:0] CAP1 =
      (32'(`HCA_CAP_LOG_MAX_WQE) << `HCA_INIT_CAP1_LOG_MAX_WQE_SHIFT) |
      (32'(`HCA_CAP_LOG_MAX_CQE) << `HCA_INIT_CAP1_LOG_MAX_CQE_SHIFT) |
      (32'(`HCA_CAP_LOG_MAX_EQE) << `HCA_INIT_CAP1_LOG_MAX_EQE_SHIFT) |
      (32'(`HCA_CAP_MAX_SGE) << `HCA_INIT_CAP1_MAX_SGE_SHIFT) |
      (32'(`HCA_CAP_MAX_RD_ATOMIC) << `HCA_INIT_CAP1_MAX_RD_ATOMIC_SHIFT);
  localparam logic [31:0] CAP2 =
      (32'(`HCA_CAP_MAX_INLINE_DATA) << `HCA_INIT_CAP2_MAX_INLINE_DATA_SHIFT) |
      (32'(`HCA_CAP_NUM_MSIX) << `HCA_INIT_CAP2_NUM_MSIX_SHIFT) |
      (32'(`HCA_CAP_GID_TBL_LEN) << `HCA_INIT_CAP2_GID_TBL_LEN_SHIFT);
  localparam logic [31:0] CAP3 =
      (32'(DATA_W) << `HCA_INIT_CAP3_DATA_W_SHIFT) | (32'(`HCA_CAP_MAX_UAR) << `HCA_INIT_CAP3_MAX_UAR_SHIFT);

  logic [31:0] init_rd;
  always_comb begin
    case (init_off)
      12'(`HCA_INIT_HCA_ID):        init_rd = (32'(`HCA_VENDOR_ID) << 16) | 32'(`HCA_DEVICE_ID);
      12'(`HCA_INIT_HW_REV):        init_rd = 32'(`HCA_HW_REV);
      12'(`HCA_INIT_INTERFACE_REV): init_rd = 32'(`HCA_INTERFACE_REV);
      12'(`HCA_INIT_CAP0):          init_rd = CAP0;
      12'(`HCA_INIT_CAP1):          init_rd = CAP1;
      12'(`HCA_INIT_CAP2):          init_rd = CAP2;
      12'(`HCA_INIT_CAP3):          init_rd = CAP3;
      12'(`HCA_INIT_ENGINE_STATUS): init_rd = {30'b0, fault_sticky, port_ctrl_up};
      12'(`HCA_INIT_CLOCK_LO):      init_rd = clk_cnt[31:0];
      12'(`HCA_INIT_CLOCK_HI):      init_rd = init_host ? clock_hi_latch : clk_cnt[63:32];
      12'(`HCA_INIT_FW_VER):        init_rd = fw_ver;
      12'(`HCA_INIT_CTRL):          init_rd = ctrl;
      12'(`HCA_INIT_STATUS):        init_rd = status;
      12'(`HCA_INIT_HEALTH):        init_rd = health;
      12'(`HCA_INIT_SYNDROME):      init_rd = syndrome;
      12'(`HCA_INIT_CMDQ_BASE_LO):  init_rd = cmdq_base_lo;
      12'(`HCA_INIT_CMDQ_BASE_HI):  init_rd = cmdq_base_hi;
      12'(`HCA_INIT_CMDQ_LOG_SIZE): init_rd = cmdq_log_size;
      12'(`HCA_INIT_CMDQ_PI):       init_rd = cmdq_pi;
      12'(`HCA_INIT_CMDQ_CI):       init_rd = cmdq_ci;
      12'(`HCA_INIT_CMDQ_STATUS):   init_rd = cmdq_status;
      default:                      init_rd = 32'h0;
    endcase
  end

  // BAR0 regions
  logic        b_msix, b_pba, b_db;
  logic [4:0]  b_vec;
  logic [1:0]  b_vreg;
  logic [7:0]  b_page;
  always_comb begin
    b_msix = b_addr >= 20'(`HCA_BAR0_MSIX_TABLE) && b_addr < 20'(`HCA_BAR0_MSIX_TABLE + 16 * NV);
    b_pba  = b_addr == 20'(`HCA_BAR0_MSIX_PBA);
    b_db   = b_addr >= 20'(`HCA_BAR0_DB_BASE);
    b_vec  = b_addr[8:4];
    b_vreg = b_addr[3:2];
    b_page = 8'((b_addr - 20'(`HCA_BAR0_DB_BASE)) >> 12);
  end

  // Management regions
  logic m_ctxd, m_stat;
  logic [5:0] m_word;
  logic [4:0] m_statidx;
  assign m_ctxd    = m_addr >= 14'(`HCA_MGMT_CTX_DATA) && m_addr < 14'(`HCA_MGMT_CTX_DATA + 4 * `HCA_MGMT_CTX_DATA_WORDS);
  assign m_stat    = m_addr >= 14'(`HCA_MGMT_STAT_BASE) && m_addr < 14'(`HCA_MGMT_STAT_BASE + 4 * NSTAT);
  assign m_word    = m_addr[7:2];
  assign m_statidx = 5'((m_addr - 14'(`HCA_MGMT_STAT_BASE)) >> 2);

  logic [31:0] mgmt_rd;
  always_comb begin
    mgmt_rd = 32'h0;
    if (init_acc)
      mgmt_rd = init_rd;
    else if (m_ctxd)
      mgmt_rd = staging[m_word];
    else if (m_stat)
      mgmt_rd = stats[m_statidx];
    else begin
      case (m_addr)
        14'(`HCA_MGMT_ID):              mgmt_rd = 32'(`HCA_MGMT_ID_VALUE);
        14'(`HCA_MGMT_ENGINE_REV):      mgmt_rd = 32'(`HCA_INTERFACE_REV);
        14'(`HCA_MGMT_FW_EVENT):        mgmt_rd = fw_event_rd;
        14'(`HCA_MGMT_ENGINE_CTRL):     mgmt_rd = {31'b0, engine_en};
        14'(`HCA_MGMT_PORT_CTRL):       mgmt_rd = {31'b0, port_ctrl_up};
        14'(`HCA_MGMT_PORT_STATE):      mgmt_rd = port_ctrl_up ? 32'(`HCA_PORT_ACTIVE) : 32'(`HCA_PORT_DOWN);
        14'(`HCA_MGMT_PORT_MAC_LO):     mgmt_rd = mac_lo;
        14'(`HCA_MGMT_PORT_MAC_HI):     mgmt_rd = mac_hi;
        14'(`HCA_MGMT_EVT_COUNT):       mgmt_rd = 32'(evt_count);
        14'(`HCA_MGMT_EVT_TYPE):        mgmt_rd = {evt_overflow, 23'b0, (evt_count != 0) ? evt_type[evt_head] : 8'h0};
        14'(`HCA_MGMT_EVT_ELEMENT):     mgmt_rd = (evt_count != 0) ? evt_elem[evt_head] : 32'h0;
        14'(`HCA_MGMT_EQE_INJ_EQN):     mgmt_rd = inj_eqn_q;
        14'(`HCA_MGMT_EQE_INJ_TYPE):    mgmt_rd = {16'b0, inj_type_q};
        14'(`HCA_MGMT_EQE_INJ_ELEMENT): mgmt_rd = inj_element_q;
        14'(`HCA_MGMT_EQE_INJ_DATA):    mgmt_rd = inj_data_q;
        14'(`HCA_MGMT_EQE_INJ_STATUS):  mgmt_rd = inj_status_q;
        14'(`HCA_MGMT_CTX_STATUS):      mgmt_rd = {29'b0, ctx_status_q};
        14'(`HCA_MGMT_DMA_FAULT_LO):    mgmt_rd = fault_lo;
        14'(`HCA_MGMT_DMA_FAULT_HI):    mgmt_rd = fault_hi;
        14'(`HCA_MGMT_DMA_FAULT_INFO):  mgmt_rd = fault_info;
        14'(`HCA_MGMT_CLOCK_LO):        mgmt_rd = clk_cnt[31:0];
        14'(`HCA_MGMT_CLOCK_HI):        mgmt_rd = clk_cnt[63:32];
        default:                        mgmt_rd = 32'h0;
      endcase
    end
  end

  logic [31:0] bar0_rd;
  always_comb begin
    bar0_rd = 32'h0;
    if (init_acc)
      bar0_rd = init_rd;
    else if (b_msix) begin
      case (b_vreg)
        2'd0: bar0_rd = msix_addr_lo[b_vec];
        2'd1: bar0_rd = msix_addr_hi[b_vec];
        2'd2: bar0_rd = msix_data[b_vec];
        default: bar0_rd = {31'b0, masked[b_vec]};
      endcase
    end else if (b_pba)
      bar0_rd = pba;
  end

  // Requests that wait for hca_ctx.
  logic w_db, w_cc, w_inj;
  assign w_db  = sel_b && b_we && b_db && b_page < 8'(`HCA_CAP_MAX_UAR);
  assign w_cc  = sel_m && m_we && m_addr == 14'(`HCA_MGMT_CTX_CMD);
  assign w_inj = sel_m && m_we && m_addr == 14'(`HCA_MGMT_EQE_INJ_GO);

  assign db_req   = w_db && b_req;
  assign db_page  = b_page[6:0];
  assign db_reg   = b_addr[11:0];
  assign db_val   = b_wdata;
  assign cc_req   = w_cc && m_req;
  assign cc_op    = m_wdata[31:28];
  assign cc_type  = m_wdata[27:24];
  assign cc_idx   = m_wdata[23:0];
  assign inj_req  = w_inj && m_req;
  assign inj_eqn  = inj_eqn_q;
  assign inj_type = inj_type_q;
  assign inj_element = inj_element_q;
  assign inj_data = inj_data_q;
  genvar gw;
  generate
    for (gw = 0; gw < 64; gw = gw + 1) begin : g_stg
      assign cc_wdata[32*gw +: 32] = staging[gw];
    end
  endgenerate

  logic waiting, done_wait;
  assign waiting   = db_req || cc_req || inj_req;
  assign done_wait = (db_req && db_ack) || (cc_req && cc_ack) || (inj_req && inj_ack);

  // Acks: plain registers answer at once.
  logic ack_now;
  assign ack_now = waiting ? done_wait : (sel_m ? m_req : (sel_b && b_req));
  assign m_ack   = srv_m && ack_now;
  assign b_ack   = !srv_m && sel_b && ack_now;
  assign m_rdata = mgmt_rd;
  assign b_rdata = bar0_rd;

  // Write strobes (effective on the acknowledging edge).
  logic m_wr, b_wr;
  assign m_wr = m_ack && m_we;
  assign b_wr = b_ack && b_we;

  // ------------------------------------------------------- sequential part
  logic host_reset, eng_reset;
  assign host_reset = b_wr && init_acc && init_host && init_off == 12'(`HCA_INIT_CTRL) &&
                      b_wdata[0];
  assign eng_reset  = m_wr && !init_acc && m_addr == 14'(`HCA_MGMT_ENGINE_CTRL) &&
                      m_wdata[1];
  assign srst = host_reset || eng_reset;

  // MSI-X output: fire/deliver requests from the engine (engine time only).
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      msix_valid  <= 1'b0;
      msix_vector <= '0;
    end else begin
      msix_valid  <= 1'b0;
      if (eng_ce && ((x_fire && !masked[x_vec]) || x_deliver)) begin
        msix_valid  <= 1'b1;
        msix_vector <= x_vec;
      end
    end
  end

  // Event FIFO push sources.
  logic evt_push1, evt_push2;
  logic [7:0]  evt_t1, evt_t2;
  logic [31:0] evt_e1, evt_e2;
  logic        port_evt;
  logic [7:0]  port_evt_type;
  always_comb begin
    port_evt      = 1'b0;
    port_evt_type = 8'(`HCA_EVENT_PORT_ERR);
    if (m_wr && !init_acc && m_addr == 14'(`HCA_MGMT_PORT_CTRL) && m_wdata[0] != port_ctrl_up) begin
      port_evt      = 1'b1;
      port_evt_type = m_wdata[0] ? 8'(`HCA_EVENT_PORT_ACTIVE) : 8'(`HCA_EVENT_PORT_ERR);
    end
    // at most two pushes per cycle: engine or port, and hca_ctx
    evt_push1 = (e_evt_valid && eng_ce) || port_evt;
    evt_t1    = (e_evt_valid && eng_ce) ? e_evt_type : port_evt_type;
    evt_e1    = (e_evt_valid && eng_ce) ? e_evt_elem : 32'd1;
    evt_push2 = c_evt_valid;
    evt_t2    = c_evt_type;
    evt_e2    = c_evt_elem;
  end

  logic evt_pop;
  assign evt_pop = m_wr && !init_acc && m_addr == 14'(`HCA_MGMT_EVT_POP);

  integer i;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      fw_ver <= '0; ctrl <= '0; status <= '0; health <= '0; syndrome <= '0;
      cmdq_base_lo <= '0; cmdq_base_hi <= '0; cmdq_log_size <= '0; cmdq_pi <= '0;
      cmdq_ci <= '0; cmdq_status <= '0; clock_hi_latch <= '0;
      for (i = 0; i < NV; i = i + 1) begin
        msix_addr_lo[i] <= '0; msix_addr_hi[i] <= '0; msix_data[i] <= '0;
      end
      masked <= '1; pba <= '0;
      fwe_cmdq <= 1'b0; fwe_host <= 1'b0; engine_en <= 1'b0; port_ctrl_up <= 1'b0;
      mac_lo <= '0; mac_hi <= '0;
      inj_eqn_q <= '0; inj_type_q <= '0; inj_element_q <= '0; inj_data_q <= '0; inj_status_q <= '0;
      for (i = 0; i < 64; i = i + 1) staging[i] <= '0;
      ctx_status_q <= '0;
      for (i = 0; i < NSTAT; i = i + 1) stats[i] <= '0;
      fault_sticky <= 1'b0; fault_lo <= '0; fault_hi <= '0; fault_info <= '0;
      clk_cnt <= '0;
      evt_head <= '0; evt_count <= '0; evt_overflow <= 1'b0;
      busy_q <= 1'b0; busy_m_q <= 1'b0;
    end else begin
      // request port stickiness while hca_ctx works
      if (waiting && !done_wait) begin
        busy_q   <= 1'b1;
        busy_m_q <= srv_m;
      end else begin
        busy_q <= 1'b0;
      end

      // cycle counter: engine time
      clk_cnt <= cycle_nx;

      // statistics (engine time) -- cleared by a reset below
      if (eng_ce) begin
        if (stat_inc != '0)          // most cycles count nothing: one test, not one per counter
          for (i = 0; i < NSTAT; i = i + 1)
            if (stat_inc[i]) stats[i] <= stats[i] + 32'd1;
        if (stat_tx_bytes != 0)
          stats[`HCA_STAT_TX_BYTES] <= stats[`HCA_STAT_TX_BYTES] + stat_tx_bytes;
        if (stat_rx_bytes != 0)
          stats[`HCA_STAT_RX_BYTES] <= stats[`HCA_STAT_RX_BYTES] + stat_rx_bytes;
      end
      // hca_ctx counts in held time (doorbell errors, injection overflow)
      if (!eng_ce) begin
        if (stat_inc[`HCA_STAT_DB_ERR])
          stats[`HCA_STAT_DB_ERR] <= stats[`HCA_STAT_DB_ERR] + 32'd1;
        if (stat_inc[`HCA_STAT_EQ_OVERFLOW])
          stats[`HCA_STAT_EQ_OVERFLOW] <= stats[`HCA_STAT_EQ_OVERFLOW] + 32'd1;
      end

      // DMA fault latch (engine time)
      if (eng_ce && f_valid) begin
        fault_sticky <= 1'b1;
        if (!fault_info[31]) begin
          fault_lo   <= f_iova[31:0];
          fault_hi   <= f_iova[63:32];
          fault_info <= 32'h80000000 | {16'b0, f_client, 7'b0, f_write};
        end
      end

      // MSI-X pending bits
      if (eng_ce && x_fire && masked[x_vec]) pba[x_vec] <= 1'b1;
      if (eng_ce && x_deliver) pba[x_vec] <= 1'b0;

      // event FIFO
      begin : evt_upd
        logic [$clog2(EVD):0] cnt;
        logic [$clog2(EVD)-1:0] hd;
        cnt = evt_count;
        hd  = evt_head;
        if (evt_pop) begin
          if (cnt != 0) begin
            hd  = hd + 1'b1;
            cnt = cnt - 1'b1;
          end
          evt_overflow <= 1'b0;
        end
        if (evt_push1) begin
          if (cnt == ($clog2(EVD)+1)'(EVD)) evt_overflow <= 1'b1;
          else begin
            evt_type[hd + cnt[$clog2(EVD)-1:0]] <= evt_t1;
            evt_elem[hd + cnt[$clog2(EVD)-1:0]] <= evt_e1;
            cnt = cnt + 1'b1;
          end
        end
        if (evt_push2) begin
          if (cnt == ($clog2(EVD)+1)'(EVD)) evt_overflow <= 1'b1;
          else begin
            evt_type[hd + cnt[$clog2(EVD)-1:0]] <= evt_t2;
            evt_elem[hd + cnt[$clog2(EVD)-1:0]] <= evt_e2;
            cnt = cnt + 1'b1;
          end
        end
        evt_head  <= hd;
        evt_count <= cnt;
      end

      // ---- register writes
      if (b_wr && init_acc) begin
        case (init_off)
          12'(`HCA_INIT_CTRL): begin
            if (!b_wdata[0])
              ctrl <= (ctrl & 32'(`HCA_INIT_CTRL_RESET_MASK)) |
                      (b_wdata & 32'(`HCA_INIT_CTRL_ENABLE_MASK));
            fwe_host <= 1'b1;
          end
          12'(`HCA_INIT_CMDQ_BASE_LO):  cmdq_base_lo  <= b_wdata;
          12'(`HCA_INIT_CMDQ_BASE_HI):  cmdq_base_hi  <= b_wdata;
          12'(`HCA_INIT_CMDQ_LOG_SIZE): cmdq_log_size <= b_wdata;
          12'(`HCA_INIT_CMDQ_PI): begin
            cmdq_pi     <= b_wdata;
            fwe_cmdq <= 1'b1;
          end
          default: ;
        endcase
      end
      if (b_ack && !b_we && init_acc && init_off == 12'(`HCA_INIT_CLOCK_LO))
        clock_hi_latch <= clk_cnt[63:32];
      if (b_wr && b_msix) begin
        case (b_vreg)
          2'd0: msix_addr_lo[b_vec] <= b_wdata;
          2'd1: msix_addr_hi[b_vec] <= b_wdata;
          2'd2: msix_data[b_vec] <= b_wdata;
          default: masked[b_vec] <= b_wdata[0];
        endcase
      end
      if (m_wr && init_acc) begin
        // firmware may write every stored init register
        case (init_off)
          12'(`HCA_INIT_FW_VER):        fw_ver <= m_wdata;
          12'(`HCA_INIT_CTRL):          ctrl <= m_wdata;
          12'(`HCA_INIT_STATUS):        status <= m_wdata;
          12'(`HCA_INIT_HEALTH):        health <= m_wdata;
          12'(`HCA_INIT_SYNDROME):      syndrome <= m_wdata;
          12'(`HCA_INIT_CMDQ_BASE_LO):  cmdq_base_lo <= m_wdata;
          12'(`HCA_INIT_CMDQ_BASE_HI):  cmdq_base_hi <= m_wdata;
          12'(`HCA_INIT_CMDQ_LOG_SIZE): cmdq_log_size <= m_wdata;
          12'(`HCA_INIT_CMDQ_PI):       cmdq_pi <= m_wdata;
          12'(`HCA_INIT_CMDQ_CI):       cmdq_ci <= m_wdata;
          12'(`HCA_INIT_CMDQ_STATUS):   cmdq_status <= m_wdata;
          default: ;
        endcase
      end
      if (m_wr && m_ctxd)
        staging[m_word] <= m_wdata;
      if (m_wr && !init_acc && !m_ctxd) begin
        case (m_addr)
          14'(`HCA_MGMT_FW_EVENT): begin
            if (m_wdata[0]) fwe_cmdq <= 1'b0;
            if (m_wdata[2]) fwe_host <= 1'b0;
          end
          14'(`HCA_MGMT_ENGINE_CTRL):     engine_en <= m_wdata[0];
          14'(`HCA_MGMT_PORT_CTRL):       port_ctrl_up <= m_wdata[0];
          14'(`HCA_MGMT_PORT_MAC_LO):     mac_lo <= m_wdata;
          14'(`HCA_MGMT_PORT_MAC_HI):     mac_hi <= {16'b0, m_wdata[15:0]};
          14'(`HCA_MGMT_EQE_INJ_EQN):     inj_eqn_q <= m_wdata;
          14'(`HCA_MGMT_EQE_INJ_TYPE):    inj_type_q <= m_wdata[15:0];
          14'(`HCA_MGMT_EQE_INJ_ELEMENT): inj_element_q <= m_wdata;
          14'(`HCA_MGMT_EQE_INJ_DATA):    inj_data_q <= m_wdata;
          default: ;
        endcase
      end
      if (inj_req && inj_ack) inj_status_q <= {29'b0, inj_status};
      if (cc_req && cc_ack) begin
        ctx_status_q <= cc_status;
        if (cc_rvalid)
          for (i = 0; i < 64; i = i + 1) staging[i] <= cc_rdata[32*i +: 32];
      end

      // ---- resets (after the writes above, so they win)
      if (srst) begin
        for (i = 0; i < NV; i = i + 1) begin
          msix_addr_lo[i] <= '0; msix_addr_hi[i] <= '0; msix_data[i] <= '0;
        end
        masked <= '1; pba <= '0;
        port_ctrl_up <= 1'b0;
        inj_eqn_q <= '0; inj_type_q <= '0; inj_element_q <= '0; inj_data_q <= '0; inj_status_q <= '0;
        for (i = 0; i < 64; i = i + 1) staging[i] <= '0;
        ctx_status_q <= '0;
        for (i = 0; i < NSTAT; i = i + 1) stats[i] <= '0;
        fault_sticky <= 1'b0; fault_lo <= '0; fault_hi <= '0; fault_info <= '0;
        evt_head <= '0; evt_count <= '0; evt_overflow <= 1'b0;
      end
      if (eng_reset)
        engine_en <= m_wdata[0];   // RESET|ENABLE resets, then enables
      if (host_reset) begin
        engine_en <= 1'b0;
        fw_ver <= '0; status <= '0; health <= '0; syndrome <= '0;
        cmdq_base_lo <= '0; cmdq_base_hi <= '0; cmdq_log_size <= '0; cmdq_pi <= '0;
        cmdq_ci <= '0; cmdq_status <= '0;
        ctrl <= 32'(`HCA_INIT_CTRL_RESET_MASK);
        fwe_cmdq <= 1'b0;
        fwe_host <= 1'b1;            // HOST_CTRL only
      end
    end
  end
endmodule
