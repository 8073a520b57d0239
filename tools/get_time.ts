/**
 * Get the current local date and time. Use it whenever the answer depends on today's date, the time of
 * day or the user's time zone: a model does not know the current time on its own. Returns ISO 8601 local
 * time with its UTC offset, then the IANA time zone name: `2026-03-14T09:26:53+01:00 (Europe/Paris)`.
 *
 * @readOnly
 * @openWorld false
 */
export function get_time(): string {
  const now = new Date();
  return `${localIsoTime(now)} (${timeZoneName()})`;
}

/** The last zone name worked out, with the `TZ` it was worked out for: Intl costs ~0.1 ms a call. */
let zoneName: { tz: string | undefined; name: string } | undefined;

/**
 * The IANA name of the local time zone, worked out again only when `TZ` changes. A `TZ` that names a
 * zone is kept as written, because ICU would report some zones by an older alias (`Asia/Kolkata` as
 * `Asia/Calcutta`). An empty `TZ` means UTC (POSIX),
 * which ICU would call `Etc/Unknown`. Anything else (unset, a file path, a POSIX rule) is left to Intl,
 * which has already applied it to the clock.
 */
function timeZoneName(): string {
  const tz = process.env.TZ;
  if (zoneName === undefined || zoneName.tz !== tz) zoneName = { tz, name: resolveZoneName(tz) };
  return zoneName.name;
}

function resolveZoneName(tz: string | undefined): string {
  const fromEnv = tz?.replace(/^:/, "");
  if (fromEnv === "") return "UTC";
  if (fromEnv !== undefined) {
    try {
      new Intl.DateTimeFormat("en", { timeZone: fromEnv });
      return fromEnv;
    } catch {
      // Not a zone name Intl knows: fall through to the zone Intl resolved.
    }
  }
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
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
