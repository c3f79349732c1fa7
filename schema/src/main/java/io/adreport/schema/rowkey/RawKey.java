package io.adreport.schema.rowkey;

import io.adreport.schema.time.UtcDay;
import java.time.LocalDate;

/**
 * A parsed raw-event row key.
 *
 * @param salt     salt bucket
 * @param epochDay UTC day of the event time
 * @param type     event type ("" for single-type cubes)
 * @param id       event id
 */
public record RawKey(int salt, long epochDay, String type, String id) {
    public LocalDate day() {
        return utcDay().date();
    }

    public UtcDay utcDay() {
        return UtcDay.ofEpochDay(epochDay);
    }
}
