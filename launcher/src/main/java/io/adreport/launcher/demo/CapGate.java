package io.adreport.launcher.demo;

/**
 * What the simulated ad server asks before it shows an impression: may this campaign be shown to
 * this device now? The live demo asks the real ad server ({@link ServeAdClient},
 * {@code POST /v1/serve/ad}); the back-fill (history, not serving) and tests use {@link #OPEN}.
 */
interface CapGate {
    CapGate OPEN = (device, advertiser, campaign) -> true;

    boolean mayShow(String device, String advertiser, String campaign);
}
