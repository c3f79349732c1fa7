package io.adreport.schema.cube;

/**
 * What device profiles and the campaign registry need from a cube, by the ads cube's names: a
 * hashed field {@value #DEVICE_FIELD}, dimensions {@value #ADVERTISER} and {@value #CAMPAIGN},
 * and an event type {@value #IMPRESSION} (the event a cap counts). A cube without them (e.g.
 * wikiticker) has no profiles table and no registry; everything else works as before.
 */
public final class ProfileModel {
    public static final String DEVICE_FIELD = "device";
    public static final String ADVERTISER = "advertiser";
    public static final String CAMPAIGN = "campaign";
    public static final String IMPRESSION = "impression";

    private ProfileModel() {
    }

    public static boolean supported(Cube cube) {
        return cube.event().hashedFields().contains(DEVICE_FIELD)
                && cube.dimension(ADVERTISER).isPresent()
                && cube.dimension(CAMPAIGN).isPresent()
                && cube.event().types().contains(IMPRESSION);
    }
}
