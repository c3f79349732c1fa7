package io.adreport.launcher.demo;

/**
 * The simulated network's ad server as the live demo uses it: for each slot (a zone and a device)
 * the demo asks the real {@code POST /v1/serve/ad} ({@link ServeAdClient}) and fires the beacons
 * it gets back, so budgets, pacing and frequency caps decide which campaign each impression
 * belongs to, or that the slot goes unfilled.
 */
interface AdServer extends CapGate {
    /**
     * A sold slot: what the impression beacon the ad server returned says, and its signed click URL
     * (null when none), which the browser fires with the click's {@code ts} appended if it clicks.
     */
    record Served(String advertiser, String campaign, String creative, String impressionId, long costMicros, String clickUrl) {
    }

    /** Returned when the ad server could not be asked: the demo then picks locally (fails open). */
    Served LOCAL = new Served("", "", "", "", 0, null);

    /** Fires a beacon URL as a browser would (a click when it happens). */
    default void fire(String url) {
    }

    /** The ad for this slot, null when no ad is eligible, or {@link #LOCAL}. */
    Served serve(AdNetwork.Zone zone, AdNetwork.Device device);

    @Override
    default boolean mayShow(String device, String advertiser, String campaign) {
        return true; // the ad server's choice already excludes capped campaigns
    }
}
