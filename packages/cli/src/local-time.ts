/** Times as the CLI prints them: local, to the minute, and how long ago in round words. */

const two = (value: number) => String(value).padStart(2, '0');

/** "2026-12-05 03:44", local time; "?" for a time that does not parse. */
export function localDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '?';
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** "at 06:41" for a time today, else "on 2026-12-05 at 03:44" (local time). */
export function atLocalTime(iso: string, now: Date): string {
  const stamp = localDateTime(iso);
  if (stamp === '?') return 'at an unknown time';
  const [day, time] = stamp.split(' ');
  return day === localDateTime(now.toISOString()).split(' ')[0] ? `at ${time}` : `on ${day} at ${time}`;
}

/** "less than a minute ago", "5 min ago", "3 h 5 min ago", "2 d 4 h ago". */
export function timeAgo(iso: string, now: Date): string {
  const minutes = Math.floor((now.getTime() - new Date(iso).getTime()) / 60_000);
  if (!Number.isFinite(minutes)) return 'some time ago';
  if (minutes < 1) return 'less than a minute ago';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h ago` : `${hours} h ${minutes % 60} min ago`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d ago` : `${days} d ${hours % 24} h ago`;
}
