package io.adreport.serving.check;

import io.adreport.schema.cube.Cube;
import io.adreport.schema.cube.EventSpec;
import io.adreport.schema.cube.Metric;
import io.adreport.schema.cube.ProfileModel;
import io.adreport.schema.trust.BeaconNames;
import java.util.Objects;

/**
 * The names a beacon URL uses, read from the cube whose events the beacons become: the event's
 * type, id and time fields and the impression type ({@link EventSpec}); the click type and the
 * field that joins it to its impression (the cube's join: its target type is the impression, the
 * first type it attributes is the click; type, time and click as {@link BeaconNames} gives them to
 * the pixel's verifier); the device and the campaign's dimensions
 * ({@link ProfileModel}); the numeric field the impression's spend sums (ads cube:
 * {@code costMicros}). A dimension the cube does not have ({@code creative}, {@code publisher},
 * {@code zone}, {@code country}, {@code deviceType}) is null and left out of the beacon.
 */
record BeaconFields(String type, String id, String time, String impression, String click, String joinField,
                    String device, String advertiser, String campaign, String creative, String publisher, String zone,
                    String country, String deviceType, String cost) {

    BeaconFields {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(time, "time");
    }

    /** The beacon names of {@code cube}; a cube without a type field, an id field or an impression join cannot carry beacons. */
    static BeaconFields of(Cube cube) {
        EventSpec e = cube.event();
        EventSpec.Join join = e.join();
        BeaconNames names = BeaconNames.of(cube); // the click and its time, as the pixel's verifier reads them
        if (e.idField() == null || names.clickType() == null) {
            throw new IllegalArgumentException("cube " + cube.name() + ": ad beacons need event.typeField, event.idField and an event.join"
                    + " from the click to the impression");
        }
        String cost = cube.metrics().stream()
                .filter(m -> m.kind() == Metric.Kind.SUM && join.targetType().equals(m.eventType()))
                .map(Metric::field).findFirst().orElse(null);
        return new BeaconFields(names.typeField(), e.idField(), names.timeField(), join.targetType(), names.clickType(), join.field(),
                ProfileModel.DEVICE_FIELD, ProfileModel.ADVERTISER, ProfileModel.CAMPAIGN, dimension(cube, "creative"),
                dimension(cube, "publisher"), dimension(cube, "zone"), dimension(cube, "country"), dimension(cube, "deviceType"), cost);
    }

    private static String dimension(Cube cube, String name) {
        return cube.dimension(name).isPresent() ? name : null;
    }
}
