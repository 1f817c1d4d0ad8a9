/**
 * The sidecar's end of channel v1: frames from the host on stdin, frames to it on stdout.
 * The first frame must be `bootstrap`; it carries the per-spawn password, which therefore never
 * appears in argv, the environment, on disk or in a log.
 */
import {
  ChannelError,
  FramedChannel,
  hostToSidecarFrameSchema,
  sidecarToHostFrameSchema,
  SIDECAR_MIN_PASSWORD_CHARS,
  type FrameOfType,
  type HostToSidecarFrame,
} from '@bastion/protocol';

export type HostChannel = FramedChannel<typeof hostToSidecarFrameSchema, typeof sidecarToHostFrameSchema>;
export type BootstrapFrame = FrameOfType<HostToSidecarFrame, 'bootstrap'>;

/**
 * Open the channel and wait for the bootstrap frame. `onClose` runs when the channel later ends
 * or fails; the caller exits the process then.
 */
export function openHostChannel(options: {
  onClose: (error: ChannelError | undefined) => void;
}): Promise<{ channel: HostChannel; bootstrap: BootstrapFrame }> {
  return new Promise((resolve, reject) => {
    let bootstrapped = false;
    const channel: HostChannel = new FramedChannel({
      source: process.stdin,
      sink: process.stdout,
      inbound: hostToSidecarFrameSchema,
      outbound: sidecarToHostFrameSchema,
      onClose: (error) => {
        if (!bootstrapped) reject(error ?? new ChannelError('CHANNEL_CLOSED', 'channel closed before bootstrap'));
        else options.onClose(error);
      },
    });
    channel.on('bootstrap', (frame) => {
      if (bootstrapped) throw new ChannelError('CHANNEL_FRAME_OUT_OF_ORDER', 'second bootstrap frame');
      if (frame.password.length < SIDECAR_MIN_PASSWORD_CHARS) {
        throw new ChannelError('CHANNEL_FRAME_SCHEMA', 'bootstrap password is too short');
      }
      bootstrapped = true;
      resolve({ channel, bootstrap: frame });
    });
  });
}
