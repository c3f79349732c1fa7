package io.adreport.serving.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.schema.cube.CubeLoader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The beacon URLs name the fields of the cube they are counted in, not the ads cube's names. */
class BeaconFieldsTest {

    private static String adsCube() throws IOException {
        try (InputStream in = CubeLoader.class.getResourceAsStream(CubeLoader.DEFAULT_RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void the_ads_cube_gives_the_pixel_its_names() throws IOException {
        BeaconFields f = BeaconFields.of(CubeLoader.parse("ads", adsCube()));
        assertEquals(new BeaconFields("type", "id", "ts", "impression", "click", "impressionId", "device", "advertiser", "campaign",
                "creative", "publisher", "zone", "country", "deviceType", "costMicros"), f);
    }

    @Test
    void renamed_fields_and_a_missing_dimension_follow_the_cube() throws IOException {
        String text = adsCube().replace("typeField: type", "typeField: kind").replace("idField: id", "idField: eventId")
                .replace("timeField: ts", "timeField: at").replace("field: impressionId", "field: imp")
                .replace("costMicros", "priceMicros")
                .replace("  - {name: creative, maxLength: 64}\n", "").replace("[advertiser, campaign, creative]", "[advertiser, campaign]");
        BeaconFields f = BeaconFields.of(CubeLoader.parse("renamed", text));
        assertEquals("kind", f.type());
        assertEquals("eventId", f.id());
        assertEquals("at", f.time());
        assertEquals("imp", f.joinField());
        assertEquals("priceMicros", f.cost());
        assertNull(f.creative(), "a dimension the cube lacks is left out of the beacon");
    }

    @Test
    void a_cube_without_an_impression_join_is_refused_naming_the_rule() throws IOException {
        String text = adsCube().replaceAll("(?s)  join:.*?lookbackDays: 2\n", "").replaceAll(".*unattributed: true.*\n", "");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BeaconFields.of(CubeLoader.parse("nojoin", text)));
        assertTrue(e.getMessage().contains("event.join"), e.getMessage());
    }
}
