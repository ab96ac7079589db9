// The per-organization quota on attachment storage (ATTACHMENT_QUOTA_BYTES): the bytes of every
// file an organization keeps, uploads being refused once they would take it over. An upload is
// checked twice: before streaming, so a file stops being read as soon as it alone would not fit
// in what is left, and in the transaction that records it, which decides under concurrent uploads.
import { validationFailed, type ServiceError } from '../../shared/errors.ts';

/** 10 GiB per organization unless configured. */
export const DEFAULT_ATTACHMENT_QUOTA_BYTES = 10 * 1024 ** 3;

export interface QuotaUse {
  quotaBytes: number;
  usedBytes: number;
}

export const bytesLeft = ({ quotaBytes, usedBytes }: QuotaUse): number => Math.max(0, quotaBytes - usedBytes);

/** validation_failed naming `files`: the quota, what is used and what is left. */
export function quotaExceeded(use: QuotaUse, neededBytes?: number): ServiceError {
  const needed = neededBytes === undefined ? 'these files do not fit' : `these files need ${neededBytes} bytes`;
  return validationFailed(
    [
      {
        field: 'files',
        message:
          `the organization's attachment storage quota is ${use.quotaBytes} bytes (${readable(use.quotaBytes)}): ` +
          `${use.usedBytes} bytes are used and ${bytesLeft(use)} left; ${needed}`,
      },
    ],
    'The upload would exceed the organization’s attachment storage quota.',
  );
}

function readable(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number(value.toFixed(1))} ${units[unit]}`;
}
