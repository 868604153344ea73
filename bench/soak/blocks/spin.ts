/**
 * Soak entry for the sPIN runtime (rtl/hpu/spin): 2 clusters of 4 HPUs running the committed
 * handler ELFs (rtl/hpu/handlers/elf: pingpong, accumulate, histogram, unpack, probe) on an
 * endless stream of messages (bench/soak/spinStream.ts): 1 to 6 packets of 64 to 256 bytes, up to
 * three messages interleaved on the link, random gaps, about one probe message in 16 failing on
 * purpose. The link is fed by the stream one packet at a time; the unit keeps no handler record,
 * put or completion event (`keep: false`): each goes to the stream's checker, which judges a
 * message against the golden model (models/spin/golden.ts) when its completion event arrives and
 * drops it. Flow control drops payloads when every execution context is busy; those are checked
 * too (dropped bytes, the flag, the results of the packets that ran).
 */
import { SpinUnit } from '../../../rtl/hpu/spin/unit.ts';
import type { SpinParams } from '../../../rtl/hpu/spin/params.ts';
import { type SoakBlock, steppedRun } from '../block.ts';
import { SpinStream } from '../spinStream.ts';

const PARAMS: Partial<SpinParams> = { clusters: 2, hpusPerCluster: 4, bufferedSlots: 4, messageSlots: 32, hpuMemBytes: 4096, handlerBudget: 200_000 };
/** a message still in flight this many cycles after it was sent has hung */
const HUNG_CYCLES = 2_000_000;

export const blocks: SoakBlock[] = [
  {
    name: 'spin-runtime',
    what: 'sPIN runtime, 2 clusters x 4 HPUs running the handler ELFs (pingpong, accumulate, histogram, unpack, probe) on an endless stream of interleaved messages (1 in 16 probes failing on purpose, flow-control drops); each message checked against the golden handler model at its completion event and dropped',
    start(seed) {
      const stream = new SpinStream(seed, PARAMS.clusters! * PARAMS.hpusPerCluster!);
      const unit = new SpinUnit({ ...PARAMS, hostBytes: stream.hostBytes }, stream.entries, stream, { keep: false, onRecord: stream.onRecord, onPut: stream.onPut, onEvent: stream.onEvent });
      stream.host = unit.host;
      stream.poke = () => unit.link.poke();
      let lastMessages = 0;
      return steppedRun(unit.sim, {
        check() {
          const out = stream.problems.splice(0, stream.problems.length);
          if (stream.messages <= lastMessages) out.push(`no message completed since the last sample (${stream.messages} in all)`);
          lastMessages = stream.messages;
          const o = stream.oldest();
          if (o.count > stream.entries.length) out.push(`${o.count} messages in flight, at most ${stream.entries.length} (one per match entry)`);
          if (unit.sim.cycle - o.firstSend > HUNG_CYCLES) out.push(`a message sent at cycle ${o.firstSend} has not completed ${HUNG_CYCLES.toLocaleString('en-US')} cycles later`);
          if (unit.records.length + unit.puts.length + unit.engine.events.length > 0) out.push('the unit kept handler records, puts or events (keep: false)');
          return out;
        },
        summary() {
          const by = [...stream.byHandler].map(([h, n]) => `${h} ${n.toLocaleString('en-US')}`).join(', ');
          return `${stream.messages.toLocaleString('en-US')} messages checked (${by}); ${stream.handlers.toLocaleString('en-US')} handlers ran, ${stream.puts.toLocaleString('en-US')} puts, ${stream.droppedPackets.toLocaleString('en-US')} packets dropped by flow control, ${stream.failedAsExpected.toLocaleString('en-US')} bad messages failed as they must`;
        },
      });
    },
  },
];
