import { type Channel, Component } from '../kernel/index.ts';
import type { Frame } from './frame.ts';
import type { ToAm } from './mgmt.ts';
import type { TxPort } from './txport.ts';

/**
 * What an aggregation node and a host have in common: a node at the end of one fabric link (frames
 * in on `input`, out through the transmit port `port`) with a management channel from the AM
 * (`mgmtIn`, of type M) and one to it (`mgmtOut`). The fabric builder wires them with attach().
 */
export abstract class FabricEndpoint<M> extends Component {
  input!: Channel<Frame>;
  port!: TxPort;
  mgmtIn!: Channel<M>;
  mgmtOut!: Channel<ToAm>;

  /**
   * Bind this node as consumer of `input` and `mgmtIn` and producer of the port's link and `mgmtOut`.
   * Every arrival wakes the node (`everyPush`), and the node keeps running while its port or its
   * reports to the AM wait for space (its tick returns t + 1 then: `polls`), so going to sleep
   * costs it no look at its channels.
   */
  attach(input: Channel<Frame>, port: TxPort, mgmtIn: Channel<M>, mgmtOut: Channel<ToAm>): void {
    this.input = input.bindConsumer(this, { everyPush: true });
    this.port = port;
    port.link.bindProducer(this, { polls: true });
    this.mgmtIn = mgmtIn.bindConsumer(this, { everyPush: true });
    this.mgmtOut = mgmtOut.bindProducer(this, { polls: true });
  }
}
