import { CodedError, type HostErrorCode } from '@bastion/protocol';

/** Base error of the host: a stable `code` from @bastion/protocol's host codes, and a cause. */
export class HostError extends CodedError<HostErrorCode> {
  override readonly name: string = 'HostError';
}
