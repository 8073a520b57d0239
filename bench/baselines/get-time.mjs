/** What tools/get_time.ts answers (local ISO time with its offset, then the zone's name, worked out once), for the baselines. */
let zone;

export function getTimeText(now = new Date()) {
  const two = (value) => String(value).padStart(2, "0");
  const offset = -now.getTimezoneOffset();
  const zoneOffset = `${offset < 0 ? "-" : "+"}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  const local = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}T${two(now.getHours())}:${two(now.getMinutes())}:${two(now.getSeconds())}${zoneOffset}`;
  return `${local} (${(zone ??= new Intl.DateTimeFormat().resolvedOptions().timeZone)})`;
}
