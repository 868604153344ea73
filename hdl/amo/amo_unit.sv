// Gemini AMO unit: 64-bit atomic memory operations through the atomic cache (docs/gemini.md "AMO
// unit"; TypeScript RTL rtl/gemini/amo/, golden model models/gemini/amoModel.ts). Synthesizable;
// compile hdl/generated/vectors_pkg.sv first (the operation and status codes).
//
// Operations (codes as vectors_pkg AMO_OPS_OP_*): ADD, FADD: old + a (mod 2^64); AND, FAND: old & a;
// OR: old | a; XOR, FXOR: old ^ a; FCSWAP: a if old == b else old; AX, FAX: (old & a) ^ b. The
// response carries the word's old value for every successful operation (fetching or not).
// Request checks, first failing wins (AMO_OPS_STATUS_*): size != 8 -> bad_size; address not a
// multiple of 8 -> misaligned; address + 8 > MEM_BYTES -> out_of_range; op code >= 10 -> bad_op.
// An error answers with old = 0, hit = 0 and touches neither cache nor memory.
//
// Atomic cache: LINES words in LINES/WAYS sets (set = word address mod sets), one 64-bit word
// per line. Replacement LRU (REPLACEMENT = 0: a hit makes the line most recent) or FIFO (1: only
// a fill does); the victim is the set's least recent (first filled) line once the set is full.
// WRITE_BACK = 1: an operation marks the line dirty and a dirty victim is written to memory before
// the fill; WRITE_BACK = 0: every operation writes its new value through to memory.
//
// One operation at a time, as an explicit state machine:
//   S_IDLE  req_ready; a request presented is checked and looked up this cycle;
//           error -> S_RESP; hit -> S_EXEC; miss: dirty victim -> S_WB, else -> S_FILL
//   S_WB    the victim's word is written to memory (mem_wr_*, one cycle)      -> S_FILL
//   S_FILL  the word is read from memory (mem_rd_en, one cycle)               -> S_WAIT
//   S_WAIT  until mem_rd_valid: the word is installed clean                   -> S_EXEC
//   S_EXEC  the datapath writes the new value into the line (and through)     -> S_RESP
//   S_RESP  resp_valid for one cycle with status, old, hit                    -> S_IDLE
// The request ports and their arbiter and the operation latency (opCycles) of the TypeScript
// unit are not modelled: a request presented in cycle t is answered in t + 1 (an error), t + 2 (a
// hit) or t + 3 + the memory's READ_CYCLES (a miss; hdl/amo/amo_mem.sv), one more with a write-back.
module amo_unit #(
  parameter int     LINES       = 8,        // cache lines (words)
  parameter int     WAYS        = 2,        // ways per set; LINES/WAYS sets
  parameter int     REPLACEMENT = 0,        // 0 LRU, 1 FIFO
  parameter int     WRITE_BACK  = 1,        // 1 write-back, 0 write-through
  parameter longint MEM_BYTES   = 4096,     // the node's memory (a multiple of 8)
  parameter int     TAG_W       = 32
) (
  input  logic             clk,
  input  logic             rst,
  // request
  input  logic             req_valid,
  output logic             req_ready,
  input  logic [TAG_W-1:0] req_tag,
  input  logic [7:0]       req_op,
  input  logic [47:0]      req_addr,
  input  logic [6:0]       req_size,
  input  logic [63:0]      req_a,
  input  logic [63:0]      req_b,
  // response
  output logic             resp_valid,
  output logic [TAG_W-1:0] resp_tag,
  output logic [2:0]       resp_status,
  output logic [63:0]      resp_old,
  output logic             resp_hit,
  // memory (word addresses)
  output logic             mem_rd_en,
  output logic [44:0]      mem_rd_addr,
  input  logic             mem_rd_valid,
  input  logic [63:0]      mem_rd_data,
  output logic             mem_wr_en,
  output logic [44:0]      mem_wr_addr,
  output logic [63:0]      mem_wr_data
);
  localparam int SETS = LINES / WAYS;
  localparam int AGE_W = WAYS > 1 ? $clog2(WAYS) : 1;
  import vectors_pkg::*;
  // status and operation codes from the generated package (the exporter's table: rtl/gemini/amo/ops.ts)
  localparam logic [2:0] OK = 3'(AMO_OPS_STATUS_OK), MISALIGNED = 3'(AMO_OPS_STATUS_MISALIGNED), BAD_SIZE = 3'(AMO_OPS_STATUS_BAD_SIZE),
                         BAD_OP = 3'(AMO_OPS_STATUS_BAD_OP), OUT_OF_RANGE = 3'(AMO_OPS_STATUS_OUT_OF_RANGE);
  localparam logic [7:0] ADD = 8'(AMO_OPS_OP_ADD), AND_ = 8'(AMO_OPS_OP_AND), OR_ = 8'(AMO_OPS_OP_OR), XOR_ = 8'(AMO_OPS_OP_XOR),
                         FADD = 8'(AMO_OPS_OP_FADD), FAND = 8'(AMO_OPS_OP_FAND), FXOR = 8'(AMO_OPS_OP_FXOR),
                         FCSWAP = 8'(AMO_OPS_OP_FCSWAP), AX = 8'(AMO_OPS_OP_AX), FAX = 8'(AMO_OPS_OP_FAX);
  typedef enum logic [2:0] { S_IDLE, S_WB, S_FILL, S_WAIT, S_EXEC, S_RESP } state_t;

  // ---- state
  state_t            state;
  logic              l_valid [LINES];   // line = set * WAYS + way
  logic              l_dirty [LINES];
  logic [44:0]       l_word  [LINES];
  logic [63:0]       l_data  [LINES];
  logic [AGE_W-1:0]  l_age   [LINES];   // recency rank among the set's valid lines, 0 = victim
  logic [TAG_W-1:0]  r_tag;
  logic [7:0]        r_op;
  logic [63:0]       r_a, r_b, r_old;
  logic [44:0]       r_word;
  logic [$clog2(LINES > 1 ? LINES : 2)-1:0] r_line;
  logic [2:0]        r_status;
  logic              r_hit;

  // ---- combinational: request check and lookup (S_IDLE)
  logic [44:0] c_word;
  int          c_set, c_line, c_free;
  logic        c_hit;
  logic [2:0]  c_status;
  always_comb begin
    c_word = req_addr[47:3];
    c_set  = int'(c_word % 45'(SETS));
    if (req_size != 7'd8) c_status = BAD_SIZE;
    else if (req_addr[2:0] != 3'd0) c_status = MISALIGNED;
    else if ({16'd0, req_addr} + 64'd8 > 64'(MEM_BYTES)) c_status = OUT_OF_RANGE;
    else if (req_op > FAX) c_status = BAD_OP;   // FAX: the highest code
    else c_status = OK;
    c_hit = 1'b0; c_line = c_set * WAYS; c_free = -1;
    for (int w = 0; w < WAYS; w++) begin
      if (l_valid[c_set * WAYS + w] && l_word[c_set * WAYS + w] == c_word) begin c_hit = 1'b1; c_line = c_set * WAYS + w; end
    end
    if (!c_hit) begin
      for (int w = WAYS - 1; w >= 0; w--) if (!l_valid[c_set * WAYS + w]) c_free = c_set * WAYS + w;
      if (c_free >= 0) c_line = c_free;
      else for (int w = 0; w < WAYS; w++) if (l_age[c_set * WAYS + w] == '0) c_line = c_set * WAYS + w;
    end
  end

  // ---- combinational: the datapath (S_EXEC)
  logic [63:0] c_new;
  always_comb begin
    case (r_op)
      ADD, FADD:  c_new = r_old + r_a;
      AND_, FAND: c_new = r_old & r_a;
      OR_:        c_new = r_old | r_a;
      XOR_, FXOR: c_new = r_old ^ r_a;
      FCSWAP:     c_new = (r_old == r_b) ? r_a : r_old;
      AX, FAX:    c_new = (r_old & r_a) ^ r_b;
      default:    c_new = r_old;
    endcase
  end

  assign req_ready   = state == S_IDLE;
  assign resp_valid  = state == S_RESP;
  assign resp_tag    = r_tag;
  assign resp_status = r_status;
  assign resp_old    = r_status == OK ? r_old : 64'd0;
  assign resp_hit    = r_hit;
  assign mem_wr_en   = state == S_WB || (state == S_EXEC && WRITE_BACK == 0);
  assign mem_wr_addr = state == S_WB ? l_word[r_line] : r_word;
  assign mem_wr_data = state == S_WB ? l_data[r_line] : c_new;
  assign mem_rd_en   = state == S_FILL;
  assign mem_rd_addr = r_word;

  // recency update of line `ln` in its set: lines more recent than it move down one rank, it
  // becomes the most recent; `fresh`: it was not valid (nothing moves down)
  task automatic touch(input int ln, input bit fresh);
    int base, n;
    base = (ln / WAYS) * WAYS; n = 0;
    for (int w = 0; w < WAYS; w++) if (l_valid[base + w] || base + w == ln) n++;
    for (int w = 0; w < WAYS; w++)
      if (base + w != ln && l_valid[base + w] && !fresh && l_age[base + w] > l_age[ln]) l_age[base + w] <= l_age[base + w] - 1'b1;
    l_age[ln] <= AGE_W'(n - 1);
  endtask

  // ---- next state
  always_ff @(posedge clk) begin
    if (rst) begin
      state <= S_IDLE;
      for (int i = 0; i < LINES; i++) begin l_valid[i] <= 1'b0; l_dirty[i] <= 1'b0; l_word[i] <= '0; l_data[i] <= '0; l_age[i] <= '0; end
      r_status <= OK; r_hit <= 1'b0; r_old <= '0;
    end else begin
      case (state)
        S_IDLE: if (req_valid) begin
          r_tag <= req_tag; r_op <= req_op; r_a <= req_a; r_b <= req_b; r_word <= c_word;
          r_line <= $bits(r_line)'(c_line); r_status <= c_status; r_hit <= c_status == OK && c_hit; r_old <= l_data[c_line];
          if (c_status != OK) state <= S_RESP;
          else if (c_hit) begin
            if (REPLACEMENT == 0) touch(c_line, 1'b0);
            state <= S_EXEC;
          end else state <= (WRITE_BACK != 0 && l_valid[c_line] && l_dirty[c_line]) ? S_WB : S_FILL;
        end
        S_WB:   state <= S_FILL;
        S_FILL: state <= S_WAIT;
        S_WAIT: if (mem_rd_valid) begin
          // the victim (rank 0) leaves, the word comes in as the most recent line
          touch(r_line, !l_valid[r_line]);
          l_valid[r_line] <= 1'b1; l_dirty[r_line] <= 1'b0; l_word[r_line] <= r_word; l_data[r_line] <= mem_rd_data;
          r_old <= mem_rd_data;
          state <= S_EXEC;
        end
        S_EXEC: begin
          l_data[r_line] <= c_new;
          if (WRITE_BACK != 0) l_dirty[r_line] <= 1'b1;
          state <= S_RESP;
        end
        S_RESP: state <= S_IDLE;
        default: state <= S_IDLE;
      endcase
    end
  end
endmodule
