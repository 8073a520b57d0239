import { afterEach, describe, expect, it, vi } from "vitest";
import { get_time } from "../../tools/get_time.js";

const originalTimeZone = process.env.TZ;

afterEach(() => {
  vi.useRealTimers();
  if (originalTimeZone === undefined) delete process.env.TZ;
  else process.env.TZ = originalTimeZone;
});

function at(instant: string, timeZone: string): string {
  process.env.TZ = timeZone;
  vi.useFakeTimers({ now: new Date(instant) });
  return get_time();
}

describe("get_time", () => {
  it.each([
    ["2026-03-14T08:26:53Z", "Europe/Paris", "2026-03-14T09:26:53+01:00 (Europe/Paris)"],
    ["2026-07-14T08:26:53Z", "Europe/Paris", "2026-07-14T10:26:53+02:00 (Europe/Paris)"],
    ["2026-01-01T00:30:00Z", "America/New_York", "2025-12-31T19:30:00-05:00 (America/New_York)"],
    ["2026-01-01T00:00:00Z", "Asia/Kolkata", "2026-01-01T05:30:00+05:30 (Asia/Kolkata)"],
    ["2026-06-01T12:00:00Z", "America/St_Johns", "2026-06-01T09:30:00-02:30 (America/St_Johns)"],
    ["2026-06-01T12:00:00Z", "UTC", "2026-06-01T12:00:00+00:00 (UTC)"],
  ])("gives %s in %s as local ISO 8601 with its offset and the zone name", (instant, timeZone, expected) => {
    expect(at(instant, timeZone)).toBe(expected);
  });

  it("gives a time that parses back to the same instant", () => {
    const shown = at("2026-11-30T04:23:39Z", "Pacific/Chatham");
    expect(shown).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d \(Pacific\/Chatham\)$/);
    expect(new Date(shown.split(" ")[0] ?? "").toISOString()).toBe("2026-11-30T04:23:39.000Z");
  });
});

describe("get_time's zone name", () => {
  it("falls back to the zone Intl resolved when TZ is not a zone name", () => {
    expect(at("2026-06-01T12:00:00Z", "")).toBe("2026-06-01T12:00:00+00:00 (UTC)");
    expect(at("2026-06-01T12:00:00Z", ":Europe/Paris")).toBe("2026-06-01T14:00:00+02:00 (Europe/Paris)");
  });
});
