/** A size for a person to read in a message: MiB with one decimal from 1 MiB up, else whole KiB. */
export function formatBytes(bytes: number): string {
  const KiB = 1024;
  return bytes >= 1024 * KiB ? `${(bytes / (1024 * KiB)).toFixed(1)} MiB` : `${Math.floor(bytes / KiB)} KiB`;
}
