// The kernel benchmark ring (rtl/examples/ring.ts) in SystemVerilog, for the Verilator comparison
// of bench/suites/kernel.ts. Same hardware and the same cycle behaviour:
//
// - the source emits one token per cycle (data = cycle number) into a channel when it has room and
//   remembers it; it takes back every token that arrives from the last stage and checks that it
//   equals its emitted value + STAGES, in order (received / errors / first error);
// - each of the STAGES stages moves the head of its input channel into its DEPTH-entry FIFO when
//   the FIFO has room, and the FIFO's head, + 1, into its output channel when that has room;
// - a channel is a CAPACITY-entry FIFO: a token pushed in cycle t can be popped from t + 1 and a
//   pop frees its slot from t + 1 (the producer sees it one cycle late), exactly the kernel's
//   NumChannel with latency 1; a stage FIFO behaves the same way (the kernel's NumFifo).
//
// Every decision uses the state at the start of the cycle (all updates are in always_ff), so the
// order of evaluation does not matter, as in the kernel's two-phase update. Tokens are 32 bits
// (the kernel's are doubles): the C++ driver refuses runs long enough for a cycle number to wrap.
// The return channel never holds more than one token at the start of a cycle (the source empties
// it every cycle and the last stage pushes at most one), so popping one per cycle is the kernel's
// "pop every visible token".
//
// STAGES, DEPTH and CAPACITY are set with -G from ring.ts's exports (bench/verilog/build.ts); the
// defaults here are only for reading the file.

/* verilator lint_off DECLFILENAME */

// A DEPTH-entry FIFO with registered occupancy: both a channel and a stage FIFO.
module ring_fifo #(
  parameter int DEPTH = 16
) (
  input  logic        clk,
  input  logic        rst,
  input  logic        push,
  input  logic [31:0] din,
  input  logic        pop,
  output logic [31:0] dout,
  output logic        can_pop,
  output logic        can_push
);
  localparam int AW = DEPTH > 1 ? $clog2(DEPTH) : 1;
  localparam int CW = $clog2(DEPTH + 1);
  logic [31:0] mem [DEPTH];
  logic [AW-1:0] head, tail;
  logic [CW-1:0] count;

  // combinational: what the current state offers
  assign dout = mem[head];
  assign can_pop = count != 0;
  assign can_push = count != CW'(DEPTH);

  // next state
  always_ff @(posedge clk) begin
    if (rst) begin
      head <= '0;
      tail <= '0;
      count <= '0;
    end else begin
      if (push) begin
        mem[tail] <= din;
        tail <= tail == AW'(DEPTH - 1) ? '0 : tail + 1'b1;
      end
      if (pop) head <= head == AW'(DEPTH - 1) ? '0 : head + 1'b1;
      if (push && !pop) count <= count + 1'b1;
      else if (pop && !push) count <= count - 1'b1;
    end
  end
endmodule

// One ring stage: input channel -> FIFO -> (+ 1) -> its own output channel.
module ring_stage #(
  parameter int DEPTH = 16,
  parameter int CAPACITY = 2
) (
  input  logic        clk,
  input  logic        rst,
  input  logic        in_valid,  // the input channel has a token
  input  logic [31:0] in_data,
  output logic        in_take,   // pop the input channel
  output logic        out_valid,
  output logic [31:0] out_data,
  input  logic        out_take
);
  logic [31:0] f_dout;
  logic f_can_pop, f_can_push, ch_can_push, give;

  assign in_take = in_valid && f_can_push;
  assign give = f_can_pop && ch_can_push;

  ring_fifo #(.DEPTH(DEPTH)) fifo (
    .clk, .rst, .push(in_take), .din(in_data), .pop(give), .dout(f_dout), .can_pop(f_can_pop), .can_push(f_can_push)
  );
  ring_fifo #(.DEPTH(CAPACITY)) out_ch (
    .clk, .rst, .push(give), .din(f_dout + 32'd1), .pop(out_take), .dout(out_data), .can_pop(out_valid), .can_push(ch_can_push)
  );
endmodule

