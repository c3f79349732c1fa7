package io.adreport.schema.trust;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.EventSpec;
import java.util.Map;

/**
 * What {@link BeaconSigner} must know of the cube whose events the beacons become: the field that
 * names an event's type, the event time field, and the click type (the first type the cube's join
 * attributes to an impression). A click beacon is handed out before the click happens; the browser
 * appends the click's own time field when it fires it, so that one field of a click lies outside
 * the signature (and must precede the signed expiry). The ads cube: {@code type}, {@code ts},
 * {@code click}; a cube with other names signs and verifies under its own.
 *
 * @param typeField the event's type field, or null (then no field is left unsigned)
 * @param timeField the event's time field, or null
 * @param clickType the click's type, or null when the cube has no join from a click to an impression
 */
public record BeaconNames(String typeField, String timeField, String clickType) {
    /** A cube without clicks: every parameter but the signature is signed. */
    public static final BeaconNames NONE = new BeaconNames(null, null, null);

    /** The names of {@code cube}; {@link #NONE} for a cube without a type field, a time field or a join. */
    public static BeaconNames of(Cube cube) {
        EventSpec e = cube.event();
        EventSpec.Join join = e.join();
        if (e.typeField() == null || e.timeField() == null || join == null || join.fromTypes().isEmpty()) {
            return NONE;
        }
        return new BeaconNames(e.typeField(), e.timeField(), join.fromTypes().get(0));
    }

    /** The name of the field the browser appends to {@code beacon} (a click's time), or null. */
    String appendedField(Map<String, String> beacon) {
        return clickType != null && clickType.equals(beacon.get(typeField)) ? timeField : null;
    }
}
