/**
 * Test and bench support: both ends of channel v1 connected in memory (two PassThrough streams),
 * with the real codec and schemas in each direction.
 */
import { PassThrough } from 'node:stream';
import {
  type ChannelError,
  FramedChannel,
  hostToSidecarFrameSchema,
  sidecarToHostFrameSchema,
} from '@bastion/protocol';

export type HostEnd = FramedChannel<typeof sidecarToHostFrameSchema, typeof hostToSidecarFrameSchema>;
export type SidecarEnd = FramedChannel<typeof hostToSidecarFrameSchema, typeof sidecarToHostFrameSchema>;

export function connectedChannelPair(
  options: {
    onHostClose?: (error: ChannelError | undefined) => void;
    onSidecarClose?: (error: ChannelError | undefined) => void;
  } = {},
): { host: HostEnd; sidecar: SidecarEnd } {
  const toHost = new PassThrough();
  const toSidecar = new PassThrough();
  const host: HostEnd = new FramedChannel({
    source: toHost,
    sink: toSidecar,
    inbound: sidecarToHostFrameSchema,
    outbound: hostToSidecarFrameSchema,
    onClose: options.onHostClose ?? (() => undefined),
  });
  const sidecar: SidecarEnd = new FramedChannel({
    source: toSidecar,
    sink: toHost,
    inbound: hostToSidecarFrameSchema,
    outbound: sidecarToHostFrameSchema,
    onClose: options.onSidecarClose ?? (() => undefined),
  });
  return { host, sidecar };
}
