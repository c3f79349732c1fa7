package io.adreport.schema.cube;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * A stored time-bucket width. Buckets are cut in UTC and aligned to the epoch.
 *
 * <p>{@code MINUTES_15} is the finest stored bucket because every IANA zone offset in use today is
 * a multiple of 15 minutes (Asia/Kolkata +05:30, Asia/Kathmandu +05:45, Australia/Eucla +08:45),
 * so a report can cut hours and days in any zone from 15-minute buckets exactly. Coarser stored
 * buckets ({@code HOUR}, {@code DAY}) only make reads cheaper where their boundaries line up with
 * the zone's; the report planner picks the coarsest one that does.
 *
 * <p>The {@link #code()} is written into row keys and is frozen.
 */
public enum Granularity {
    MINUTES_15("15m", 1, 15),
    HOUR("hour", 2, 60),
    DAY("day", 3, 1440);

    private final String label;
    private final int code;
    private final int minutes;

    Granularity(String label, int code, int minutes) {
        this.label = label;
        this.code = code;
        this.minutes = minutes;
    }

    /** Name used in cube files and APIs: {@code 15m}, {@code hour}, {@code day}. */
    public String label() {
        return label;
    }

    /** Frozen one-byte code stored in counter row keys. */
    public int code() {
        return code;
    }

    public int minutes() {
        return minutes;
    }

    /** Start of the bucket holding {@code t}, in epoch minutes (UTC, aligned to the epoch). */
    public long bucketMinute(Instant t) {
        long minute = Math.floorDiv(t.getEpochSecond(), 60);
        return minute - Math.floorMod(minute, minutes);
    }

    public Instant bucketStart(Instant t) {
        return Instant.ofEpochSecond(bucketMinute(t) * 60);
    }

    /** True when {@code t} is the start of a bucket of this width. */
    public boolean isAligned(Instant t) {
        return t.getNano() == 0 && t.getEpochSecond() % 60 == 0
                && Math.floorMod(t.getEpochSecond() / 60, minutes) == 0;
    }

    public Instant next(Instant bucketStart) {
        return bucketStart.plus(minutes, ChronoUnit.MINUTES);
    }

    public static Granularity fromCode(int code) {
        for (Granularity g : values()) {
            if (g.code == code) {
                return g;
            }
        }
        throw new IllegalArgumentException("unknown granularity code " + code);
    }

    public static Granularity fromLabel(String label) {
        for (Granularity g : values()) {
            if (g.label.equals(label.toLowerCase(Locale.ROOT))) {
                return g;
            }
        }
        throw new IllegalArgumentException("must be one of 15m, hour, day, not '" + label + "'");
    }
}
