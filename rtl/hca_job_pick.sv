`include "hca_defs.vh"

// The working job, for the harness view (hca_dispatch's dbg): the first job
// whose state is neither idle nor waiting for a callee (dbg_act), its id
// (JOB_* in hca_defs.vh: act bit i is job i + 1) and its state (*ST_*).
// Only one job works per cycle; the order settles nothing but a tie.
module hca_job_pick #(
    parameter int N = 19                   // jobs: JOB_DISPATCH .. JOB_COMP_TIMER
) (
    input  logic [N-1:0]   act,            // bit i: job i + 1 is working
    input  logic [8*N-1:0] st,             // [8*i +: 8]: job i + 1's state
    output logic [7:0]     job,
    output logic [7:0]     job_st
);
  always_comb begin : pick
    integer i;
    job = `JOB_NONE; job_st = 8'd0;
    for (i = N - 1; i >= 0; i = i - 1)
      if (act[i]) begin
        job = 8'(i + 1); job_st = st[8*i +: 8];
      end
  end
endmodule
