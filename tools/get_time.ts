/**
 * Get the current local date and time. Use it whenever the answer depends on today's date, the time of
 * day or the user's time zone: a model does not know the current time on its own.
 *
 * @returns The local time as ISO 8601 with its UTC offset, then the IANA time zone name, for example
 * `2026-03-14T09:26:53+01:00 (Europe/Paris)`.
 */
export function get_time(): string {
  const now = new Date();
  const timeZone = new Intl.DateTimeFormat().resolvedOptions().timeZone;
  return `${localIsoTime(now)} (${timeZone})`;
}

/** `now` in local time as `YYYY-MM-DDTHH:MM:SS±HH:MM` (never `Z`: the offset is part of the answer). */
function localIsoTime(now: Date): string {
  const two = (value: number): string => String(value).padStart(2, "0");
  const offsetMinutes = -now.getTimezoneOffset();
  const sign = offsetMinutes < 0 ? "-" : "+";
  const offset = `${sign}${two(Math.floor(Math.abs(offsetMinutes) / 60))}:${two(Math.abs(offsetMinutes) % 60)}`;
  const date = `${String(now.getFullYear()).padStart(4, "0")}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
  return `${date}T${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}${offset}`;
}
