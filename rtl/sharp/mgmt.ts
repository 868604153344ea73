/**
 * The management plane between the Aggregation Manager (AM), the aggregation nodes, the switches
 * and the hosts' SHArP daemons (seed 000 sections III-E, III-F: SHArPd obtains resources from the
 * AM; errors are reported to the AM, which notifies end nodes and revokes the job's allocation).
 * Modelled as point-to-point channels with the management-datagram latency `mgmtNs`.
 * AM <-> AN messages are real encoded SHArP management packets (GROUP_CREATE, GROUP_TRIM,
 * JOB_QUOTA, JOB_REVOKE, ERROR_REPORT); host and port-state messages are plain records.
 */

/** To the AM. */
export type ToAm =
  /** an encoded ERROR_REPORT from an aggregation node */
  | { kind: 'report'; from: number; bytes: Uint8Array }
  /** a port-state event (switch), a dead process (SHArPd) or a failed TCA (its switch) */
  | { kind: 'event'; event: 'link-down' | 'host-failure' | 'node-failure'; node: number; peer: number };

/** To a host's SHArP daemon / library. */
export type ToHost =
  | {
      kind: 'group-ready';
      job: number;
      group: number;
      tree: number;
      /** rank of this host in the group */
      rank: number;
      size: number;
      /** UD multicast group of the group's results */
      mcast: number;
      /** operations the host may have outstanding in this group */
      maxOps: number;
      /** payload bytes the host may have in flight in this group */
      maxBytes: number;
    }
  /** the job's SHArP resources were revoked: every outstanding operation completes with `status` */
  | { kind: 'job-error'; job: number; status: number };
