package io.adreport.launcher.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.adreport.launcher.demo.DemoCampaigns;
import io.adreport.launcher.demo.DemoOptions;
import io.adreport.launcher.demo.DemoTraffic;
import io.adreport.launcher.demo.ServeAdClient;
import io.adreport.schema.campaign.CampaignStore;
import io.adreport.schema.inventory.ZoneStore;
import io.adreport.testkit.HBaseExtension;
import io.adreport.testkit.MiniHBase;
import io.adreport.testkit.Prerequisites;
import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The live demo's simulated browsers against the product as {@code bin/adreport local --demo}
 * composes it (signed beacons required, the ads cube's default): they fire the signed URLs
 * {@code /v1/serve/ad} handed them, and now and then a forged one (tampered cost, or unsigned).
 * The pixel stores the genuine ones and refuses exactly the forged ones; the aggregator's refusal
 * counter, the report API's {@code beaconsRefused} and the dashboard's tile in a real Chromium all
 * read the number of forged beacons the browsers fired (their own count, kept apart from the
 * product). Without Chromium the browser part is reported skipped ({@link Prerequisites}).
 */
@ExtendWith(HBaseExtension.class)
class DemoBeaconsTest {
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("adreport.chromedriver", "/usr/bin/chromedriver"));
    private static final Path CHROMIUM = Path.of(System.getProperty("adreport.chromium", "/usr/bin/chromium"));

    @Test
    void the_demo_fires_signed_beacons_and_the_dashboard_counts_its_forged_ones(MiniHBase hbase) throws Exception {
        int ingestPort;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            ingestPort = free.getLocalPort(); // the beacon URLs must point at this ingest, as bin/adreport local's do
        }
        try (EdgeStack stack = new EdgeStack(hbase, Map.of("beacon.keys", "d1:0123456789abcdef-demo-key", "ingest.port",
                String.valueOf(ingestPort), "serve.beacon.url", "http://127.0.0.1:" + ingestPort))) {
            DemoCampaigns.register(new CampaignStore(hbase.connection(), stack.ctx.layout()), new ZoneStore(hbase.connection(), stack.ctx.layout()));
            ServeAdClient browsers = new ServeAdClient(URI.create(stack.apiBase), stack.adserver);
            DemoTraffic demo = DemoTraffic.start(URI.create(stack.ingestBase), DemoOptions.defaults().withRate(400).withBackfill(0, 0),
                    Clock.systemUTC(), browsers);
            try {
                // generous: on a loaded machine ad requests time out and the demo fills slots locally (fails open)
                long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (browsers.forged() < 2) {
                    assertTrue(System.nanoTime() < deadline, "within 5 min: the browsers fire two forged beacons");
                    Thread.sleep(100);
                }
            } finally {
                demo.close();
            }
            EdgeStack.await("every fired beacon is answered", () -> browsers.unanswered() == 0);
            long forged = browsers.forged();

            Map<String, Long> refused = counters(stack, "adreport_beacons_refused_total", "reason");
            assertEquals(forged, refused.values().stream().mapToLong(Long::longValue).sum(), "refused: " + refused);
            assertEquals(forged / 2, refused.get("bad-signature"), "every other forged beacon has a tampered cost");
            assertEquals(forged - forged / 2, refused.get("unsigned"), "the others carry no signature");
            long verified = counters(stack, "adreport_beacons_verified_total", "signature").getOrDefault("verified", 0L);
            assertTrue(verified > forged, "the genuine signed URLs verify: " + verified + " for " + forged + " forged");

            EdgeStack.await("the report API reads " + forged + " refused beacons", () -> reported(stack) == forged);
            Prerequisites.require(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                    "DemoBeaconsTest: " + CHROMIUM + " and " + CHROMEDRIVER + " are needed for the dashboard (apt-get install chromium chromium-driver)");
            assertEquals(forged, tile(stack.apiBase, stack.analyst), "the dashboard's refused-beacons tile");
        }
    }

    /** A labelled counter of the ingest's {@code /metrics}, by label value. */
    private static Map<String, Long> counters(EdgeStack stack, String name, String label) throws Exception {
        String metrics = stack.send("GET", stack.ingestBase + "/metrics", null, null).body();
        Map<String, Long> out = new LinkedHashMap<>();
        Matcher m = Pattern.compile(name + "\\{" + label + "=\"([a-z-]+)\"} ([0-9.]+)").matcher(metrics);
        while (m.find()) {
            out.put(m.group(1), (long) Double.parseDouble(m.group(2)));
        }
        return out;
    }

    private static long reported(EdgeStack stack) {
        try {
            return stack.apiJson("GET", "/v1/reconcile", stack.analyst, null).path("beaconsRefused").asLong(-1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The tile's number once the signed-in dashboard shows one (an analyst sees it). */
    private static long tile(String baseUrl, String key) throws Exception {
        Path profile = Files.createTempDirectory("adreport-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--window-size=1360,1500", "--user-data-dir=" + profile);
        WebDriver driver = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build(), options);
        try {
            WebDriverWait waiting = new WebDriverWait(driver, Duration.ofSeconds(60), Duration.ofMillis(200));
            driver.get(baseUrl + "/");
            waiting.until(d -> d.findElement(By.id("key")).isDisplayed());
            driver.findElement(By.id("key")).sendKeys(key);
            driver.findElement(By.id("sign-in-button")).click();
            Object shown = waiting.until(d -> ((JavascriptExecutor) d).executeScript(
                    "const e = document.querySelector('#trust-kpis:not([hidden]) #kpi-beaconsRefused .value');"
                            + " return e && e.dataset.value ? e.dataset.value : null;"));
            return Long.parseLong((String) shown);
        } finally {
            driver.quit();
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }
}