// Stage 0: emits the cycle number, checks every returning token.
module ring_source #(
  parameter int STAGES = 1000,
  parameter int DEPTH = 16,
  parameter int CAPACITY = 2
) (
  input  logic        clk,
  input  logic        rst,
  output logic        out_valid,
  output logic [31:0] out_data,
  input  logic        out_take,
  input  logic        in_valid,
  input  logic [31:0] in_data,
  output logic        in_take,
  output logic [63:0] received,
  output logic [31:0] errors,
  output logic [31:0] first_err_cycle,
  output logic [31:0] first_err_token,
  output logic [31:0] first_err_value,
  output logic [31:0] first_err_want
);
  // tokens in flight: at most one channel plus one FIFO per stage (ring.ts sizes its record alike)
  localparam int NEED = (DEPTH + CAPACITY) * (STAGES + 1);
  localparam int SW = NEED <= 1024 ? 10 : $clog2(NEED);
  logic [31:0] sent [2 ** SW];
  logic [SW-1:0] sent_head, sent_tail;
  logic [31:0] cycle, want;
  logic ch_can_push;

  assign in_take = in_valid;  // take back every token
  assign want = sent[sent_head] + 32'(STAGES);

  ring_fifo #(.DEPTH(CAPACITY)) out_ch (
    .clk, .rst, .push(ch_can_push), .din(cycle), .pop(out_take), .dout(out_data), .can_pop(out_valid), .can_push(ch_can_push)
  );

  always_ff @(posedge clk) begin
    if (rst) begin
      cycle <= '0;
      sent_head <= '0;
      sent_tail <= '0;
      received <= '0;
      errors <= '0;
      first_err_cycle <= '0;
      first_err_token <= '0;
      first_err_value <= '0;
      first_err_want <= '0;
    end else begin
      cycle <= cycle + 1'b1;
      if (ch_can_push) begin
        sent[sent_tail] <= cycle;
        sent_tail <= sent_tail + 1'b1;
      end
      if (in_valid) begin
        sent_head <= sent_head + 1'b1;
        received <= received + 1'b1;
        if (in_data != want) begin
          if (errors == 0) begin
            first_err_cycle <= cycle;
            first_err_token <= received[31:0];
            first_err_value <= in_data;
            first_err_want <= want;
          end
          errors <= errors + 1'b1;
        end
      end
    end
  end
endmodule

module ring #(
  parameter int STAGES = 1000,
  parameter int DEPTH = 16,
  parameter int CAPACITY = 2
) (
  input  logic        clk,
  input  logic        rst,
  output logic [63:0] received,
  output logic [31:0] errors,
  output logic [31:0] first_err_cycle,
  output logic [31:0] first_err_token,
  output logic [31:0] first_err_value,
  output logic [31:0] first_err_want,
  // the parameters as built, so the driver can report them
  output logic [31:0] stages_o,
  output logic [31:0] depth_o,
  output logic [31:0] capacity_o
);
  // channel k goes from stage k (0 = source) to stage k + 1; channel STAGES returns to the source
  logic        valid [STAGES + 1];
  logic [31:0] data  [STAGES + 1];
  logic        take  [STAGES + 1];

  assign stages_o = 32'(STAGES);
  assign depth_o = 32'(DEPTH);
  assign capacity_o = 32'(CAPACITY);

  ring_source #(.STAGES(STAGES), .DEPTH(DEPTH), .CAPACITY(CAPACITY)) src (
    .clk, .rst,
    .out_valid(valid[0]), .out_data(data[0]), .out_take(take[0]),
    .in_valid(valid[STAGES]), .in_data(data[STAGES]), .in_take(take[STAGES]),
    .received, .errors, .first_err_cycle, .first_err_token, .first_err_value, .first_err_want
  );

  for (genvar i = 0; i < STAGES; i++) begin : stage
    ring_stage #(.DEPTH(DEPTH), .CAPACITY(CAPACITY)) s (
      .clk, .rst,
      .in_valid(valid[i]), .in_data(data[i]), .in_take(take[i]),
      .out_valid(valid[i + 1]), .out_data(data[i + 1]), .out_take(take[i + 1])
    );
  end
endmodule
